#include "codegen/elementwise_table.h"

#include <bit>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "codegen/source_writer.h"
#include "support/check.h"

namespace inferno::codegen {
namespace {

using ir::DType;
using ir::OpKind;

bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/// An identifier or an unsigned literal ("x0", "0.5f") needs no parentheses where it replaces
/// an operand; anything else ("-1.0f", "static_cast<double>(s2)") gets them.
bool is_atom(const std::string& s) {
  if (s.empty()) return false;
  for (const char c : s) {
    if (!is_ident_char(c) && c != '.') return false;
  }
  return true;
}

template <typename T>
T read_scalar(const ir::Tensor& t) {
  T v;
  std::memcpy(&v, t.data.data(), sizeof v);
  return v;
}

}  // namespace

std::string_view compute_type_name(ComputeType compute) {
  switch (compute) {
    case ComputeType::kFloat:
      return "float";
    case ComputeType::kDouble:
      return "double";
    case ComputeType::kInt:
      return "inferno::ew::Int";
  }
  return "?";
}

ComputeType choose_compute_type(const std::vector<DType>& inputs, DType output) {
  bool any_float_input = false, any_int_input = false, any_f64 = output == DType::kF64;
  for (const DType d : inputs) {
    any_float_input |= ir::is_floating(d);
    any_int_input |= ir::is_integral(d);  // bool loads exactly as 0 or 1 in any type
    any_f64 |= d == DType::kF64;
  }
  if (!ir::is_floating(output) && !any_float_input) return ComputeType::kInt;
  if (any_f64 || any_int_input) return ComputeType::kDouble;
  return ComputeType::kFloat;
}

ComputeType value_type(DType dtype) {
  if (dtype == DType::kF64) return ComputeType::kDouble;
  return ir::is_floating(dtype) ? ComputeType::kFloat : ComputeType::kInt;
}

std::string_view storage_type(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return "float";
    case DType::kF16:
      return "__half";
    case DType::kBF16:
      return "__nv_bfloat16";
    case DType::kF64:
      return "double";
    case DType::kI64:
      return "int64_t";
    case DType::kI32:
      return "int32_t";
    case DType::kBool:
      return "uint8_t";
  }
  return "?";
}

std::string_view dtype_tag(DType dtype) { return ir::dtype_name(dtype); }

std::optional<std::string> elementwise_expression(OpKind op,
                                                  const std::vector<std::string>& operands,
                                                  ComputeType compute) {
  if (compute == ComputeType::kInt && !ir::has_integer_form(ir::op_dtype_class(op))) {
    return std::nullopt;
  }
  if (compute != ComputeType::kInt && !ir::has_floating_form(ir::op_dtype_class(op))) {
    return std::nullopt;
  }
  // One scan: identifiers x<i> become operands, T the compute type, ew:: the full namespace.
  const std::string_view expr = ir::op_expression(op);
  std::string out;
  for (size_t i = 0; i < expr.size();) {
    if (!is_ident_char(expr[i])) {
      out += expr[i++];
      continue;
    }
    size_t end = i;
    while (end < expr.size() && is_ident_char(expr[end])) ++end;
    const std::string_view word = expr.substr(i, end - i);
    if (word.size() > 1 && word[0] == 'x' && word.find_first_not_of("0123456789", 1) == word.npos) {
      const size_t k = std::stoul(std::string(word.substr(1)));
      INFERNO_CHECK(k < operands.size(), std::string(ir::op_name(op)) + " reads a missing operand");
      out += is_atom(operands[k]) ? operands[k] : "(" + operands[k] + ")";
    } else if (word == "T") {
      out += compute_type_name(compute);
    } else if (word == "ew") {
      out += "inferno::ew";
    } else {
      out += word;
    }
    i = end;
  }
  return out;
}

