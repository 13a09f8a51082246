// kernels/l2_prefetch.cuh: a kernel asks L2 to fetch the weight the next weight-streaming kernel
// of the run will read, so that its DRAM traffic overlaps the kernels in between.
//
// Why: in a decode step the GEMVs (kernels/gemv.cuh) stream each weight once, and most of them are
// too small to keep the DRAM busy on their own: a 1-10 MB weight spends much of its kernel's time
// on the launch, one DRAM latency and the tail, and the kernels between two GEMVs (attention, a
// rotary, a cache write) read kilobytes. The DRAM idles meanwhile. A GEMV that, at its start, asks
// L2 for the first bytes of the next GEMV's weight (cp.async.bulk.prefetch.L2, sm_90: a hint, no
// registers, no completion to wait for) lets those bytes arrive while this GEMV and the small
// kernels after it run; the next GEMV then finds them in L2. The bytes read from DRAM per step
// stay the same; the idle time shrinks.
//
// Only weights are prefetched (constants: the dependent-launch contract allows reading them before
// await_producers, and a prefetch changes no value anyway). How many bytes: the next weight's,
// capped at kL2PrefetchDefaultBytes, or at INFERNO_L2_PREFETCH_MB megabytes from the environment
// (0 turns prefetching off, for comparisons); read once per process. Why 1 MB (H100, fp16 decode
// steps, tools/bench/bench_llm.py --variants, ms/token, median of 3, 2026-12-07, one machine):
// GPT-2 small took 0.2519 without prefetching, 0.2398-0.2410 at 1 MB, 0.2454 at 2, 0.2579-0.2586 at
// 4 and 0.2607 at 8; a TinyLlama-shaped Llama 1.0355, 1.0321-1.0328, 1.0321, 1.0354-1.0358 and
// 1.0506. A cap above the small kernels' share of the gap competes for the DRAM with the GEMV
// running beside it (its weight is streamed right then) and with the next one's own loads. (An
// older library, before its GEMVs split long rows over several warps, measured best at 2-8 MB.)
//
// Measured and not kept (H100, 2026-12-07, docs/benchmarks.md): the decode step's attention kernel
// asking for the next GEMVs' weights as well (16 MB: the step 2.3% slower for TinyLlama, 4.5% for
// GPT-2; likely because the attention is bound by DRAM latency and that traffic is queued with
// its own loads), GEMVs asking once their own loads are done instead of at their start (1.6% and
// 4.7% slower), and a GEMV's 4 MB going on into the weights after the next one when that one is
// smaller (GPT-2 small 4.8% slower than no prefetch at all in that run).
#pragma once

#include <cstdint>
#include <cstdlib>

namespace inferno::kernels {

/// What a kernel prefetches for the next one: `bytes` from `base` (16-byte aligned); none when
/// bytes < 16.
struct L2Prefetch {
  const void* base = nullptr;
  long long bytes = 0;
};

/// The default cap of one prefetch (see the header comment).
constexpr long long kL2PrefetchDefaultBytes = 1ll << 20;

/// This thread's part of `next`: the bytes are split over the grid's warps in 16-byte units, and
/// lane 0 of each warp asks for its warp's share with one bulk prefetch. A no-op before sm_90.
__device__ __forceinline__ void prefetch_l2_share(const L2Prefetch& next) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (next.bytes < 16 || (threadIdx.x & 31) != 0) return;
  const long long units = next.bytes / 16;
  const long long warps = static_cast<long long>(gridDim.x) * ((blockDim.x + 31) / 32);
  const long long warp =
      static_cast<long long>(blockIdx.x) * ((blockDim.x + 31) / 32) + threadIdx.x / 32;
  const long long share = (units + warps - 1) / warps;
  const long long first = warp * share;
  if (first >= units) return;
  const long long count = units - first < share ? units - first : share;
  const char* at = static_cast<const char*>(next.base) + first * 16;
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(at),
               "r"(static_cast<unsigned>(count * 16))
               : "memory");
#else
  (void)next;
#endif
}

/// The bytes a launch prefetches of a weight of `bytes`: capped as the header says, a multiple of
/// 16, and at most 2^31 (one bulk prefetch's size is 32 bits). Host code, evaluated per launch
/// (a graph capture keeps the value).
inline long long l2_prefetch_bytes(long long bytes) {
  static const long long cap = [] {
    const char* setting = std::getenv("INFERNO_L2_PREFETCH_MB");
    if (setting == nullptr || *setting == '\0') return kL2PrefetchDefaultBytes;
    char* end = nullptr;
    const long long mb = std::strtoll(setting, &end, 10);
    if (*end != '\0' || mb < 0) return kL2PrefetchDefaultBytes;  // not a count: the default
    return mb > 2048 ? 2048ll << 20 : mb << 20;
  }();
  const long long capped = bytes < cap ? bytes : cap;
  return capped < 16 ? 0 : capped / 16 * 16;
}

}  // namespace inferno::kernels
