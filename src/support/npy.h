// Reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0; C order only).
// Standalone on purpose: the runtime's command-line runner reuses it without the compiler.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "support/status.h"

namespace inferno {

/// One array: its NumPy type string as written in the header ("<f4", "<f8", "<f2", "<i8",
/// "<i4", "|b1", ...), shape, and the raw little-endian bytes in C order.
struct NpyArray {
  std::string descr;
  std::vector<int64_t> shape;
  std::vector<std::byte> data;
};

/// Reads `path`. Bounds-checked: a header or data size that does not match the file is an
/// invalid-input error, never an out-of-bounds read; Fortran order and big-endian data are
/// refused with a message. Unreadable files give an I/O error.
Expected<NpyArray> read_npy(const std::string& path);
/// Parses an .npy image already in memory (for tests and for read_npy).
Expected<NpyArray> parse_npy(const std::vector<std::byte>& bytes, const std::string& what);
/// Writes `array` as a version 1.0 .npy file.
Status write_npy(const std::string& path, const NpyArray& array);

}  // namespace inferno
