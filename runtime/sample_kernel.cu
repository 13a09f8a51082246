#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cfloat>

#include "runtime/cuda_util.h"
#include "runtime/error.h"
#include "runtime/sample_kernel.h"
#include "runtime/sample_math.h"

namespace inferno::runtime {
namespace {

using sampling::kThreads;
constexpr int kWarps = kThreads / 32;
constexpr int32_t kNoIndex = 0x7fffffff;

__device__ __forceinline__ float load(const float* p, int64_t i) { return p[i]; }
__device__ __forceinline__ float load(const __half* p, int64_t i) { return __half2float(p[i]); }
__device__ __forceinline__ float load(const __nv_bfloat16* p, int64_t i) {
  return __bfloat162float(p[i]);
}

// Whether (v, i) beats (best, best_i): larger, or equal with a lower index. NaN never wins.
__device__ __forceinline__ bool better(float v, int32_t i, float best, int32_t best_i) {
  return v > best || (v == best && i < best_i);
}

struct Shared {
  float values[kWarps];
  int32_t indices[kWarps];
  uint64_t sums[kWarps];
  uint64_t buckets[kWarps][16];
  uint64_t bucket_total[16];
  int64_t token;
};

// The block's largest logit and its lowest index (kNoIndex when every logit is NaN).
__device__ void block_argmax(Shared& sh, float& best, int32_t& best_i) {
  for (int offset = 16; offset > 0; offset /= 2) {
    const float v = __shfl_down_sync(0xffffffffu, best, offset);
    const int32_t i = __shfl_down_sync(0xffffffffu, best_i, offset);
    if (better(v, i, best, best_i)) {
      best = v;
      best_i = i;
    }
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) {
    sh.values[warp] = best;
    sh.indices[warp] = best_i;
  }
  __syncthreads();
  best = -INFINITY;
  best_i = kNoIndex;
  for (int w = 0; w < kWarps; ++w) {
    if (better(sh.values[w], sh.indices[w], best, best_i)) {
      best = sh.values[w];
      best_i = sh.indices[w];
    }
  }
  __syncthreads();
}

__device__ uint64_t warp_sum(uint64_t v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// The exclusive prefix of `v` over the block's threads (integers: exact in any order); `total`
// gets the sum.
__device__ uint64_t block_exclusive_scan(Shared& sh, uint64_t v, uint64_t& total) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  uint64_t inclusive = v;
  for (int offset = 1; offset < 32; offset *= 2) {
    const uint64_t n = __shfl_up_sync(0xffffffffu, inclusive, offset);
    if (lane >= offset) inclusive += n;
  }
  if (lane == 31) sh.sums[warp] = inclusive;
  __syncthreads();
  uint64_t before = 0;
  total = 0;
  for (int w = 0; w < kWarps; ++w) {
    if (w < warp) before += sh.sums[w];
    total += sh.sums[w];
  }
  __syncthreads();
  return before + inclusive - v;
}

// Sums each thread's 16 buckets over the block into `out` (every thread gets them).
__device__ void block_buckets(Shared& sh, uint64_t* mine, uint64_t* out) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int d = 0; d < 16; ++d) {
    const uint64_t s = warp_sum(mine[d]);
    if (lane == 0) sh.buckets[warp][d] = s;
  }
  __syncthreads();
  if (threadIdx.x < 16) {
    uint64_t s = 0;
    for (int w = 0; w < kWarps; ++w) s += sh.buckets[w][threadIdx.x];
    sh.bucket_total[threadIdx.x] = s;
  }
  __syncthreads();
  for (int d = 0; d < 16; ++d) out[d] = sh.bucket_total[d];
  __syncthreads();
}

// The smallest key kept: top-k's, then top-p's within it (1: every number).
template <typename T>
__device__ uint32_t keep_threshold(Shared& sh, const T* x, int32_t vocab, float max, float scale,
                                   int32_t top_k, float top_p) {
  uint32_t tau = 1;
  if (top_k > 0 && top_k < vocab) {
    tau = sampling::threshold_search(static_cast<uint64_t>(top_k),
                                     [&](uint32_t prefix, uint32_t mask, int shift, uint64_t* b) {
                                       uint64_t mine[16] = {};
                                       for (int32_t i = threadIdx.x; i < vocab; i += kThreads) {
                                         const uint32_t k = sampling::order_key(load(x, i));
                                         if (k >= 1 && (k & mask) == prefix)
                                           ++mine[(k >> shift) & 15];
                                       }
                                       block_buckets(sh, mine, b);
                                     });
    tau = tau < 1 ? 1 : tau;
  }
  if (top_p < 1.0f) {
    uint64_t mine = 0;
    for (int32_t i = threadIdx.x; i < vocab; i += kThreads) {
      const float v = load(x, i);
      if (sampling::order_key(v) >= tau) mine += sampling::token_weight(v, max, scale);
    }
    uint64_t kept = 0;
    block_exclusive_scan(sh, mine, kept);
    const uint64_t target = sampling::top_p_target(top_p, kept);
    const uint32_t floor_key = tau;
    tau = sampling::threshold_search(
        target, [&](uint32_t prefix, uint32_t mask, int shift, uint64_t* b) {
          uint64_t buckets[16] = {};
          for (int32_t i = threadIdx.x; i < vocab; i += kThreads) {
            const float v = load(x, i);
            const uint32_t k = sampling::order_key(v);
            if (k >= floor_key && (k & mask) == prefix) {
              buckets[(k >> shift) & 15] += sampling::token_weight(v, max, scale);
            }
          }
          block_buckets(sh, buckets, b);
        });
    tau = tau < floor_key ? floor_key : tau;
  }
  return tau;
}

