// Whole-file reads with a size bound, and atomic writes (temp file in the same directory, then
// rename), so a failed or interrupted write never leaves a partial output behind.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/status.h"

namespace inferno {

/// The I/O error for an input file that cannot be opened or read, worded alike for every input
/// (the model, --data files): "cannot read 'PATH': no such file", "...: it is a directory", else
/// the system's description of `err` (an errno value).
Status read_error(const std::string& path, int err);

/// Reads `path` whole. Files larger than `max_bytes` are refused (invalid input); unreadable
/// files are I/O errors naming the path.
Expected<std::vector<std::byte>> read_file_bytes(const std::string& path, uint64_t max_bytes);

/// Writes `contents` to `path` atomically. Errors are I/O errors naming the path.
Status write_file_atomic(const std::string& path, std::string_view contents);

}  // namespace inferno
