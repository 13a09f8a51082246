// inferno-run as a user meets it: --help, command-line mistakes, missing files and a machine
// without a GPU, each checked by its exact first line of stderr and its exit code.
#include <dlfcn.h>

#include <string>
#include <vector>

#include "runtime_test_support.h"
#include "support/catch.h"
#include "support/subprocess.h"

using inferno::test::contains;
using inferno::test::model_path;

namespace {

inferno::test::ProcessResult inferno_run(std::vector<std::string> args) {
  args.insert(args.begin(), INFERNO_RUN_EXE);
  return inferno::test::run_process(args);
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

/// Whether the NVIDIA driver library can be loaded here (cudart looks for the same file).
bool have_driver() {
  void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle != nullptr) dlclose(handle);
  return handle != nullptr;
}

}  // namespace

TEST_CASE("inferno-run --help lists the exit codes and what --iters prints", "[runtime]") {
  const auto help = inferno_run({"--help"});
  CHECK(help.exit_code == 0);
  CHECK(contains(help.out, "Exit codes: 0 ok, 1 internal or CUDA error, 3 invalid model"));
  CHECK(contains(help.out, "--iters N"));
  CHECK(contains(help.out, "median, p90 and minimum latency in microseconds"));
  CHECK(contains(help.out, "--device INDEX"));
  CHECK(contains(help.out, "--check SM"));
  CHECK_FALSE(contains(help.out, "1073741824"));
}

TEST_CASE("inferno-run's command-line mistakes: the error, a --help hint, exit 3", "[runtime]") {
  const auto none = inferno_run({});
  CHECK(none.exit_code == 3);
  CHECK(first_line(none.err) == "inferno-run: error: model is required");
  CHECK(contains(none.err, "run 'inferno-run --help' for the options"));
  const auto extra = inferno_run({model_path("good"), "--bogus"});
  CHECK(extra.exit_code == 3);
  CHECK(first_line(extra.err) ==
        "inferno-run: error: The following argument was not expected: --bogus");
  const auto negative = inferno_run({model_path("good"), "--iters", "-1"});
  CHECK(negative.exit_code == 3);
  CHECK(first_line(negative.err).starts_with("inferno-run: error: --iters: "));
}

TEST_CASE("inferno-run names a missing model or .npy file as infernoc does", "[runtime]") {
  const auto model = inferno_run({"/nonexistent/model.so"});
  CHECK(model.exit_code == 5);
  CHECK(first_line(model.err) ==
        "inferno-run: error: io: cannot read '/nonexistent/model.so': no such file");
  // The .npy files are read before the model is loaded, so this holds without a GPU too.
  const auto data = inferno_run({model_path("good"), "--data", "/nonexistent/x.npy"});
  CHECK(data.exit_code == 5);
  CHECK(first_line(data.err) ==
        "inferno-run: error: cannot read '/nonexistent/x.npy': no such file");
}

TEST_CASE("without an NVIDIA driver inferno-run says so, keeping CUDA's error", "[runtime]") {
  if (have_driver()) return;  // a driver is here: the run may succeed, or fail for another reason
  const auto run = inferno_run({model_path("good")});
  CHECK(run.exit_code == 4);
  const std::string line = first_line(run.err);
  INFO(line);
  CHECK(line.starts_with(
      "inferno-run: error: no_device: no NVIDIA GPU or driver found (cudaGetDeviceCount: "));
  CHECK(line.ends_with(" (cudaErrorInsufficientDriver))"));
  // --check needs no GPU.
  const auto checked = inferno_run({model_path("good"), "--check", "0"});
  CHECK(checked.exit_code == 0);
  CHECK(first_line(checked.out).starts_with("ok: "));
}
