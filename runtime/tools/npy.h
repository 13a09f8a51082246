// A minimal, strict reader and writer of NumPy .npy files for inferno-run: format version 1.0, C
// order, little-endian '<f4' '<f2' '<f8' '<i8' '<i4' and '|b1'. Every size read from a file is
// checked against the file's length before it is used. (The compiler has its own, fuller reader;
// this one keeps the runtime tools free of the compiler's libraries.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace inferno::npy {

/// One array: NumPy type string ("<f4"), shape, and the raw little-endian bytes in C order.
struct Array {
  std::string descr;
  std::vector<int64_t> shape;
  std::vector<std::byte> data;
};

/// A malformed or unsupported file (io() false), or one that cannot be read or written (io() true).
class Error : public std::runtime_error {
 public:
  Error(const std::string& message, bool io) : std::runtime_error(message), io_(io) {}
  bool io() const { return io_; }

 private:
  bool io_;
};

/// Bytes per element of a supported descr; 0 for any other.
int64_t itemsize(std::string_view descr);
/// Product of the dimensions; throws Error on a negative dimension or overflow.
int64_t element_count(const std::vector<int64_t>& shape);

/// Parses an .npy image. `what` names its source in messages.
Array parse(const std::vector<std::byte>& bytes, const std::string& what);
/// The .npy image of `array` (version 1.0, header padded so data starts at a multiple of 64).
std::vector<std::byte> serialize(const Array& array);

/// Reads and parses `path`.
Array read(const std::string& path);
/// Writes serialize(array) to `path`.
void write(const std::string& path, const Array& array);

}  // namespace inferno::npy
