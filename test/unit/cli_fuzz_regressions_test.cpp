// The .pt2 fuzz regressions (test/fuzz/regressions/pt2) through infernoc itself: whatever the file,
// the exit code is 0, 2 (unsupported) or 3 (invalid input), never 1 (internal error), and a
// refusal is one "infernoc: error:" message.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "driver_test_helpers.h"
#include "support/catch.h"
#include "support/subprocess.h"

namespace inferno {
namespace {

TEST_CASE("every fuzz regression ends in exit 0, 2 or 3") {
  const std::filesystem::path dir =
      std::filesystem::path(INFERNO_SOURCE_DIR) / "test/fuzz/regressions/pt2";
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 7);
  test::ScratchDir scratch("fuzz_regressions");
  for (const std::filesystem::path& file : files) {
    const test::ProcessResult result = test::run_process(
        {INFERNOC_EXE, file.string(), "--emit", "cu", "-o", scratch / "model.cu"});
    INFO(file.filename().string() << " -> exit " << result.exit_code << ": " << result.err);
    CHECK((result.exit_code == 0 || result.exit_code == 2 || result.exit_code == 3));
    if (result.exit_code != 0) CHECK(result.err.starts_with("infernoc: error: "));
  }
}

}  // namespace
}  // namespace inferno
