// Running a program (nvcc) with an argv vector through posix_spawn: never a shell, so no argument
// is ever re-parsed. Its output goes to a file or is captured; a cancel callback, polled while it
// runs, lets the caller stop it (used when infernoc itself is interrupted).
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "support/status.h"

namespace inferno::driver {

struct RunOptions {
  std::string cwd;  ///< working directory of the child; empty: ours
  std::string
      output_file;  ///< stdout and stderr go to this file; empty: captured into ProcessResult
  size_t max_captured_bytes = 1 << 20;               ///< captured output beyond this is dropped
  std::optional<std::chrono::milliseconds> timeout;  ///< the child is killed after this long
  std::function<bool()> cancel;  ///< polled while the child runs; true: kill it and return
};

struct ProcessResult {
  int exit_code = -1;  ///< the exit status when it exited, else -1
  int signal = 0;      ///< the signal that ended it, else 0
  bool timed_out = false;
  bool cancelled = false;
  std::string output;  ///< stdout and stderr together, when captured

  bool succeeded() const { return exit_code == 0; }
  /// "exit status 2", "signal 9", "a timeout"...
  std::string describe_end() const;
  /// The last non-empty line of the captured output (where a failing program says why).
  std::string last_line() const;
};

/// Runs argv[0] (a path; PATH is not searched) with arguments argv[1..] and waits for it. A
/// program that cannot be started is a toolchain error naming it; the outcome of one that ran,
/// whatever its exit status, is a ProcessResult.
Expected<ProcessResult> run_program(const std::vector<std::string>& argv,
                                    const RunOptions& options);

/// Runs several programs at once, each as run_program would on a thread of its own, and waits
/// for all. When one cannot start or ends unsuccessfully, the others are cancelled (their results
/// say so); each one's own cancel callback is polled as well. Results in the order of `argvs`.
std::vector<Expected<ProcessResult>> run_programs(
    const std::vector<std::vector<std::string>>& argvs, const std::vector<RunOptions>& options);

/// The directory holding the running executable (from /proc/self/exe); empty when unknown. Where
/// infernoc finds what is installed beside it (its kernels, its TorchScript loader).
std::filesystem::path executable_dir();

/// Removes `path` and everything under it (symbolic links are removed, not followed), as far as
/// it can; a missing path is no error. Used instead of std::filesystem::remove_all, which jumps
/// to a null pointer in binaries that link the torch wheel's libtorch.so (docs/gpu-build.md).
void remove_tree(const std::string& path);

/// `argv` as one line a POSIX shell would run unchanged (for logs and command.txt).
std::string shell_quote(const std::vector<std::string>& argv);

}  // namespace inferno::driver