// Draws a token among the keys >= tau by the inverse CDF in thread-major order.
template <typename T>
__device__ int64_t draw(Shared& sh, const T* x, int32_t vocab, float max, float scale, uint32_t tau,
                        uint64_t random, int32_t fallback) {
  uint64_t mine = 0;
  for (int32_t i = threadIdx.x; i < vocab; i += kThreads) {
    const float v = load(x, i);
    if (sampling::order_key(v) >= tau) mine += sampling::token_weight(v, max, scale);
  }
  uint64_t total = 0;
  const uint64_t before = block_exclusive_scan(sh, mine, total);
  if (threadIdx.x == 0) sh.token = fallback;
  __syncthreads();
  if (total > 0) {
    const uint64_t u = sampling::mul_high(random, total);
    if (u >= before && u < before + mine) {  // exactly one thread
      uint64_t at = before;
      for (int32_t i = threadIdx.x; i < vocab; i += kThreads) {
        const float v = load(x, i);
        if (sampling::order_key(v) < tau) continue;
        at += sampling::token_weight(v, max, scale);
        if (at > u) {
          sh.token = i;
          break;
        }
      }
    }
  }
  __syncthreads();
  return sh.token;
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    sample_kernel(const T* logits, int64_t row, int32_t vocab, SampleParams* params, int64_t* ids,
                  int64_t* positions) {
  __shared__ Shared sh;
  const T* x = logits + row * vocab;
  float max = -INFINITY;
  int32_t arg = kNoIndex;
  // Unrolled so that each thread has several logits in flight: a vocabulary of 50k is 49 loads a
  // thread, which one after another are the kernel's whole latency.
#pragma unroll 8
  for (int32_t i = threadIdx.x; i < vocab; i += kThreads) {
    const float v = load(x, i);
    if (better(v, i, max, arg)) {
      max = v;
      arg = i;
    }
  }
  block_argmax(sh, max, arg);
  const int32_t greedy_token = arg == kNoIndex ? 0 : arg;
  const SampleParams p = *params;
  __syncthreads();  // every thread has read the parameters before thread 0 advances the step
  int64_t token = greedy_token;
  if (p.greedy == 0 && max > -INFINITY) {
    const uint32_t tau = keep_threshold(sh, x, vocab, max, p.scale, p.top_k, p.top_p);
    token =
        draw(sh, x, vocab, max, p.scale, tau, sampling::step_random(p.seed, p.step), greedy_token);
  }
  if (threadIdx.x == 0) {
    const int64_t next_position = positions[row] + 1;
    ids[0] = token;
    positions[0] = next_position;
    if (p.step >= 0 && p.step < p.capacity) p.tokens[p.step] = token;
    params->step = p.step + 1;
  }
}

}  // namespace

void enqueue_sample(const SampleLaunch& l, cudaStream_t stream) {
  switch (l.logits_dtype) {
    case INFERNO_DTYPE_F32:
      sample_kernel<<<1, kThreads, 0, stream>>>(static_cast<const float*>(l.logits), l.row, l.vocab,
                                                l.params, l.ids, l.positions);
      break;
    case INFERNO_DTYPE_F16:
      sample_kernel<<<1, kThreads, 0, stream>>>(static_cast<const __half*>(l.logits), l.row,
                                                l.vocab, l.params, l.ids, l.positions);
      break;
    case INFERNO_DTYPE_BF16:
      sample_kernel<<<1, kThreads, 0, stream>>>(static_cast<const __nv_bfloat16*>(l.logits), l.row,
                                                l.vocab, l.params, l.ids, l.positions);
      break;
    default:
      fail(INFERNO_STATUS_INTERNAL, "sampling: logits of unexpected dtype");
  }
  check_cuda(cudaGetLastError(), "launch of the sampling kernel");
}

}  // namespace inferno::runtime
