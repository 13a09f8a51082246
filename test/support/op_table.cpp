#include "support/op_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>

#include "support/catch.h"

namespace inferno::test {
namespace {

using ir::DType;
using ir::OpKind;
using R = OperandRole;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double nan_or_min(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? kNaN : std::min(a, b);
}
double nan_or_max(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? kNaN : std::max(a, b);
}
double truth(bool b) { return b ? 1.0 : 0.0; }
// Python's float floor division and modulo (CPython's float_divmod): through fmod, so that
// (a // b) * b + a % b stays a; a zero divisor gives a / b and NaN.
double py_mod(double a, double b) {
  double mod = std::fmod(a, b);
  if (mod != 0 && (b < 0) != (mod < 0)) mod += b;
  return mod;
}
double py_floor_div(double a, double b) {
  if (b == 0) return a / b;
  const double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0)) div -= 1;
  if (div == 0) return std::copysign(0.0, a / b);
  double floored = std::floor(div);
  if (div - floored > 0.5) floored += 1;
  return floored;
}
// Integer division of exact integers held in doubles: PyTorch raises on a zero divisor, infernoc
// gives 0 (kernels/scalar_ops.h).
int64_t as_int(double v) { return static_cast<int64_t>(v); }
double int_trunc_div(const double* x) {
  return x[1] == 0 ? 0.0 : static_cast<double>(as_int(x[0]) / as_int(x[1]));
}
double int_floor_div(const double* x) {
  if (x[1] == 0) return 0.0;
  const int64_t q = as_int(x[0]) / as_int(x[1]), r = as_int(x[0]) % as_int(x[1]);
  return static_cast<double>(r != 0 && (r < 0) != (x[1] < 0) ? q - 1 : q);
}
double int_remainder(const double* x) {
  if (x[1] == 0) return 0.0;
  const int64_t r = as_int(x[0]) % as_int(x[1]);
  return static_cast<double>(r != 0 && (r < 0) != (x[1] < 0) ? r + as_int(x[1]) : r);
}

