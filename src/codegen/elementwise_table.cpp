#include "codegen/elementwise_table.h"

#include <cstring>

#include "codegen/source_writer.h"
#include "support/check.h"

namespace inferno::codegen {
namespace {

using ir::DType;
using ir::OpKind;

// One row per op (and gelu variant): the expression in float, double and int64, over operands
// named a and b; nullptr where the op has no such form.
struct OpRow {
  OpKind op;
  std::string_view variant;  // gelu's approximate attribute; "" for every other op
  const char* in_float;
  const char* in_double;
  const char* in_int64;
};

// Integer ops wrap like two's complement (PyTorch's integer kernels); spelled through uint64_t
// because signed overflow is undefined in C++.
constexpr OpRow kOps[] = {
    {OpKind::kRelu, "", "inferno::kernels::op_relu(a)", "inferno::kernels::op_relu(a)",
     "(a < 0 ? 0 : a)"},
    {OpKind::kGelu, "none", "inferno::kernels::op_gelu_erf(a)", "inferno::kernels::op_gelu_erf(a)",
     nullptr},
    {OpKind::kGelu, "tanh", "inferno::kernels::op_gelu_tanh(a)",
     "inferno::kernels::op_gelu_tanh(a)", nullptr},
    {OpKind::kSilu, "", "inferno::kernels::op_silu(a)", "inferno::kernels::op_silu(a)", nullptr},
    {OpKind::kSigmoid, "", "inferno::kernels::op_sigmoid(a)", "inferno::kernels::op_sigmoid(a)",
     nullptr},
    {OpKind::kTanh, "", "tanhf(a)", "tanh(a)", nullptr},
    {OpKind::kExp, "", "expf(a)", "exp(a)", nullptr},
    {OpKind::kAbs, "", "fabsf(a)", "fabs(a)",
     "(a < 0 ? static_cast<int64_t>(0ull - static_cast<uint64_t>(a)) : a)"},
    {OpKind::kNeg, "", "-a", "-a", "static_cast<int64_t>(0ull - static_cast<uint64_t>(a))"},
    {OpKind::kCast, "", "a", "a", "a"},
    {OpKind::kAdd, "", "a + b", "a + b",
     "static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b))"},
    {OpKind::kSub, "", "a - b", "a - b",
     "static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b))"},
    {OpKind::kMul, "", "a * b", "a * b",
     "static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b))"},
    {OpKind::kDiv, "", "a / b", "a / b", nullptr},  // true division: the result is floating
};

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
    case ComputeType::kInt64:
      return "int64_t";
  }
  return "?";
}

ComputeType choose_compute_type(const std::vector<DType>& inputs, DType output) {
  bool any_float_input = false, any_int_input = false, any_f64 = output == DType::kF64;
  for (const DType d : inputs) {
    (ir::is_floating(d) ? any_float_input : any_int_input) = true;
    any_f64 |= d == DType::kF64;
  }
  if (!ir::is_floating(output) && !any_float_input) return ComputeType::kInt64;
  if (any_f64 || any_int_input) return ComputeType::kDouble;
  return ComputeType::kFloat;
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

std::optional<std::string> op_expression(OpKind op, const ir::Attributes& attrs,
                                         ComputeType compute) {
  const std::string_view variant =
      op == OpKind::kGelu ? std::string_view(attrs.get_string("approximate")) : "";
  for (const OpRow& row : kOps) {
    if (row.op != op || row.variant != variant) continue;
    const char* expr = compute == ComputeType::kFloat    ? row.in_float
                       : compute == ComputeType::kDouble ? row.in_double
                                                         : row.in_int64;
    if (expr == nullptr) return std::nullopt;
    return std::string(expr);
  }
  return std::nullopt;
}

std::string load_expression(DType stored, ComputeType compute, const std::string& element) {
  switch (compute) {
    case ComputeType::kInt64:
      INFERNO_CHECK(!ir::is_floating(stored), "an integer kernel reads a floating-point value");
      return stored == DType::kBool ? "static_cast<int64_t>(" + element + " != 0)"
                                    : "static_cast<int64_t>(" + element + ")";
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
  if (compute == ComputeType::kInt64) {
    switch (stored) {
      case DType::kI64:
        return value;
      case DType::kI32:
        return "static_cast<int32_t>(" + value + ")";  // wraps
      case DType::kBool:
        return "static_cast<uint8_t>(" + value + " != 0)";
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
  if (compute == ComputeType::kInt64) {
    switch (scalar.type.dtype) {
      case DType::kI64:
        return int_literal(read_scalar<int64_t>(scalar));
      case DType::kI32:
        return int_literal(read_scalar<int32_t>(scalar));
      case DType::kBool:
        return int_literal(read_scalar<uint8_t>(scalar) != 0 ? 1 : 0);
      default:
        INFERNO_CHECK(false, "an integer kernel reads a floating-point scalar");
        return "?";
    }
  }
  double value = scalar.get(0);  // exact for every floating dtype; integers round as a load does
  if (scalar.type.dtype == DType::kBool) value = read_scalar<uint8_t>(scalar) != 0 ? 1.0 : 0.0;
  return compute == ComputeType::kFloat ? float_literal(static_cast<float>(value))
                                        : double_literal(value);
}

}  // namespace inferno::codegen
