// Finding an executable: whether a path is one, and the first one of a name in a $PATH-style
// directory list. Shared by the nvcc search and the optional Graphviz `dot` run.
#pragma once

#include <string>
#include <string_view>

namespace inferno::driver {

/// Empty when `path` is an executable regular file, else why it is not ("not executable", ...).
std::string why_not_executable(const std::string& path);

/// The first `<dir>/<program>` that is executable, for each directory of `path_list` (':'
/// separated, as $PATH); "" when none is. Empty entries are skipped: they would mean the current
/// directory, which is never searched.
std::string find_in_path(std::string_view program, std::string_view path_list);

}  // namespace inferno::driver
