// infernoc runs its TorchScript loader (infernoc-torchscript) as a child: a loader that crashes
// on a file is exit 3 with a message about the file, and a loader that cannot be found is exit 4
// naming it. (The loader's own errors are checked through infernoc in cli_messages_test.cpp and
// the other CLI tests.)
#include <stdlib.h>

#include <string>
#include <vector>

#include "support/catch.h"
#include "support/subprocess.h"
#include "support/test_support.h"

namespace inferno {
namespace {

/// Runs infernoc on mlp2's TorchScript file with INFERNO_TORCHSCRIPT_LOADER set to `loader`.
test::ProcessResult infernoc_with_loader(const std::string& loader) {
  ::setenv("INFERNO_TORCHSCRIPT_LOADER", loader.c_str(), 1);
  test::ProcessResult result = test::run_process(
      {INFERNOC_EXE, test::fixture_path("mlp2/model.pt"), "--input", "x:4x16:f32", "--emit", "ir"});
  ::unsetenv("INFERNO_TORCHSCRIPT_LOADER");
  return result;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

TEST_CASE("a TorchScript loader that aborts is exit 3, not a crash of infernoc") {
  const test::ProcessResult result = infernoc_with_loader(ABORTING_TORCHSCRIPT_LOADER_EXE);
  INFO(result.err);
  CHECK(result.exit_code == 3);
  CHECK(first_line(result.err) ==
        "infernoc: error: the TorchScript loader failed on this file: '" +
            test::fixture_path("mlp2/model.pt") +
            "': it ended with signal 6 (Aborted) (it printed: terminate called: the test loader "
            "aborts)");
}

TEST_CASE("a missing TorchScript loader is exit 4 naming it") {
  const test::ProcessResult result = infernoc_with_loader("/nonexistent/infernoc-torchscript");
  INFO(result.err);
  CHECK(result.exit_code == 4);
  CHECK(first_line(result.err) ==
        "infernoc: error: INFERNO_TORCHSCRIPT_LOADER is '/nonexistent/infernoc-torchscript', "
        "which is not an executable file");
}

TEST_CASE("infernoc finds its TorchScript loader beside itself") {
  ::unsetenv("INFERNO_TORCHSCRIPT_LOADER");
  const test::ProcessResult result = test::run_process(
      {INFERNOC_EXE, test::fixture_path("mlp2/model.pt"), "--input", "x:4x16:f32", "--emit", "ir"});
  INFO(result.err);
  CHECK(result.exit_code == 0);
  CHECK(result.out.rfind("graph(%x: f32[4,16]) {\n", 0) == 0);
}

}  // namespace
}  // namespace inferno