std::string load_value(DType stored, const std::string& element) {
  switch (stored) {
    case DType::kF32:
    case DType::kF64:
      return element;
    case DType::kF16:
      return "__half2float(" + element + ")";
    case DType::kBF16:
      return "__bfloat162float(" + element + ")";
    case DType::kI64:
      return "inferno::ew::Int(" + element + ")";
    case DType::kI32:
      return "inferno::ew::Int(static_cast<int64_t>(" + element + "))";
    case DType::kBool:
      return "inferno::ew::Int(" + element + " != 0)";
  }
  return "?";
}

std::string convert_value(ComputeType from, ComputeType to, const std::string& value) {
  if (from == to) return value;
  INFERNO_CHECK(from != ComputeType::kDouble || to != ComputeType::kFloat,
                "a double value in a float step (f64 operands compute in double)");
  INFERNO_CHECK(to != ComputeType::kInt, "a floating-point value in an integer step");
  if (from == ComputeType::kFloat) return "static_cast<double>(" + value + ")";
  // From Int: through double, as the reference converts integers.
  const std::string as_double = "static_cast<double>(" + value + ".v)";
  return to == ComputeType::kDouble ? as_double : "static_cast<float>(" + as_double + ")";
}

std::string round_to(DType dtype, ComputeType compute, const std::string& value) {
  if (compute == ComputeType::kInt) {
    // Comparisons and logic give bool, which Int converts from.
    const std::string as_int = "inferno::ew::Int(" + value + ")";
    switch (dtype) {
      case DType::kI64:
        return as_int;
      case DType::kI32:  // wraps, as the reference stores
        return "inferno::ew::Int(static_cast<int64_t>(static_cast<int32_t>(" + as_int + ".v)))";
      case DType::kBool:
        return "inferno::ew::Int(" + as_int + ".v != 0)";
      default:
        INFERNO_CHECK(false, "an integer step with a floating-point result");
        return "?";
    }
  }
  const bool f = compute == ComputeType::kFloat;
  // f16 and bf16 round from float; a double rounds to float first, as the reference does.
  const std::string as_float = f ? value : "static_cast<float>(" + value + ")";
  switch (dtype) {
    case DType::kF32:
      return as_float;
    case DType::kF64:
      return f ? "static_cast<double>(" + value + ")" : value;
    case DType::kF16:
      return "__half2float(__float2half_rn(" + as_float + "))";
    case DType::kBF16:
      return "__bfloat162float(__float2bfloat16_rn(" + as_float + "))";
    case DType::kI64:
      return "inferno::ew::Int(inferno::kernels::cast<int64_t>(" + value + "))";
    case DType::kI32:
      return "inferno::ew::Int(static_cast<int64_t>(inferno::kernels::cast<int32_t>(" + value +
             ")))";
    case DType::kBool:
      return "inferno::ew::Int(" + value + (f ? " != 0.0f)" : " != 0.0)");
  }
  return "?";
}

std::string store_value(DType dtype, const std::string& value) {
  switch (dtype) {
    case DType::kF32:
    case DType::kF64:
      return value;
    case DType::kF16:
      return "__float2half_rn(" + value + ")";  // exact: the value is rounded already
    case DType::kBF16:
      return "__float2bfloat16_rn(" + value + ")";
    case DType::kI64:
      return value + ".v";
    case DType::kI32:
      return "static_cast<int32_t>(" + value + ".v)";
    case DType::kBool:
      return "static_cast<uint8_t>(" + value + ".v != 0)";
  }
  return "?";
}

