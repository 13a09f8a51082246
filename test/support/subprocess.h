// Running a program from a test (posix_spawn, no shell) and capturing what it printed.
#pragma once

#include <string>
#include <vector>

namespace inferno::test {

struct ProcessResult {
  int exit_code = -1;  ///< the exit status; 128 + signal number when killed by a signal
  std::string out;     ///< stdout
  std::string err;     ///< stderr
};

/// Runs argv[0] with arguments argv[1..] and waits for it; in directory `cwd` when not empty.
ProcessResult run_process(const std::vector<std::string>& argv, const std::string& cwd = "");

}  // namespace inferno::test
