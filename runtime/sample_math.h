// The arithmetic of choosing the next token, shared by the GPU kernel (sample_kernel.cu) and the
// host reference the tests compare it with (test/runtime/sampling_reference.cpp), so that both
// choose the same token from the same logits, bit for bit:
//
// - A token's weight, exp((x - max) / temperature), is an integer in units of 2^-40 computed with
//   single IEEE operations and explicit fmaf only (nothing a compiler may contract differently),
//   so sums of weights are exact and independent of the order a GPU adds them in.
// - top-k and top-p are thresholds on an order-preserving 32-bit key of the logit: the largest key
//   whose tokens at or above it reach a target (k tokens; top_p of the remaining weight). The
//   search takes 4 bits of the key per pass, so the GPU needs no sort and no atomics.
// - The random number is Philox4x32-10 of (step) keyed by (seed): a pure function, no state.
//
// The C names of the math functions (floorf, fmaf, ceil), which CUDA also declares for the device;
// under nvcc the functions are __host__ __device__.
#pragma once

#include <math.h>
#include <string.h>

#include <cstdint>

#include "kernels/host_device.h"

namespace inferno::sampling {

/// The kernel's block size. It also fixes the order in which the inverse CDF walks the tokens
/// (thread-major: thread t's tokens t, t + kThreads, ... then thread t + 1's), which the host
/// reference repeats.
constexpr int kThreads = 1024;
/// exp(0) = 1 is 2^kFixedBits; weights below 2^-kFixedBits of the largest are 0.
constexpr int kFixedBits = 40;
constexpr uint64_t kFixedOne = uint64_t{1} << kFixedBits;

/// Order-preserving key of a logit: a larger number has a larger key; every number has a key of
/// at least 1, NaN has key 0 (never chosen).
INFERNO_HD uint32_t order_key(float x) {
  if (x != x) return 0;
  uint32_t bits = 0;
  memcpy(&bits, &x, sizeof bits);
  return (bits & 0x80000000u) != 0 ? ~bits : (bits | 0x80000000u);
}

/// 2^z in units of 2^-40, for z <= 0 (0 below -40 and for NaN).
INFERNO_HD uint64_t fixed_exp2(float z) {
  if (!(z > -40.0f)) return 0;
  if (z >= 0.0f) return kFixedOne;
  const float n = floorf(z);  // -40..-1
  const float f = z - n;      // [0, 1): exact
  // 2^f = e^(f ln 2), Taylor to degree 7 (relative error below 2e-6), Horner with explicit fmaf.
  float p = 1.5252734e-05f;
  p = fmaf(p, f, 1.5403530e-04f);
  p = fmaf(p, f, 1.3333558e-03f);
  p = fmaf(p, f, 9.6181291e-03f);
  p = fmaf(p, f, 5.5504109e-02f);
  p = fmaf(p, f, 2.4022651e-01f);
  p = fmaf(p, f, 6.9314718e-01f);
  p = fmaf(p, f, 1.0f);                                         // [1, 2]
  const auto mantissa = static_cast<uint64_t>(p * 8388608.0f);  // p * 2^23: exact scaling
  const int shift = kFixedBits - 23 + static_cast<int>(n);      // -23..16
  return shift >= 0 ? mantissa << shift : mantissa >> -shift;
}

/// A token's unnormalized probability exp((x - max) / temperature) in units of 2^-40, where
/// `scale` is log2(e) / temperature and `max` the largest logit. 0 for NaN.
INFERNO_HD uint64_t token_weight(float x, float max, float scale) {
  if (x != x) return 0;
  if (x >= max) return kFixedOne;  // the largest itself (also when it is +inf)
  const float d = x - max;
  const float z = d * scale;
  return fixed_exp2(z);
}

/// The weight top-p keeps: ceil(top_p * total), at least 1 and at most total.
INFERNO_HD uint64_t top_p_target(float top_p, uint64_t total) {
  const double wanted = ceil(static_cast<double>(top_p) * static_cast<double>(total));
  if (!(wanted >= 1.0)) return total == 0 ? 0 : 1;
  if (wanted >= static_cast<double>(total)) return total;
  return static_cast<uint64_t>(wanted);
}

/// One digit of a threshold search: `buckets` are the weights of the 16 values of this digit
/// among the keys still in range, `above` the weight of the keys above the range. Returns the
/// largest digit whose keys bring the weight from the top to at least `target`, and adds the
/// weight of the larger digits to `above`.
INFERNO_HD int pick_digit(const uint64_t* buckets, uint64_t target, uint64_t& above) {
  for (int d = 15; d > 0; --d) {
    if (above + buckets[d] >= target) return d;
    above += buckets[d];
  }
  return 0;
}

#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
/// The largest key τ such that the weight of the keys >= τ reaches `target`, four bits a pass:
/// `sum_buckets(prefix, mask, shift, buckets)` fills buckets[d] with the weight of the keys k
/// (among those the caller counts) with (k & mask) == prefix and digit (k >> shift) & 15 == d.
template <typename SumBuckets>
INFERNO_HD uint32_t threshold_search(uint64_t target, SumBuckets&& sum_buckets) {
  uint32_t prefix = 0;
  uint32_t mask = 0;
  uint64_t above = 0;
  for (int shift = 28; shift >= 0; shift -= 4) {
    uint64_t buckets[16];
    sum_buckets(prefix, mask, shift, buckets);
    const int digit = pick_digit(buckets, target, above);
    prefix |= static_cast<uint32_t>(digit) << shift;
    mask |= 15u << shift;
  }
  return prefix;
}

/// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011).
INFERNO_HD void philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]) {
  uint32_t c0 = counter[0], c1 = counter[1], c2 = counter[2], c3 = counter[3];
  uint32_t k0 = key[0], k1 = key[1];
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    const uint64_t p0 = uint64_t{0xD2511F53u} * c0;
    const uint64_t p1 = uint64_t{0xCD9E8D57u} * c2;
    const auto hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
    const auto hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

/// 64 random bits for generation step `step` under `seed`.
INFERNO_HD uint64_t step_random(uint64_t seed, uint64_t step) {
  const uint32_t counter[4] = {static_cast<uint32_t>(step), static_cast<uint32_t>(step >> 32), 0,
                               0};
  const uint32_t key[2] = {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
  uint32_t out[4];
  philox4x32_10(counter, key, out);
  return (uint64_t{out[0]} << 32) | out[1];
}

/// floor(a * b / 2^64): maps 64 random bits onto [0, b) without modulo bias worth counting.
INFERNO_HD uint64_t mul_high(uint64_t a, uint64_t b) {
  const uint64_t a_lo = a & 0xffffffffu, a_hi = a >> 32;
  const uint64_t b_lo = b & 0xffffffffu, b_hi = b >> 32;
  const uint64_t p0 = a_lo * b_lo, p1 = a_lo * b_hi, p2 = a_hi * b_lo, p3 = a_hi * b_hi;
  const uint64_t mid = (p0 >> 32) + (p1 & 0xffffffffu) + (p2 & 0xffffffffu);
  return p3 + (p1 >> 32) + (p2 >> 32) + (mid >> 32);
}

}  // namespace inferno::sampling