std::string load_expression(DType stored, ComputeType compute, const std::string& element) {
  switch (compute) {
    case ComputeType::kInt:
      INFERNO_CHECK(!ir::is_floating(stored), "an integer kernel reads a floating-point value");
      return load_value(stored, element);
    case ComputeType::kFloat:
    case ComputeType::kDouble: {
      const bool f = compute == ComputeType::kFloat;
      const std::string type(compute_type_name(compute));
      switch (stored) {
        case DType::kF32:
          return f ? element : "static_cast<double>(" + element + ")";
        case DType::kF64:
          return f ? "static_cast<float>(" + element + ")" : element;
        case DType::kF16:
          return f ? "__half2float(" + element + ")"
                   : "static_cast<double>(__half2float(" + element + "))";
        case DType::kBF16:
          return f ? "__bfloat162float(" + element + ")"
                   : "static_cast<double>(__bfloat162float(" + element + "))";
        case DType::kI64:
        case DType::kI32:  // as the reference: through double, rounded once more to float if need
                           // be
          return f ? "static_cast<float>(static_cast<double>(" + element + "))"
                   : "static_cast<double>(" + element + ")";
        case DType::kBool:
          return "(" + element + " != 0 ? " + (f ? "1.0f : 0.0f)" : "1.0 : 0.0)");
      }
    }
  }
  return "?";
}

std::string store_expression(DType stored, ComputeType compute, const std::string& value) {
  if (compute == ComputeType::kInt) {
    switch (stored) {
      case DType::kI64:
      case DType::kI32:  // wraps
      case DType::kBool:
        return store_value(stored, "(" + value + ")");
      default:
        INFERNO_CHECK(false, "an integer kernel writes a floating-point value");
        return "?";
    }
  }
  const bool f = compute == ComputeType::kFloat;
  // f16 and bf16 round from float; a double rounds to float first, as the reference does.
  const std::string as_float = f ? value : "static_cast<float>(" + value + ")";
  switch (stored) {
    case DType::kF32:
      return as_float;
    case DType::kF64:
      return f ? "static_cast<double>(" + value + ")" : value;
    case DType::kF16:
      return "__float2half_rn(" + as_float + ")";
    case DType::kBF16:
      return "__float2bfloat16_rn(" + as_float + ")";
    case DType::kI64:
      return (f ? "__float2ll_rz(" : "__double2ll_rz(") + value + ")";
    case DType::kI32:
      return (f ? "__float2int_rz(" : "__double2int_rz(") + value + ")";
    case DType::kBool:
      return "static_cast<uint8_t>(" + value + (f ? " != 0.0f)" : " != 0.0)");
  }
  return "?";
}

std::string scalar_literal(const ir::Tensor& scalar, ComputeType compute) {
  INFERNO_CHECK(scalar.numel() == 1, "scalar_literal of a tensor with several elements");
  if (compute == ComputeType::kInt) {
    const auto wrapped = [](const std::string& literal) {
      return "inferno::ew::Int(" + literal + ")";
    };
    switch (scalar.type.dtype) {
      case DType::kI64:
        return wrapped(int_literal(read_scalar<int64_t>(scalar)));
      case DType::kI32:
        return wrapped(int_literal(read_scalar<int32_t>(scalar)));
      case DType::kBool:
        return wrapped(int_literal(read_scalar<uint8_t>(scalar) != 0 ? 1 : 0));
      default:
        INFERNO_CHECK(false, "an integer kernel reads a floating-point scalar");
        return "?";
    }
  }
  double value = scalar.get(0);  // exact for every floating dtype; integers round as a load does
  if (scalar.type.dtype == DType::kBool) value = read_scalar<uint8_t>(scalar) != 0 ? 1.0 : 0.0;
  // Zero through its bits (as float_literal writes inf and NaN): nvcc diagnoses a literal zero
  // divisor (#39-D, division by zero), an error with -Werror, though x / 0 is IEEE's inf or NaN
  // here, as in the reference. The sign of -0 is kept.
  if (value == 0) {
    char bits[48];
    if (compute == ComputeType::kFloat) {
      std::snprintf(bits, sizeof bits, "__uint_as_float(0x%08" PRIx32 "u)",
                    std::bit_cast<uint32_t>(static_cast<float>(value)));
    } else {
      std::snprintf(bits, sizeof bits, "__longlong_as_double(0x%016" PRIx64 "ll)",
                    std::bit_cast<uint64_t>(value));
    }
    return bits;
  }
  return compute == ComputeType::kFloat ? float_literal(static_cast<float>(value))
                                        : double_literal(value);
}

}  // namespace inferno::codegen
