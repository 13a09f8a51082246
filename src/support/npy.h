// Reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0; C order only).
// Standalone on purpose: the runtime's command-line runner reuses it without the compiler.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
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

/// Bytes per element of a supported descr ("<f4", "<f8", "<f2", "<i8", "<i4", "|b1", "|u1");
/// 0 for any other descr.
int64_t npy_itemsize(std::string_view descr);

/// Reads `path`. Bounds-checked: a header or data size that does not match the file is an
/// invalid-input error, never an out-of-bounds read; Fortran order and big-endian data are
/// refused with a message. Unreadable files give an I/O error.
Expected<NpyArray> read_npy(const std::string& path);
/// Parses an .npy image already in memory (for tests and for read_npy). `what` names the source
/// (a path) in error messages.
Expected<NpyArray> parse_npy(const std::vector<std::byte>& bytes, const std::string& what);
/// The .npy image of `array`, as NumPy lays it out: version 1.0 (2.0 only if the header does not
/// fit in 64 KiB), header padded with spaces and ended by '\n' so the data starts at a multiple
/// of 64 bytes. An unsupported descr or data whose size does not match the shape is an
/// invalid-input error.
Expected<std::vector<std::byte>> serialize_npy(const NpyArray& array);
/// Writes serialize_npy(array) to `path`; I/O errors name the path.
Status write_npy(const std::string& path, const NpyArray& array);

}  // namespace inferno
