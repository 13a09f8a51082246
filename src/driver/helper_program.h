// Finding a program infernoc runs as a child and ships beside itself (the TorchScript loader,
// inferno-run for `infernoc verify`): an environment variable names it, else it is looked for in
// directories relative to infernoc's own (the build tree's layout, then the installed one).
#pragma once

#include <string>
#include <vector>

#include "support/status.h"

namespace inferno::driver {

struct HelperProgram {
  std::string description;   ///< for messages: "the TorchScript loader"
  std::string file_name;     ///< "infernoc-torchscript"
  std::string env_variable;  ///< overrides the search when set and not empty
  /// Relative to the running executable's directory, in search order ("." is beside it).
  std::vector<std::string> relative_dirs;
};

/// The program's path. A toolchain error (exit 4) when the variable names no executable file, or
/// when no directory holds it: the message names every path tried and the variable.
Expected<std::string> find_helper_program(const HelperProgram& program);

}  // namespace inferno::driver
