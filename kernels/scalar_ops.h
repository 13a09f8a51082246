// kernels/scalar_ops.h: the vocabulary of the elementwise expressions in src/ir/ops.def, for host
// and device. The reference interpreter (g++) compiles each expression with T = double or
// ew::Int; generated CUDA kernels paste it with T = float, double or ew::Int. Plain C++17 with
// no CUDA headers, so that both compilers read the same definitions.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/host_device.h"

namespace inferno::ew {

/// The compute type of integer and bool results: int64 whose +, - and * wrap around (two's
/// complement, as PyTorch's integer kernels), spelled through uint64 because signed overflow is
/// undefined in C++. Bit operations act on the two's-complement bits. `/` does not exist: integer
/// division is true division (a float result); the rounding divisions are named (div_floor, ...).
struct Int {
  int64_t v = 0;
  constexpr Int() = default;
  /// From any integer or bool (literals as in T(0), comparison results, loads).
  template <typename I, typename = std::enable_if_t<std::is_integral_v<I>>>
  INFERNO_HD constexpr Int(I x) : v(static_cast<int64_t>(x)) {}  // NOLINT: implicit on purpose
};
INFERNO_HD constexpr Int wrap(uint64_t x) { return Int(static_cast<int64_t>(x)); }
INFERNO_HD constexpr Int operator+(Int a, Int b) {
  return wrap(static_cast<uint64_t>(a.v) + static_cast<uint64_t>(b.v));
}
INFERNO_HD constexpr Int operator-(Int a, Int b) {
  return wrap(static_cast<uint64_t>(a.v) - static_cast<uint64_t>(b.v));
}
INFERNO_HD constexpr Int operator*(Int a, Int b) {
  return wrap(static_cast<uint64_t>(a.v) * static_cast<uint64_t>(b.v));
}
INFERNO_HD constexpr Int operator-(Int a) { return wrap(0ull - static_cast<uint64_t>(a.v)); }
INFERNO_HD constexpr Int operator&(Int a, Int b) { return Int(a.v & b.v); }
INFERNO_HD constexpr Int operator|(Int a, Int b) { return Int(a.v | b.v); }
INFERNO_HD constexpr Int operator^(Int a, Int b) { return Int(a.v ^ b.v); }
INFERNO_HD constexpr Int operator~(Int a) { return Int(~a.v); }
INFERNO_HD constexpr bool operator==(Int a, Int b) { return a.v == b.v; }
INFERNO_HD constexpr bool operator!=(Int a, Int b) { return a.v != b.v; }
INFERNO_HD constexpr bool operator<(Int a, Int b) { return a.v < b.v; }
INFERNO_HD constexpr bool operator<=(Int a, Int b) { return a.v <= b.v; }
INFERNO_HD constexpr bool operator>(Int a, Int b) { return a.v > b.v; }
INFERNO_HD constexpr bool operator>=(Int a, Int b) { return a.v >= b.v; }

/// min/max as the expressions use them: the first operand when the comparison is false, so
/// min(NaN, y) is NaN (clamp and hardswish keep NaN as PyTorch does).
template <typename T>
INFERNO_HD constexpr T min(T a, T b) {
  return b < a ? b : a;
}
template <typename T>
INFERNO_HD constexpr T max(T a, T b) {
  return b > a ? b : a;
}

INFERNO_HD Int abs(Int x) { return x < Int(0) ? -x : x; }
// Integers are integral already: rounding leaves them.
INFERNO_HD constexpr Int floor(Int x) { return x; }
INFERNO_HD constexpr Int ceil(Int x) { return x; }
INFERNO_HD constexpr Int rint(Int x) { return x; }
INFERNO_HD constexpr Int trunc(Int x) { return x; }
/// -1, 0 or 1; 0 for NaN (both comparisons false), as PyTorch's sign.
template <typename T>
INFERNO_HD constexpr T sign(T x) {
  return T(static_cast<int>(T(0) < x) - static_cast<int>(x < T(0)));
}

// Float and double math: CUDA's device functions on the GPU, <cmath> on the host.
#if defined(__CUDA_ARCH__)
#define INFERNO_EW_MATH1(name, f32, f64)            \
  INFERNO_HD float name(float x) { return f32(x); } \
  INFERNO_HD double name(double x) { return f64(x); }
#define INFERNO_EW_MATH2(name, f32, f64)                        \
  INFERNO_HD float name(float x, float y) { return f32(x, y); } \
  INFERNO_HD double name(double x, double y) { return f64(x, y); }
#else
#define INFERNO_EW_MATH1(name, f32, f64)                  \
  INFERNO_HD float name(float x) { return std::name(x); } \
  INFERNO_HD double name(double x) { return std::name(x); }
#define INFERNO_EW_MATH2(name, f32, f64)                              \
  INFERNO_HD float name(float x, float y) { return std::name(x, y); } \
  INFERNO_HD double name(double x, double y) { return std::name(x, y); }
#endif
INFERNO_EW_MATH1(abs, fabsf, fabs)
INFERNO_EW_MATH1(exp, expf, ::exp)
INFERNO_EW_MATH1(expm1, expm1f, ::expm1)
INFERNO_EW_MATH1(log, logf, ::log)
INFERNO_EW_MATH1(log1p, log1pf, ::log1p)
INFERNO_EW_MATH1(log2, log2f, ::log2)
INFERNO_EW_MATH1(log10, log10f, ::log10)
INFERNO_EW_MATH1(exp2, exp2f, ::exp2)
INFERNO_EW_MATH1(tan, tanf, ::tan)
INFERNO_EW_MATH1(asin, asinf, ::asin)
INFERNO_EW_MATH1(acos, acosf, ::acos)
INFERNO_EW_MATH1(atan, atanf, ::atan)
INFERNO_EW_MATH1(sinh, sinhf, ::sinh)
INFERNO_EW_MATH1(cosh, coshf, ::cosh)
INFERNO_EW_MATH1(sqrt, sqrtf, ::sqrt)
INFERNO_EW_MATH1(erf, erff, ::erf)
INFERNO_EW_MATH1(tanh, tanhf, ::tanh)
INFERNO_EW_MATH1(sin, sinf, ::sin)
INFERNO_EW_MATH1(cos, cosf, ::cos)
INFERNO_EW_MATH1(floor, floorf, ::floor)
INFERNO_EW_MATH1(ceil, ceilf, ::ceil)
INFERNO_EW_MATH1(rint, rintf, ::rint)  // to nearest, ties to even (the default rounding mode)
INFERNO_EW_MATH1(trunc, truncf, ::trunc)
INFERNO_EW_MATH2(pow, powf, ::pow)
INFERNO_EW_MATH2(fmod, fmodf, ::fmod)
INFERNO_EW_MATH2(copysign, copysignf, ::copysign)
#undef INFERNO_EW_MATH1
#undef INFERNO_EW_MATH2

// Rounding divisions and the remainder, as PyTorch's kernels compute them (c10's
// div_floor_floating and div_floor_integer, BinaryOpsKernel's remainder): the floating forms go
// through fmod so that floor_divide(a, b) * b + remainder(a, b) stays a. Integers divide exactly;
// PyTorch raises on a zero divisor, which a kernel cannot: it gives 0 here. x / -1 is negation
// (INT64_MIN wraps, where the hardware would trap).
template <typename F>
INFERNO_HD F div_trunc(F a, F b) {
  return trunc(a / b);
}
template <typename F>
INFERNO_HD F div_floor(F a, F b) {
  if (b == F(0)) return a / b;
  const F mod = fmod(a, b);
  F div = (a - mod) / b;
  if (mod != F(0) && (b < F(0)) != (mod < F(0))) div -= F(1);
  if (div == F(0)) return copysign(F(0), a / b);
  F rounded = floor(div);
  if (div - rounded > F(0.5)) rounded += F(1);
  return rounded;
}
template <typename F>
INFERNO_HD F remainder(F a, F b) {
  F mod = fmod(a, b);
  if (mod != F(0) && (b < F(0)) != (mod < F(0))) mod += b;
  return mod;
}
INFERNO_HD Int div_trunc(Int a, Int b) {
  if (b.v == 0) return Int(0);
  if (b.v == -1) return -a;
  return Int(a.v / b.v);
}
INFERNO_HD Int div_floor(Int a, Int b) {
  if (b.v == 0) return Int(0);
  if (b.v == -1) return -a;
  const int64_t q = a.v / b.v, r = a.v % b.v;
  return Int(r != 0 && (r < 0) != (b.v < 0) ? q - 1 : q);
}
INFERNO_HD Int remainder(Int a, Int b) {
  if (b.v == 0 || b.v == -1) return Int(0);
  const int64_t r = a.v % b.v;
  return Int(r != 0 && (r < 0) != (b.v < 0) ? r + b.v : r);
}

}  // namespace inferno::ew
