// Spawning programs with argv (no shell in infernoc; the tests use /bin/sh as a fixture program).
#include <chrono>
#include <filesystem>
#include <string>

#include "driver/process.h"
#include "driver_test_helpers.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno::driver {
namespace {

using test::contains;
using test::ScratchDir;

TEST_CASE("a program's exit status and output are captured") {
  auto result = run_program({"/bin/sh", "-c", "echo to-out; echo to-err >&2; exit 3"}, {});
  REQUIRE(result.has_value());
  CHECK(result->exit_code == 3);
  CHECK(result->signal == 0);
  CHECK_FALSE(result->succeeded());
  CHECK(contains(result->output, "to-out\n"));
  CHECK(contains(result->output, "to-err\n"));
  CHECK(result->describe_end() == "exit status 3");

  auto ok = run_program({"/bin/true"}, {});
  REQUIRE(ok.has_value());
  CHECK(ok->succeeded());
}

TEST_CASE("arguments reach the program unchanged, shell characters and all") {
  const std::string tricky = "a b;c'd\"e$HOME`id`\\f*";
  auto result = run_program({"/bin/sh", "-c", "printf '%s' \"$1\"", "sh", tricky}, {});
  REQUIRE(result.has_value());
  CHECK(result->output == tricky);
}

TEST_CASE("the child runs in the given directory and writes to the given file") {
  ScratchDir dir("process cwd; 'quoted'");
  const std::string log = dir / "out.log";
  RunOptions options;
  options.cwd = dir.path().string();
  options.output_file = log;
  // The child's stdin is /dev/null, asked of /proc rather than read: on some machines /dev/null
  // is a regular file that holds whatever was last written to it.
  auto result =
      run_program({"/bin/sh", "-c", "pwd; echo err >&2; /bin/readlink /proc/$$/fd/0"}, options);
  REQUIRE(result.has_value());
  CHECK(result->succeeded());
  CHECK(result->output.empty());
  CHECK(test::read_text_file(log) == dir.path().string() + "\nerr\n/dev/null\n");
}

TEST_CASE("signals, timeouts and cancellation end the child") {
  auto killed = run_program({"/bin/sh", "-c", "kill -TERM $$"}, {});
  REQUIRE(killed.has_value());
  CHECK(killed->signal == 15);
  CHECK(killed->exit_code == -1);
  CHECK(contains(killed->describe_end(), "signal 15"));

  const auto start = std::chrono::steady_clock::now();
  RunOptions timeout;
  timeout.timeout = std::chrono::milliseconds(200);
  auto late = run_program({"/bin/sh", "-c", "/bin/sleep 30; echo never"}, timeout);
  REQUIRE(late.has_value());
  CHECK(late->timed_out);
  CHECK_FALSE(late->succeeded());

  int polls = 0;
  RunOptions cancel;
  cancel.cancel = [&polls] { return ++polls > 3; };
  auto cancelled = run_program({"/bin/sh", "-c", "/bin/sleep 30 & wait"}, cancel);
  REQUIRE(cancelled.has_value());
  CHECK(cancelled->cancelled);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
}

TEST_CASE("a program that cannot be started is a toolchain error naming it") {
  auto missing = run_program({"/nonexistent/nvcc", "--version"}, {});
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.status().code() == ErrorCode::kToolchain);
  CHECK(contains(missing.status().message(), "/nonexistent/nvcc"));
}

TEST_CASE("shell_quote writes a line the shell splits back into the same argv") {
  CHECK(shell_quote({"nvcc", "-O3", "-gencode=arch=compute_90,code=sm_90", "-o", "model.so"}) ==
        "nvcc -O3 -gencode=arch=compute_90,code=sm_90 -o model.so");
  const std::vector<std::string> argv = {"a b", "it's", "$HOME", "`id`", "x;y", "", "\"q\""};
  CHECK(shell_quote(argv) == "'a b' 'it'\\''s' '$HOME' '`id`' 'x;y' '' '\"q\"'");
  auto echoed = run_program(
      {"/bin/sh", "-c", "for a in " + shell_quote(argv) + "; do printf '[%s]' \"$a\"; done"}, {});
  REQUIRE(echoed.has_value());
  CHECK(echoed->output == "[a b][it's][$HOME][`id`][x;y][][\"q\"]");
}

}  // namespace
}  // namespace inferno::driver
