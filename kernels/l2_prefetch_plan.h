// kernels/l2_prefetch_plan.h: what a kernel asks L2 for (l2_prefetch.cuh says why): the ranges,
// their caps from the environment, and each warp's share. Plain C++, so that the host code of a
// generated model and the unit tests compile it too.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <initializer_list>

#include "host_device.h"

namespace inferno::kernels {

/// The most weights one prefetch covers.
inline constexpr int kL2PrefetchRanges = 4;

/// `bytes` from `base` (16-byte aligned, a multiple of 16 bytes).
struct L2Range {
  const void* base = nullptr;
  long long bytes = 0;
};

/// What a kernel asks L2 for: its ranges one after another (unused ones empty).
struct L2Prefetch {
  L2Range ranges[kL2PrefetchRanges] = {};
};

/// The default cap (l2_prefetch.cuh says why).
constexpr long long kL2PrefetchDefaultBytes = 4ll << 20;

/// The part of a prefetch of `total` 16-byte units that warp `warp` of `warps` asks for:
/// [first, first + count) of the units, the ranges concatenated (count 0: none).
INFERNO_HD void l2_prefetch_share(long long total, long long warp,
                                                  long long warps, long long& first,
                                                  long long& count) {
  const long long share = (total + warps - 1) / warps;
  first = warp * share;
  count = first >= total ? 0 : (total - first < share ? total - first : share);
}

namespace detail {

/// A cap in bytes from the environment variable `name` (megabytes), else `fallback`.
inline long long l2_prefetch_cap(const char* name, long long fallback) {
  const char* setting = std::getenv(name);
  if (setting == nullptr || *setting == '\0') return fallback;
  char* end = nullptr;
  const long long mb = std::strtoll(setting, &end, 10);
  if (*end != '\0' || mb < 0) return fallback;  // not a count: the default
  return mb > 2048 ? 2048ll << 20 : mb << 20;
}

}  // namespace detail

/// The ranges of `weights` (the next GEMVs' weights in run order) within `cap` bytes: from the
/// first on, each a multiple of 16 bytes and at most 2^31 (one bulk prefetch's size is 32 bits).
inline L2Prefetch l2_prefetch_within(long long cap, std::initializer_list<L2Range> weights) {
  L2Prefetch out;
  long long left = cap;
  int used = 0;
  for (const L2Range& range : weights) {
    if (used == kL2PrefetchRanges || left < 16) break;
    long long bytes = range.bytes < left ? range.bytes : left;
    bytes = (bytes < (1ll << 31) ? bytes : 1ll << 31) / 16 * 16;
    if (bytes == 0) continue;
    out.ranges[used++] = {range.base, bytes};
    left -= bytes;
  }
  return out;
}

/// What a GEMV asks for of `weights`: l2_prefetch_within the cap, kL2PrefetchDefaultBytes or
/// INFERNO_L2_PREFETCH_MB megabytes from the environment (0 turns prefetching off, for
/// comparisons; read once per process). Host code, evaluated per launch (a graph capture keeps
/// the value).
inline L2Prefetch l2_prefetch(std::initializer_list<L2Range> weights) {
  static const long long cap =
      detail::l2_prefetch_cap("INFERNO_L2_PREFETCH_MB", kL2PrefetchDefaultBytes);
  return l2_prefetch_within(cap, weights);
}

}  // namespace inferno::kernels