// The definitions, from the PyTorch documentation of each op (torch.nn.functional for the
// activations). Where the documented formula is a limit that PyTorch's kernels do not take at
// ±inf (x * 0 with x infinite), the kernels' NaN is the definition, and the row says so.
const std::vector<OpRow>& rows() {
  static const std::vector<OpRow> table = {
      // relu: max(0, x); NaN propagates (torch.relu(nan) is nan).
      {OpKind::kRelu,
       {R::kValue},
       [](const double* x) { return std::isnan(x[0]) ? x[0] : std::max(x[0], 0.0); },
       {}},
      // gelu (approximate='none'): x * Phi(x), Phi the standard normal CDF = erfc(-x/sqrt2)/2.
      // gelu(-inf) is -inf * 0 = NaN in PyTorch too (x * 0.5 * (1 + erf(x / sqrt2))).
      {OpKind::kGelu,
       {R::kValue},
       [](const double* x) { return x[0] * 0.5 * std::erfc(-x[0] / std::numbers::sqrt2); },
       {}},
      // gelu (approximate='tanh'): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
      {OpKind::kGeluTanh,
       {R::kValue},
       [](const double* x) {
         const double k = std::sqrt(2.0 / std::numbers::pi);
         return 0.5 * x[0] * (1.0 + std::tanh(k * (x[0] + 0.044715 * std::pow(x[0], 3))));
       },
       {}},
      // silu: x * sigmoid(x); silu(-inf) is -inf * 0 = NaN, as PyTorch's x / (1 + exp(-x)).
      {OpKind::kSilu, {R::kValue}, [](const double* x) { return x[0] * sigmoid(x[0]); }, {}},
      {OpKind::kSigmoid, {R::kValue}, [](const double* x) { return sigmoid(x[0]); }, {}},
      // hardswish: 0 for x <= -3, x for x >= 3, x (x + 3) / 6 between. PyTorch's kernels compute
      // x * min(max(x + 3, 0), 6) / 6, which is -inf * 0 = NaN at -inf: so is the definition.
      {OpKind::kHardswish,
       {R::kValue},
       [](const double* x) {
         const double v = x[0];
         if (v == -kInf) return kNaN;
         return v <= -3 ? 0.0 : v >= 3 ? v : v * (v + 3) / 6;
       },
       {}},
      // hardsigmoid: 0 for x <= -3, 1 for x >= 3, x / 6 + 1/2 between.
      {OpKind::kHardsigmoid,
       {R::kValue},
       [](const double* x) {
         const double v = x[0];
         return v <= -3 ? 0.0 : v >= 3 ? 1.0 : v / 6 + 0.5;
       },
       {}},
      // relu6: min(max(0, x), 6) (torch.nn.functional.relu6 = hardtanh(x, 0, 6)); NaN propagates.
      {OpKind::kRelu6,
       {R::kValue},
       [](const double* x) { return std::isnan(x[0]) ? x[0] : std::min(std::max(x[0], 0.0), 6.0); },
       {}},
      // leaky_relu(x, negative_slope): x for x > 0, negative_slope * x otherwise.
      {OpKind::kLeakyRelu,
       {R::kValue, R::kParameter},
       [](const double* x) { return x[0] > 0 ? x[0] : x[1] * x[0]; },
       {{0.01}, {0.2}, {-1.5}, {0.0}}},
      // elu(x, alpha, scale, input_scale) (ATen's elu, of which selu is a case): scale * x for
      // x > 0, scale * alpha * (exp(input_scale * x) - 1) otherwise.
      {OpKind::kElu,
       {R::kValue, R::kParameter, R::kParameter, R::kParameter},
       [](const double* x) {
         return x[0] > 0 ? x[2] * x[0] : x[2] * x[1] * std::expm1(x[3] * x[0]);
       },
       {{1.0, 1.0, 1.0}, {1.6732632423543772, 1.0507009873554805, 1.0}, {0.5, 2.0, 1.5}}},
      // softplus(x, beta, threshold): log(1 + exp(beta x)) / beta, reverting to x where
      // beta x > threshold.
      {OpKind::kSoftplus,
       {R::kValue, R::kParameter, R::kParameter},
       [](const double* x) {
         return x[0] * x[1] > x[2] ? x[0] : std::log1p(std::exp(x[1] * x[0])) / x[1];
       },
       {{1.0, 20.0}, {2.0, 5.0}, {0.5, 1.0}}},
      // clamp(x, min, max) = min(max(x, min), max): NaN in x stays NaN, and with min > max every
      // element is max (documented). Bounds of ±inf are clamp with one bound.
      {OpKind::kClamp,
       {R::kValue, R::kParameter, R::kParameter},
       [](const double* x) {
         return std::isnan(x[0]) ? x[0] : std::min(std::max(x[0], x[1]), x[2]);
       },
       {{-1.0, 1.0}, {0.0, 6.0}, {-0.5, -0.5}, {2.5, -2.5}, {-kInf, 1.0}, {0.0, kInf}}},
      {OpKind::kTanh, {R::kValue}, [](const double* x) { return std::tanh(x[0]); }, {}},
      {OpKind::kExp, {R::kValue}, [](const double* x) { return std::exp(x[0]); }, {}},
      {OpKind::kLog, {R::kValue}, [](const double* x) { return std::log(x[0]); }, {}},
      {OpKind::kLog1p, {R::kValue}, [](const double* x) { return std::log1p(x[0]); }, {}},
      {OpKind::kExpm1, {R::kValue}, [](const double* x) { return std::expm1(x[0]); }, {}},
      {OpKind::kLog2, {R::kValue}, [](const double* x) { return std::log2(x[0]); }, {}},
      {OpKind::kLog10, {R::kValue}, [](const double* x) { return std::log10(x[0]); }, {}},
      {OpKind::kExp2, {R::kValue}, [](const double* x) { return std::exp2(x[0]); }, {}},
      {OpKind::kTan, {R::kValue}, [](const double* x) { return std::tan(x[0]); }, {}},
      {OpKind::kAsin, {R::kValue}, [](const double* x) { return std::asin(x[0]); }, {}},
      {OpKind::kAcos, {R::kValue}, [](const double* x) { return std::acos(x[0]); }, {}},
      {OpKind::kAtan, {R::kValue}, [](const double* x) { return std::atan(x[0]); }, {}},
      {OpKind::kSinh, {R::kValue}, [](const double* x) { return std::sinh(x[0]); }, {}},
      {OpKind::kCosh, {R::kValue}, [](const double* x) { return std::cosh(x[0]); }, {}},
      {OpKind::kSqrt, {R::kValue}, [](const double* x) { return std::sqrt(x[0]); }, {}},
      // rsqrt: 1 / sqrt(x) (so rsqrt(-0) = -inf, not pow(-0, -0.5) = +inf).
      {OpKind::kRsqrt, {R::kValue}, [](const double* x) { return 1.0 / std::sqrt(x[0]); }, {}},
      {OpKind::kReciprocal, {R::kValue}, [](const double* x) { return 1.0 / x[0]; }, {}},
      {OpKind::kErf, {R::kValue}, [](const double* x) { return std::erf(x[0]); }, {}},
      {OpKind::kCos, {R::kValue}, [](const double* x) { return std::cos(x[0]); }, {}},
      {OpKind::kSin, {R::kValue}, [](const double* x) { return std::sin(x[0]); }, {}},
      {OpKind::kAbs, {R::kValue}, [](const double* x) { return std::fabs(x[0]); }, {}},
      {OpKind::kNeg, {R::kValue}, [](const double* x) { return -x[0]; }, {}},
      {OpKind::kFloor, {R::kValue}, [](const double* x) { return std::floor(x[0]); }, {}},
      {OpKind::kCeil, {R::kValue}, [](const double* x) { return std::ceil(x[0]); }, {}},
      // round: ties to even (torch.round), as nearbyint in the default rounding mode.
      {OpKind::kRound, {R::kValue}, [](const double* x) { return std::nearbyint(x[0]); }, {}},
      {OpKind::kTrunc, {R::kValue}, [](const double* x) { return std::trunc(x[0]); }, {}},
      // sign: -1, 0 or 1; 0 for NaN (PyTorch's (0 < x) - (x < 0)).
      {OpKind::kSign,
       {R::kValue},
       [](const double* x) { return truth(0 < x[0]) - truth(x[0] < 0); },
       {}},
      // cast: the value itself; the conversion is round_result's, to the `dtype` attribute.
      {OpKind::kCast, {R::kValue}, [](const double* x) { return x[0]; }, {}},
      {OpKind::kAdd, {R::kValue, R::kValue}, [](const double* x) { return x[0] + x[1]; }, {}},
      {OpKind::kSub, {R::kValue, R::kValue}, [](const double* x) { return x[0] - x[1]; }, {}},
      {OpKind::kMul, {R::kValue, R::kValue}, [](const double* x) { return x[0] * x[1]; }, {}},
      // div: true division (integers give a floating result).
      {OpKind::kDiv, {R::kValue, R::kValue}, [](const double* x) { return x[0] / x[1]; }, {}},
      // div(rounding_mode="trunc"): the quotient rounded toward zero; floor_divide /
      // div(rounding_mode="floor") and remainder: Python's // and % (the remainder has the
      // divisor's sign).
      {OpKind::kDivTrunc,
       {R::kValue, R::kValue},
       [](const double* x) { return std::trunc(x[0] / x[1]); },
       {},
       int_trunc_div},
      {OpKind::kDivFloor,
       {R::kValue, R::kValue},
       [](const double* x) { return py_floor_div(x[0], x[1]); },
       {},
       int_floor_div},
      {OpKind::kRemainder,
       {R::kValue, R::kValue},
       [](const double* x) { return py_mod(x[0], x[1]); },
       {},
       int_remainder},
      // pow: C's pow (pow(x, 0) = 1 for NaN x, pow(1, y) = 1 for NaN y, ...).
      {OpKind::kPow,
       {R::kValue, R::kValue},
       [](const double* x) { return std::pow(x[0], x[1]); },
       {}},
      // minimum/maximum: NaN if either is NaN (unlike fmin/fmax).
      {OpKind::kMinimum,
       {R::kValue, R::kValue},
       [](const double* x) { return nan_or_min(x[0], x[1]); },
       {}},
      {OpKind::kMaximum,
       {R::kValue, R::kValue},
       [](const double* x) { return nan_or_max(x[0], x[1]); },
       {}},
      // comparisons: IEEE (every comparison with NaN is false but ne).
      {OpKind::kEq,
       {R::kValue, R::kValue},
       [](const double* x) { return truth(x[0] == x[1]); },
       {}},
      {OpKind::kNe,
       {R::kValue, R::kValue},
       [](const double* x) { return truth(x[0] != x[1]); },
       {}},
      {OpKind::kLt, {R::kValue, R::kValue}, [](const double* x) { return truth(x[0] < x[1]); }, {}},
      {OpKind::kLe,
       {R::kValue, R::kValue},
       [](const double* x) { return truth(x[0] <= x[1]); },
       {}},
      {OpKind::kGt, {R::kValue, R::kValue}, [](const double* x) { return truth(x[0] > x[1]); }, {}},
      {OpKind::kGe,
       {R::kValue, R::kValue},
       [](const double* x) { return truth(x[0] >= x[1]); },
       {}},
      // isnan, isinf (never true for integers and bool)
      {OpKind::kIsNan, {R::kValue}, [](const double* x) { return truth(std::isnan(x[0])); }, {}},
      {OpKind::kIsInf, {R::kValue}, [](const double* x) { return truth(std::isinf(x[0])); }, {}},
      // bit operations on two's-complement integers
      {OpKind::kBitwiseAnd,
       {R::kValue, R::kValue},
       [](const double* x) { return static_cast<double>(as_int(x[0]) & as_int(x[1])); },
       {}},
      {OpKind::kBitwiseOr,
       {R::kValue, R::kValue},
       [](const double* x) { return static_cast<double>(as_int(x[0]) | as_int(x[1])); },
       {}},
      {OpKind::kBitwiseXor,
       {R::kValue, R::kValue},
       [](const double* x) { return static_cast<double>(as_int(x[0]) ^ as_int(x[1])); },
       {}},
      {OpKind::kBitwiseNot,
       {R::kValue},
       [](const double* x) { return static_cast<double>(~as_int(x[0])); },
       {}},
      // logical ops: an operand is true when non-zero (NaN is true, -0 false).
      {OpKind::kLogicalNot, {R::kValue}, [](const double* x) { return truth(!(x[0] != 0)); }, {}},
      {OpKind::kLogicalAnd,
       {R::kValue, R::kValue},
       [](const double* x) { return truth(x[0] != 0 && x[1] != 0); },
       {}},
      {OpKind::kLogicalOr,
       {R::kValue, R::kValue},
       [](const double* x) { return truth(x[0] != 0 || x[1] != 0); },
       {}},
      // where(condition, input, other): input where condition is true, else other.
      {OpKind::kWhere,
       {R::kCondition, R::kValue, R::kValue},
       [](const double* x) { return x[0] != 0 ? x[1] : x[2]; },
       {}},
  };
  return table;
}

