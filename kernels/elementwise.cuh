// kernels/elementwise.cuh: what generated elementwise kernels include. The op expressions of
// src/ir/ops.def, pasted into the kernels, use the vocabulary of scalar_ops.h (inferno::ew,
// shared with the CPU reference interpreter); this header adds cast<To>(x), which converts
// between float, double, __half, __nv_bfloat16, int64_t, int32_t and bool exactly as the
// reference does (the kernels' float -> integer conversions).
#pragma once

#include "common.cuh"
#include "scalar_ops.h"

namespace inferno::kernels {

namespace detail {

template <typename T>
inline constexpr bool is_cast_int_v = std::is_same_v<T, int64_t> || std::is_same_v<T, int32_t>;

/// Truncates toward zero; NaN gives 0 and values out of range saturate (the reference's
/// float_to_int). Both bounds are powers of two, exact in double.
template <typename To>
__host__ __device__ __forceinline__ To float_to_int(double v) {
  constexpr bool kI32 = std::is_same_v<To, int32_t>;
  constexpr double kLow = kI32 ? -2147483648.0 : -9223372036854775808.0;
  constexpr double kHigh = kI32 ? 2147483648.0 : 9223372036854775808.0;
  if (v != v) return 0;
  if (v <= kLow) return kI32 ? To(INT32_MIN) : To(INT64_MIN);
  if (v >= kHigh) return kI32 ? To(INT32_MAX) : To(INT64_MAX);
  return static_cast<To>(v);
}

}  // namespace detail

/// Converts between float, double, __half, __nv_bfloat16, int64_t, int32_t and bool as the
/// reference does: floating -> floating rounds to nearest (f64 -> f16/bf16 through float);
/// floating -> integer truncates toward zero, NaN -> 0, out of range saturates; integer ->
/// floating goes through double (so int64 -> f32 rounds as the reference's double path does);
/// integer -> integer wraps (two's complement); anything -> bool is x != 0 (NaN -> true).
template <typename To, typename From>
__host__ __device__ __forceinline__ To cast(From x) {
  constexpr bool kFromFloat = is_float_type_v<From>;
  constexpr bool kToFloat = is_float_type_v<To>;
  static_assert(kFromFloat || detail::is_cast_int_v<From> || std::is_same_v<From, bool>,
                "cast from an unsupported type");
  static_assert(kToFloat || detail::is_cast_int_v<To> || std::is_same_v<To, bool>,
                "cast to an unsupported type");
  if constexpr (std::is_same_v<To, From>) {
    return x;
  } else if constexpr (std::is_same_v<To, bool>) {
    if constexpr (kFromFloat) {
      return to_double(x) != 0.0;
    } else {
      return x != 0;
    }
  } else if constexpr (kFromFloat && kToFloat) {
    if constexpr (std::is_same_v<From, double>) {
      return from_double<To>(x);
    } else {
      return from_float<To>(to_float(x));  // exact in float, then one rounding
    }
  } else if constexpr (kFromFloat) {
    return detail::float_to_int<To>(to_double(x));
  } else if constexpr (kToFloat) {
    return from_double<To>(static_cast<double>(x));
  } else {
    return static_cast<To>(x);  // int64 -> int32 keeps the low 32 bits; bool -> 0 or 1
  }
}

}  // namespace inferno::kernels
