// Helpers for the CLI tests (test_cli, which defines INFERNOC_EXE): running the real infernoc, and
// the driver tests' helpers (scratch directories, test::contains).
#pragma once

#include <string>
#include <vector>

#include "driver_test_helpers.h"
#include "support/subprocess.h"

namespace inferno::test {

/// Runs infernoc with `args` (its path first), capturing what it prints and its exit code.
inline ProcessResult infernoc(std::vector<std::string> args) {
  args.insert(args.begin(), INFERNOC_EXE);
  return run_process(args);
}

}  // namespace inferno::test
