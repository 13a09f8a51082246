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
T load(const std::byte* bytes, int64_t i) {
  T v;
  std::memcpy(&v, bytes + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
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

template <typename T, typename Convert>
void convert(const std::byte* bytes, int64_t count, double* out, Convert to_double) {
  for (int64_t i = 0; i < count; ++i) out[i] = to_double(load<T>(bytes, i));
}
}  // namespace

void Tensor::read_doubles(int64_t offset, int64_t count, double* out) const {
  INFERNO_CHECK(offset >= 0 && count >= 0 && offset <= numel() - count, "tensor read out of range");
  const std::byte* bytes = data.data() + offset * static_cast<int64_t>(dtype_size(type.dtype));
  switch (type.dtype) {
    case DType::kF32:
      return convert<float>(bytes, count, out, [](float v) { return static_cast<double>(v); });
    case DType::kF16:
      return convert<uint16_t>(
          bytes, count, out, [](uint16_t v) { return static_cast<double>(half_bits_to_float(v)); });
    case DType::kBF16:
      return convert<uint16_t>(
          bytes, count, out, [](uint16_t v) { return static_cast<double>(bf16_bits_to_float(v)); });
    case DType::kF64:
      return convert<double>(bytes, count, out, [](double v) { return v; });
    case DType::kI64:
      return convert<int64_t>(bytes, count, out, [](int64_t v) { return static_cast<double>(v); });
    case DType::kI32:
      return convert<int32_t>(bytes, count, out, [](int32_t v) { return static_cast<double>(v); });
    case DType::kBool:
      return convert<uint8_t>(bytes, count, out, [](uint8_t v) { return v != 0 ? 1.0 : 0.0; });
  }
}

double Tensor::get(int64_t i) const {
  double v = 0;
  read_doubles(i, 1, &v);
  return v;
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
