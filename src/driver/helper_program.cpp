#include "driver/helper_program.h"

#include <cstdlib>
#include <filesystem>

#include "driver/process.h"
#include "driver/program_search.h"

namespace inferno::driver {

Expected<std::string> find_helper_program(const HelperProgram& program) {
  const char* override_path = std::getenv(program.env_variable.c_str());
  if (override_path != nullptr && *override_path != '\0') {
    if (!why_not_executable(override_path).empty()) {
      return toolchain_error(program.env_variable + " is '" + override_path +
                             "', which is not an executable file");
    }
    return std::string(override_path);
  }
  const std::filesystem::path dir = executable_dir();
  std::vector<std::string> tried;
  for (const std::string& relative : program.relative_dirs) {
    const std::string candidate = (dir / relative / program.file_name).lexically_normal().string();
    if (!dir.empty() && why_not_executable(candidate).empty()) return candidate;
    tried.push_back("'" + candidate + "'");
  }
  std::string where;
  if (tried.size() == 2) {
    where = "neither " + tried[0] + " nor " + tried[1];
  } else {
    for (size_t i = 0; i < tried.size(); ++i) where += (i > 0 ? ", " : "none of ") + tried[i];
  }
  return toolchain_error("cannot find " + program.description + " " + program.file_name +
                         ": it is " + where + "; set " + program.env_variable + " to its path");
}

}  // namespace inferno::driver
