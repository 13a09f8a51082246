// TensorType (dtype + static shape) and Tensor (a host buffer of that type).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace inferno::ir {

using Shape = std::vector<int64_t>;

/// The type of every IR value: element type and a fully static, row-major contiguous shape.
struct TensorType {
  DType dtype = DType::kF32;
  Shape shape;

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  int64_t numel() const;
  int64_t size_bytes() const { return numel() * dtype_size(dtype); }
  /// "f32[4,16]"; a scalar (rank 0) prints as "f32[]".
  std::string to_string() const;
  bool operator==(const TensorType&) const = default;
};

/// Element count of a shape (1 for rank 0). The shape must be valid (see checked_numel).
int64_t shape_numel(const Shape& shape);
/// Largest element count and byte size infernoc accepts for one tensor (2^48), far above any
/// real model and far below where int64 arithmetic on sizes could overflow.
inline constexpr int64_t kMaxTensorElements = int64_t{1} << 48;
/// Element count of a shape from untrusted input: nullopt when a dim is negative or the count
/// exceeds kMaxTensorElements (checked before any multiplication can overflow).
std::optional<int64_t> checked_numel(const Shape& shape);
/// "[4,16]"
std::string shape_to_string(const Shape& shape);
/// Row-major strides, in elements.
std::vector<int64_t> contiguous_strides(const Shape& shape);

/// A dense, contiguous, little-endian host tensor: constants (weights) and interpreter values.
struct Tensor {
  TensorType type;
  std::vector<std::byte> data;  ///< exactly type.size_bytes() bytes

  /// A tensor of `type` filled with zero bytes.
  static Tensor zeros(TensorType type);
  /// Element `i` (flat, row-major) converted to double; any dtype.
  double get(int64_t i) const;
  /// Elements [offset, offset + count) converted as get() converts them, into out: the range
  /// checked once, then one loop per dtype (for the reference's inner loops).
  void read_doubles(int64_t offset, int64_t count, double* out) const;
  /// Stores `v` at flat index `i`, converting (and rounding, for f16/bf16) to the dtype.
  void set(int64_t i, double v);
  int64_t numel() const { return type.numel(); }
};

}  // namespace inferno::ir
