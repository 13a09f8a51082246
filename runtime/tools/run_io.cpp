#include "run_io.h"

#include <cstring>

namespace inferno::run {
namespace {

// The .npy descr that carries a dtype unchanged; "" for bf16 (carried as '<f4').
const char* descr_of(int32_t dtype) {
  switch (dtype) {
    case INFERNO_DTYPE_F32:
      return "<f4";
    case INFERNO_DTYPE_F16:
      return "<f2";
    case INFERNO_DTYPE_F64:
      return "<f8";
    case INFERNO_DTYPE_I64:
      return "<i8";
    case INFERNO_DTYPE_I32:
      return "<i4";
    case INFERNO_DTYPE_BOOL:
      return "|b1";
    default:
      return "";
  }
}

std::vector<int64_t> shape_of(const inferno_tensor_desc& desc) {
  return std::vector<int64_t>(desc.shape, desc.shape + desc.rank);
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += ',';
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

}  // namespace

uint16_t f32_to_bf16(float value) {
  uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((bits >> 16) | 0x40);  // quiet NaN
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

float bf16_to_f32(uint16_t value) {
  const uint32_t bits = static_cast<uint32_t>(value) << 16;
  float result = 0;
  std::memcpy(&result, &bits, sizeof result);
  return result;
}

uint16_t f32_to_f16(float value) {
  uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);  // quiet NaN
  // From 65520 (halfway between 65504, the largest finite f16, and 2^16) up: infinity.
  if (magnitude >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);
  uint32_t half = 0, rest = 0, halfway = 0;
  if (magnitude >= 0x38800000u) {  // a normal f16 (2^-14 and up): rebias, drop 13 bits
    half = ((magnitude >> 23) - 112u) << 10 | (magnitude & 0x7fffffu) >> 13;
    rest = magnitude & 0x1fffu;
    halfway = 0x1000u;
  } else if (magnitude > 0x33000000u) {  // a subnormal f16 (units of 2^-24) above 2^-25
    const uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126u - (magnitude >> 23);
    half = mantissa >> shift;
    rest = mantissa & ((1u << shift) - 1u);
    halfway = 1u << (shift - 1u);
  } else {
    return sign;  // 2^-25 and below round to zero (2^-25 itself is a tie, to even)
  }
  if (rest > halfway || (rest == halfway && (half & 1u) != 0)) ++half;  // carries into exponent
  return static_cast<uint16_t>(sign | half);
}

size_t byte_size(const inferno_tensor_desc& desc) {
  const int64_t item = desc.dtype == INFERNO_DTYPE_BF16 ? 2 : npy::itemsize(descr_of(desc.dtype));
  return static_cast<size_t>(npy::element_count(shape_of(desc)) * item);
}

std::vector<std::byte> input_bytes(const npy::Array& array, const inferno_tensor_desc& desc,
                                   const std::string& what) {
  const bool bf16 = desc.dtype == INFERNO_DTYPE_BF16;
  // An f16 input takes '<f2' as it is, or '<f4' rounded (the model's f32 data, for a model
  // compiled with --io-precision compute).
  const bool rounded_f16 = desc.dtype == INFERNO_DTYPE_F16 && array.descr == "<f4";
  const std::string wanted = bf16 ? "<f4" : descr_of(desc.dtype);
  if ((array.descr != wanted && !rounded_f16) || array.shape != shape_of(desc)) {
    const std::string also = desc.dtype == INFERNO_DTYPE_F16 ? " (or '<f4', rounded)" : "";
    throw npy::Error(what + ": input '" + desc.name + "' needs '" + wanted + "'" + also + " " +
                         shape_text(shape_of(desc)) + ", the file has '" + array.descr + "' " +
                         shape_text(array.shape),
                     false);
  }
  if (!bf16 && !rounded_f16) return array.data;
  const size_t n = array.data.size() / 4;
  std::vector<std::byte> out(n * 2);
  for (size_t i = 0; i < n; ++i) {
    float f = 0;
    std::memcpy(&f, array.data.data() + 4 * i, 4);
    const uint16_t h = bf16 ? f32_to_bf16(f) : f32_to_f16(f);
    std::memcpy(out.data() + 2 * i, &h, 2);
  }
  return out;
}

npy::Array output_array(const std::vector<std::byte>& bytes, const inferno_tensor_desc& desc) {
  npy::Array array{descr_of(desc.dtype), shape_of(desc), bytes};
  if (desc.dtype != INFERNO_DTYPE_BF16) return array;
  array.descr = "<f4";
  const size_t n = bytes.size() / 2;
  array.data.resize(n * 4);
  for (size_t i = 0; i < n; ++i) {
    uint16_t h = 0;
    std::memcpy(&h, bytes.data() + 2 * i, 2);
    const float f = bf16_to_f32(h);
    std::memcpy(array.data.data() + 4 * i, &f, 4);
  }
  return array;
}

}  // namespace inferno::run
