#include "ir/tensor_type.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "support/check.h"
#include "support/half.h"

namespace inferno::ir {

int64_t shape_numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::optional<int64_t> checked_numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return std::nullopt;
    if (d != 0 && n > kMaxTensorElements / d) return std::nullopt;
    n *= d;
  }
  return n;
}

std::string shape_to_string(const Shape& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ",";
    out += std::to_string(shape[i]);
  }
  return out + "]";
}

std::vector<int64_t> contiguous_strides(const Shape& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * shape[i + 1];
  }
  return strides;
}

int64_t TensorType::numel() const { return shape_numel(shape); }

std::string TensorType::to_string() const {
  return std::string(dtype_name(dtype)) + shape_to_string(shape);
}

Tensor Tensor::zeros(TensorType type) {
  Tensor t;
  t.data.assign(static_cast<size_t>(type.size_bytes()), std::byte{0});
  t.type = std::move(type);
  return t;
}

namespace {
template <typename T>
T load(const std::vector<std::byte>& data, int64_t i) {
  T v;
  std::memcpy(&v, data.data() + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}
/// double -> integer as a saturating conversion (NaN -> 0): a plain cast is undefined outside
/// the target's range.
template <typename T>
T saturate_to(double v) {
  if (std::isnan(v)) return 0;
  if (v <= static_cast<double>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(v);
}

template <typename T>
void store(std::vector<std::byte>& data, int64_t i, T v) {
  std::memcpy(data.data() + i * static_cast<int64_t>(sizeof(T)), &v, sizeof(T));
}
}  // namespace

double Tensor::get(int64_t i) const {
  INFERNO_CHECK(i >= 0 && i < numel(), "tensor index out of range");
  switch (type.dtype) {
    case DType::kF32:
      return load<float>(data, i);
    case DType::kF16:
      return half_bits_to_float(load<uint16_t>(data, i));
    case DType::kBF16:
      return bf16_bits_to_float(load<uint16_t>(data, i));
    case DType::kF64:
      return load<double>(data, i);
    case DType::kI64:
      return static_cast<double>(load<int64_t>(data, i));
    case DType::kI32:
      return load<int32_t>(data, i);
    case DType::kBool:
      return load<uint8_t>(data, i) != 0 ? 1.0 : 0.0;
  }
  return 0;
}

void Tensor::set(int64_t i, double v) {
  INFERNO_CHECK(i >= 0 && i < numel(), "tensor index out of range");
  switch (type.dtype) {
    case DType::kF32:
      store<float>(data, i, static_cast<float>(v));
      return;
    case DType::kF16:
      store<uint16_t>(data, i, float_to_half_bits(static_cast<float>(v)));
      return;
    case DType::kBF16:
      store<uint16_t>(data, i, float_to_bf16_bits(static_cast<float>(v)));
      return;
    case DType::kF64:
      store<double>(data, i, v);
      return;
    case DType::kI64:
      store<int64_t>(data, i, saturate_to<int64_t>(v));
      return;
    case DType::kI32:
      store<int32_t>(data, i, saturate_to<int32_t>(v));
      return;
    case DType::kBool:
      store<uint8_t>(data, i, v != 0.0 ? 1 : 0);
      return;
  }
}

}  // namespace inferno::ir