struct FloatFormat {
  int precision;  // significand bits, the implicit one included
  int min_exponent, max_exponent;
};

FloatFormat format_of(DType dtype) {
  switch (dtype) {
    case DType::kF16:
      return {11, -14, 15};
    case DType::kBF16:
      return {8, -126, 127};
    case DType::kF32:
      return {24, -126, 127};
    default:
      return {53, -1022, 1023};
  }
}

// A small deterministic generator (the tests must not depend on the standard library's).
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 1) {}
  double unit() {  // [0, 1)
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state_ >> 11) / static_cast<double>(1ull << 53);
  }

 private:
  uint64_t state_;
};

}  // namespace

const std::vector<OpRow>& op_table() { return rows(); }

const OpRow* find_row(OpKind op) {
  for (const OpRow& row : rows()) {
    if (row.op == op) return &row;
  }
  return nullptr;
}

std::vector<double> edge_values(DType dtype) {
  switch (dtype) {
    case DType::kBool:
      return {0, 1};
    case DType::kI64:
    case DType::kI32: {
      const double big = 67108865;  // 2^26 + 1: its square (2^52 + 2^27 + 1) is exact in double
      return {0, 1, -1, 2, -2, 46341, -46341, big, -big};
    }
    default:
      break;
  }
  const FloatFormat f = format_of(dtype);
  const double denorm_min = std::ldexp(1.0, f.min_exponent - f.precision + 1);
  const double normal_min = std::ldexp(1.0, f.min_exponent);
  const double denorm_max = normal_min - denorm_min;
  const double max = std::ldexp(2.0 - std::ldexp(1.0, 1 - f.precision), f.max_exponent);
  return {0.0,         -0.0,       kInf,       -kInf,       kNaN,  1.0,   -1.0,   0.5,
          -2.5,        3.0,        -3.0,       20.0,        -20.0, 100.0, -100.0, denorm_min,
          -denorm_min, denorm_max, normal_min, -normal_min, max,   -max};
}

