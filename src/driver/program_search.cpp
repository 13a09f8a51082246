#include "driver/program_search.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace inferno::driver {

std::string why_not_executable(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::strerror(errno);
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  if (::access(path.c_str(), X_OK) != 0) return "not executable";
  return {};
}

std::string find_in_path(std::string_view program, std::string_view path_list) {
  size_t start = 0;
  while (start <= path_list.size()) {
    const size_t colon = std::min(path_list.find(':', start), path_list.size());
    const std::string_view dir = path_list.substr(start, colon - start);
    start = colon + 1;
    if (dir.empty()) continue;
    std::string candidate(dir);
    if (candidate.back() != '/') candidate += '/';
    candidate += program;
    if (why_not_executable(candidate).empty()) return candidate;
  }
  return {};
}

}  // namespace inferno::driver
