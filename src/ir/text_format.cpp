#include "ir/text_format.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "ir/fused_expr.h"
#include "support/check.h"

namespace inferno::ir {

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.';
}

std::string quote_string(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (char c : s) {
    const auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (byte < 0x20 || byte >= 0x7f) {
          out += "\\x";
          out += kHex[byte >> 4];
          out += kHex[byte & 0xf];
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

namespace {

std::string format_nan(uint64_t bits, DType dtype) {
  const FloatLayout layout = float_layout(dtype);
  if ((bits & ~layout.sign) == layout.canonical_nan()) return (bits & layout.sign) ? "-nan" : "nan";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "nan(0x%llx)", static_cast<unsigned long long>(bits));
  return buf;
}

/// "%.9g" / "%.17g" of a finite value (to_chars with a precision is printf's %.*g, only faster);
/// inf and nan are spelled by the caller.
std::string format_finite(double v, int precision) {
  char buf[40];
  const auto result =
      std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::general, precision);
  return std::string(buf, result.ptr);
}

uint64_t double_bits(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  return bits;
}

struct AttrValueFormatter {
  std::string operator()(int64_t v) const { return std::to_string(v); }
  std::string operator()(double v) const { return format_attr_float(v); }
  std::string operator()(bool v) const { return v ? "true" : "false"; }
  std::string operator()(const std::string& v) const { return quote_string(v); }
  std::string operator()(DType v) const { return std::string(dtype_name(v)); }
  std::string operator()(const FusedBody& v) const {
    return quote_string(fused_expr_to_string(v.expr()));
  }
  std::string operator()(const IntList& v) const {
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + std::to_string(v[i]);
    return out + "]";
  }
};

}  // namespace

std::string format_attr_float(double v) {
  if (std::isnan(v)) return format_nan(double_bits(v), DType::kF64);
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[40];
  const auto result = std::to_chars(buf, buf + sizeof(buf), v);  // shortest round-trip form
  std::string out(buf, result.ptr);
  if (out.find_first_of(".e") == std::string::npos) out += ".0";
  return out;
}

std::string format_attr_value(const AttrValue& value) {
  return std::visit(AttrValueFormatter{}, value);
}

std::string format_attributes(const Attributes& attrs) {
  if (attrs.empty()) return {};
  std::string out = "{";
  for (size_t i = 0; i < attrs.entries().size(); ++i) {
    const auto& [name, value] = attrs.entries()[i];
    out += (i ? ", " : "") + name + "=" + format_attr_value(value);
  }
  return out + "}";
}

std::string format_loc(const SourceLocation& loc) {
  if (loc.empty()) return {};
  std::string out = " loc(" + quote_string(loc.file);
  if (loc.line != 0) out += ":" + std::to_string(loc.line);
  return out + ")";
}

FloatLayout float_layout(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return {32, 1ull << 31, 0xffull << 23, 1ull << 22};
    case DType::kF64:
      return {64, 1ull << 63, 0x7ffull << 52, 1ull << 51};
    case DType::kF16:
      return {16, 1ull << 15, 0x1full << 10, 1ull << 9};
    case DType::kBF16:
      return {16, 1ull << 15, 0xffull << 7, 1ull << 6};
    default:
      INFERNO_CHECK(false, "not a floating dtype");
      return {};
  }
}

uint64_t element_bits(const Tensor& tensor, int64_t i) {
  INFERNO_CHECK(i >= 0 && i < tensor.numel(), "tensor index out of range");
  const auto size = static_cast<size_t>(dtype_size(tensor.type.dtype));
  uint64_t bits = 0;  // little-endian host: the low bytes hold the element
  std::memcpy(&bits, tensor.data.data() + static_cast<size_t>(i) * size, size);
  return bits;
}

std::string format_element(const Tensor& tensor, int64_t i) {
  const DType dtype = tensor.type.dtype;
  switch (dtype) {
    case DType::kBool:
      return tensor.get(i) != 0 ? "true" : "false";
    case DType::kI32:
      return std::to_string(static_cast<int32_t>(element_bits(tensor, i)));
    case DType::kI64:
      return std::to_string(static_cast<int64_t>(element_bits(tensor, i)));
    default:
      break;
  }
  const uint64_t bits = element_bits(tensor, i);
  if (float_layout(dtype).is_nan(bits)) return format_nan(bits, dtype);
  const double v = tensor.get(i);
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  return format_finite(v, dtype == DType::kF64 ? 17 : 9);
}

}  // namespace inferno::ir