std::vector<double> table_values(DType dtype, int random_count, uint64_t seed) {
  std::vector<double> values = edge_values(dtype);
  Random rng(seed);
  for (int i = 0; i < random_count; ++i) {
    double v;
    if (dtype == DType::kBool) {
      v = rng.unit() < 0.5 ? 0 : 1;
    } else if (ir::is_integral(dtype)) {
      v = std::floor(rng.unit() * 2001) - 1000;
    } else if (i % 2 == 0) {
      v = rng.unit() * 8 - 4;
    } else {  // magnitudes from 2^-12 to 2^12, either sign
      v = std::ldexp(1.0 + rng.unit(), static_cast<int>(std::floor(rng.unit() * 25)) - 12) *
          (rng.unit() < 0.5 ? -1 : 1);
    }
    values.push_back(round_result(v, dtype, false));
  }
  return values;
}

double round_to_float_dtype(double v, DType dtype) {
  REQUIRE(ir::is_floating(dtype));
  if (dtype == DType::kF64 || !std::isfinite(v) || v == 0) return v;
  const FloatFormat f = format_of(dtype);
  // The quantum: the value of the last significand bit at v's exponent (fixed below the normals).
  const int quantum = std::max(std::ilogb(v), f.min_exponent) - (f.precision - 1);
  const double r = std::ldexp(std::nearbyint(std::ldexp(v, -quantum)), quantum);  // ties to even
  const double max = std::ldexp(2.0 - std::ldexp(1.0, 1 - f.precision), f.max_exponent);
  return std::fabs(r) > max ? std::copysign(kInf, v) : r;
}

