// Reference kernels for elementwise ops (unary, cast, and broadcasting binary ops) and the
// exact integer helpers.
//
// Floating-point results are computed in double and rounded once, on store, to the output
// dtype. Integer and bool results are computed exactly in int64 with two's-complement
// wrap-around, as PyTorch's integer kernels behave (double would lose exactness beyond 2^53).
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>

#include "reference/kernels.h"
#include "support/check.h"

namespace inferno::reference::detail {

using ir::DType;
using ir::OpKind;

int64_t load_int(const Tensor& t, int64_t i) {
  INFERNO_CHECK(i >= 0 && i < t.numel(), "tensor index out of range");
  const std::byte* p = t.data.data() + i * ir::dtype_size(t.type.dtype);
  switch (t.type.dtype) {
    case DType::kI64: {
      int64_t v;
      std::memcpy(&v, p, sizeof v);
      return v;
    }
    case DType::kI32: {
      int32_t v;
      std::memcpy(&v, p, sizeof v);
      return v;
    }
    case DType::kBool:
      return p[0] != std::byte{0} ? 1 : 0;
    default:
      INFERNO_CHECK(false, "load_int on " + std::string(ir::dtype_name(t.type.dtype)));
      return 0;
  }
}

void store_int(Tensor& t, int64_t i, int64_t v) {
  INFERNO_CHECK(i >= 0 && i < t.numel(), "tensor index out of range");
  std::byte* p = t.data.data() + i * ir::dtype_size(t.type.dtype);
  switch (t.type.dtype) {
    case DType::kI64:
      std::memcpy(p, &v, sizeof v);
      return;
    case DType::kI32: {
      const auto w = static_cast<int32_t>(v);
      std::memcpy(p, &w, sizeof w);
      return;
    }  // wraps
    case DType::kBool:
      p[0] = v != 0 ? std::byte{1} : std::byte{0};
      return;
    default:
      INFERNO_CHECK(false, "store_int on " + std::string(ir::dtype_name(t.type.dtype)));
  }
}

int64_t float_to_int(double v, DType dtype) {
  INFERNO_CHECK(ir::is_integral(dtype), "float_to_int to a non-integer dtype");
  if (std::isnan(v)) return 0;
  const bool i32 = dtype == DType::kI32;
  const double lo = i32 ? -2147483648.0 : -9223372036854775808.0;  // exact powers of two
  const double hi = i32 ? 2147483648.0 : 9223372036854775808.0;
  if (v <= lo)
    return i32 ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int64_t>::min();
  if (v >= hi)
    return i32 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(v);  // truncates toward zero
}

void store(Tensor& t, int64_t i, double v) {
  if (ir::is_integral(t.type.dtype)) {
    store_int(t, i, float_to_int(v, t.type.dtype));
  } else {
    t.set(i, v);  // rounds to f32/f16/bf16; bool is v != 0
  }
}

namespace {

double float_unary(OpKind op, bool gelu_tanh, double x) {
  switch (op) {
    case OpKind::kRelu:
      return x < 0 ? 0.0 : x;  // NaN stays NaN
    case OpKind::kGelu:
      if (gelu_tanh)
        return 0.5 * x *
               (1.0 + std::tanh(std::sqrt(2.0 / std::numbers::pi) * (x + 0.044715 * x * x * x)));
      return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    case OpKind::kSilu:
      return x / (1.0 + std::exp(-x));
    case OpKind::kSigmoid:
      return 1.0 / (1.0 + std::exp(-x));
    case OpKind::kTanh:
      return std::tanh(x);
    case OpKind::kExp:
      return std::exp(x);
    case OpKind::kAbs:
      return std::fabs(x);
    case OpKind::kNeg:
      return -x;
    default:
      INFERNO_CHECK(false, "not a float unary op: " + std::string(ir::op_name(op)));
      return 0;
  }
}

int64_t int_unary(OpKind op, int64_t x) {
  const int64_t negated = static_cast<int64_t>(0 - static_cast<uint64_t>(x));  // wraps at INT64_MIN
  switch (op) {
    case OpKind::kRelu:
      return x < 0 ? 0 : x;
    case OpKind::kAbs:
      return x < 0 ? negated : x;
    case OpKind::kNeg:
      return negated;
    default:
      INFERNO_CHECK(false, std::string(ir::op_name(op)) + " has no integer form");
      return 0;
  }
}

double float_binary(OpKind op, double a, double b) {
  switch (op) {
    case OpKind::kAdd:
      return a + b;
    case OpKind::kSub:
      return a - b;
    case OpKind::kMul:
      return a * b;
    case OpKind::kDiv:
      return a / b;
    default:
      INFERNO_CHECK(false, "not a binary op: " + std::string(ir::op_name(op)));
      return 0;
  }
}

int64_t int_binary(OpKind op, int64_t a, int64_t b) {
  const auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (op) {
    case OpKind::kAdd:
      return static_cast<int64_t>(ua + ub);
    case OpKind::kSub:
      return static_cast<int64_t>(ua - ub);
    case OpKind::kMul:
      return static_cast<int64_t>(ua * ub);
    default:
      INFERNO_CHECK(false, std::string(ir::op_name(op)) + " has no integer form");
      return 0;  // div is true division
  }
}

/// cast: float -> float rounds once; float -> int truncates toward zero (NaN -> 0, out of range
/// saturates, as CUDA's conversions do; PyTorch leaves those undefined); int -> int wraps;
/// anything -> bool is x != 0.
Tensor cast(const Tensor& x, const TensorType& out) {
  Tensor y = Tensor::zeros(out);
  const bool exact =
      !ir::is_floating(x.type.dtype) && !ir::is_floating(out.dtype);  // int/bool -> int/bool
  for (int64_t i = 0; i < y.numel(); ++i) {
    if (exact) {
      store_int(y, i, load_int(x, i));
    } else {
      store(y, i, x.get(i));
    }
  }
  return y;
}

}  // namespace

Tensor unary(OpKind op, const ir::Attributes& attrs, const Tensor& x, const TensorType& out) {
  if (op == OpKind::kCast) return cast(x, out);
  INFERNO_CHECK(x.type == out, std::string(ir::op_name(op)) + " changes the type");
  Tensor y = Tensor::zeros(out);
  if (!ir::is_floating(x.type.dtype)) {  // relu, abs, neg on integers and bool
    for (int64_t i = 0; i < y.numel(); ++i) store_int(y, i, int_unary(op, load_int(x, i)));
    return y;
  }
  const bool gelu_tanh = op == OpKind::kGelu && attrs.get_string("approximate") == "tanh";
  for (int64_t i = 0; i < y.numel(); ++i) store(y, i, float_unary(op, gelu_tanh, x.get(i)));
  return y;
}

Tensor binary(OpKind op, const Tensor& a, const Tensor& b, const TensorType& out) {
  const StridedIndex ia = broadcast_index(a.type.shape, out.shape),
                     ib = broadcast_index(b.type.shape, out.shape);
  Tensor y = Tensor::zeros(out);
  if (ir::is_floating(out.dtype)) {
    for (int64_t i = 0; i < y.numel(); ++i)
      store(y, i, float_binary(op, a.get(ia(i)), b.get(ib(i))));
    return y;
  }
  // An integer or bool result means both operands are integers or bool (promotion).
  INFERNO_CHECK(!ir::is_floating(a.type.dtype) && !ir::is_floating(b.type.dtype),
                "integer result from a float operand");
  for (int64_t i = 0; i < y.numel(); ++i)
    store_int(y, i, int_binary(op, load_int(a, ia(i)), load_int(b, ib(i))));
  return y;
}

Tensor elementwise(OpKind op, const ir::Attributes& attrs, const std::vector<const Tensor*>& in,
                   const TensorType& out) {
  INFERNO_CHECK(ir::op_has_trait(op, ir::kElementwise) && (in.size() == 1 || in.size() == 2),
                "not an elementwise op application: " + std::string(ir::op_name(op)));
  return in.size() == 1 ? unary(op, attrs, *in[0], out) : binary(op, *in[0], *in[1], out);
}

}  // namespace inferno::reference::detail
