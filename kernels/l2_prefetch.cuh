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
// await_producers, and a prefetch changes no value anyway). What: the weights the next GEMVs
// stream, in run order, from the next one on (up to kL2PrefetchRanges of them), as far as a cap of
// kL2PrefetchDefaultBytes, or INFERNO_L2_PREFETCH_MB megabytes from the environment (0 turns
// prefetching off, for comparisons); read once per process. Why 4 MB (H100, fp16 decode steps,
// tools/bench/bench_llm.py, ms/token): a TinyLlama-shaped Llama took 1.184 / 1.177 without
// prefetching, 1.169 at 1 MB, 1.152-1.161 at 2-8 MB, and 1.208, 1.260, 1.277 at 16, 32, 48 MB: a
// large prefetch competes for the DRAM with the GEMV running beside it (its weight is streamed
// right then) and with the next one's own loads. GPT-2 small's step (0.27-0.30 ms) moved by no
// more than its run-to-run noise at any cap.
//
// Measured and not kept (H100, 2026-12-07, docs/benchmarks.md): the decode step's attention
// kernel asking for the next GEMVs' weights as well (16 MB: the step 2.3% slower for TinyLlama,
// 4.5% for GPT-2; the attention is bound by DRAM latency, and that traffic is queued with its own
// loads), and GEMVs asking once their own loads are done instead of at their start (1.6% and 4.7%
// slower).
#pragma once

#include "l2_prefetch_plan.h"

namespace inferno::kernels {

/// This thread's part of `next`: the units are split over the grid's warps, and lane 0 of each
/// warp asks for its warp's share with one bulk prefetch per range it touches. A no-op before
/// sm_90.
__device__ __forceinline__ void prefetch_l2_share(const L2Prefetch& next) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if ((threadIdx.x & 31) != 0) return;
  long long total = 0;
#pragma unroll
  for (int r = 0; r < kL2PrefetchRanges; ++r) total += next.ranges[r].bytes / 16;
  if (total == 0) return;
  const long long per_block = (blockDim.x + 31) / 32;
  const long long warps = static_cast<long long>(gridDim.x) * per_block;
  long long first = 0, count = 0;
  l2_prefetch_share(total, blockIdx.x * per_block + threadIdx.x / 32, warps, first, count);
#pragma unroll
  for (int r = 0; r < kL2PrefetchRanges; ++r) {
    const long long units = next.ranges[r].bytes / 16;
    if (count > 0 && first < units) {
      const long long take = units - first < count ? units - first : count;
      const char* at = static_cast<const char*>(next.ranges[r].base) + first * 16;
      asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(at),
                   "r"(static_cast<unsigned>(take * 16))
                   : "memory");
      count -= take;
      first = 0;
    } else {
      first -= units;
    }
  }
#else
  (void)next;
#endif
}

}  // namespace inferno::kernels