double round_result(double v, DType dtype, bool exact_integer) {
  if (dtype == DType::kBool) return v != 0 ? 1 : 0;
  if (ir::is_floating(dtype)) return round_to_float_dtype(v, dtype);
  const bool i32 = dtype == DType::kI32;
  if (exact_integer) {
    INFO("integer result " << v);
    REQUIRE(v == std::trunc(v));
    REQUIRE(std::fabs(v) <= 9007199254740992.0);  // 2^53: the table keeps integers exact
    const auto n = static_cast<int64_t>(v);
    return i32 ? static_cast<double>(static_cast<int32_t>(n)) : static_cast<double>(n);  // wraps
  }
  if (std::isnan(v)) return 0;
  const double limit = i32 ? 2147483648.0 : 9223372036854775808.0;  // 2^31, 2^63
  if (v <= -limit) return -limit;
  if (v >= limit) return i32 ? limit - 1 : limit;  // int64's max reads back as 2^63 in double
  return std::trunc(v);
}

ir::Tensor tensor_of(const ir::TensorType& type, const std::vector<double>& values) {
  REQUIRE(!values.empty());
  ir::Tensor t = ir::Tensor::zeros(type);
  for (int64_t i = 0; i < t.numel(); ++i) {
    const double v = values[static_cast<size_t>(i) % values.size()];
    t.set(i, v);
    const double back = t.get(i);
    INFO("value " << v << " in " << ir::dtype_name(type.dtype) << " reads back as " << back);
    REQUIRE((back == v || (std::isnan(back) && std::isnan(v))));
  }
  return t;
}

std::string mismatch(double got, double expected, Tolerance tolerance) {
  bool ok;
  if (std::isnan(got) || std::isnan(expected)) {
    ok = std::isnan(got) && std::isnan(expected);
  } else if (std::isinf(got) || std::isinf(expected)) {
    ok = got == expected;
  } else {
    ok = std::fabs(got - expected) <= tolerance.atol + tolerance.rtol * std::fabs(expected);
  }
  if (ok) return {};
  char text[160];
  std::snprintf(text, sizeof text, "got %.17g, expected %.17g (rtol %g, atol %g)", got, expected,
                tolerance.rtol, tolerance.atol);
  return text;
}

}  // namespace inferno::test
