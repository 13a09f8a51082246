// Spelling of the IR text form's leaf pieces (strings, attribute values, constant elements,
// source locations), shared by the printer, the parser and the DOT export so that all three
// agree on one definition. The grammar is documented in docs/ir.md.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ir/attributes.h"
#include "ir/tensor_type.h"
#include "support/source_location.h"

namespace inferno::ir {

/// True for the characters a value name consists of: [A-Za-z0-9_.].
bool is_name_char(char c);

/// `s` as a double-quoted literal: escapes \\ \" \n \t, and any other byte < 0x20 or >= 0x7f
/// as \xHH, so the result is printable ASCII whatever `s` holds.
std::string quote_string(std::string_view s);

/// An attribute float, shortest round-trip form; always contains '.', 'e', "inf" or "nan" so it
/// cannot be read back as an int (1.0 prints as "1.0").
std::string format_attr_float(double v);
/// One attribute value: 3, 1.0, true, "tanh", [1, 0], f16.
std::string format_attr_value(const AttrValue& value);
/// "{dims=[1], keepdim=true}", or "" when there are no attributes.
std::string format_attributes(const Attributes& attrs);

/// ` loc("file.py":12)` (with its leading space), ` loc("file.py")` when the line is unknown, ""
/// for an empty location.
std::string format_loc(const SourceLocation& loc);

/// Element `i` (flat, row-major) of a constant, as written inside `constant [...]`: f32, f16 and
/// bf16 as "%.9g" of their float value, f64 as "%.17g", integers as integers, bool as true/false.
/// Infinities are "inf"/"-inf"; NaNs are "nan"/"-nan" for the canonical quiet NaN and
/// "nan(0xBITS)" (the element's raw bits) for any other NaN, so data round-trips bit for bit.
std::string format_element(const Tensor& tensor, int64_t i);

/// Bit layout of a floating-point dtype, for spelling NaNs exactly.
struct FloatLayout {
  int bits;           ///< storage width
  uint64_t sign;      ///< sign bit
  uint64_t exponent;  ///< all exponent bits
  uint64_t quiet;     ///< the quiet-NaN mantissa bit
  uint64_t all() const { return bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }
  bool is_nan(uint64_t b) const {
    return (b & exponent) == exponent && (b & ~sign & ~exponent & all()) != 0;
  }
  uint64_t canonical_nan() const { return exponent | quiet; }
};
/// Layout of f32, f64, f16 or bf16 (an internal error for other dtypes).
FloatLayout float_layout(DType dtype);

/// Raw little-endian bits of element `i` of `tensor`, zero-extended.
uint64_t element_bits(const Tensor& tensor, int64_t i);

}  // namespace inferno::ir
