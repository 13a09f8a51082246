// Times the decode GEMVs of kernels/gemv.cuh on an LLM's shapes (one row of x, f16, weight
// stored [N, K]): TinyLlama-1.1B's (q/k/v with the RMS norm, o, gate/up with the norm, down, the
// LM head) and GPT-2 small's, each with 2, 4, 8 and 16 weight loads in flight per lane (the
// kUnroll the kernel is instantiated with; gemv_nk_unroll picks one) and 32, 64 or 128 lanes a
// column (one warp, or a column split over 2 or 4 warps: gemv_nk_split_lanes, for the GEMVs
// without a norm). "vs now": each variant's output (random values) against the kernel as
// generated code instantiates it, the largest difference over the largest magnitude (summation
// order and f16 rounding). Each figure is the time of one launch in a replayed CUDA graph of a
// chain of launches, every launch reading another copy of the weight (the copies together are
// several times the L2), as a decode step reads each layer's weights once: normal launches, and
// dependent launches (kernels/dependent_launch.cuh), which overlap each launch with the one
// before. GB/s is the weight's bytes over that time; the last column compares with a
// device-to-device copy measured the same way.
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -I. -Itools/bench tools/bench/gemv_bench.cu -o gemv_bench
//   ./gemv_bench
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "bench_cuda_check.h"
#include "bench_graph_timing.h"
#include "kernels/dependent_launch.cuh"
#include "kernels/gemv.cuh"

using namespace inferno::kernels;

namespace {

constexpr int kChain = 64, kReplays = 10;
constexpr size_t kColdBytes = size_t{512} << 20;  // the weight copies together: ~10 L2s

template <int64_t kN, int64_t kK, int kUnroll, int kLanes>
__global__ void __launch_bounds__(kGemvNkThreads)
    plain(const __half* x, const __half* w, __half* out) {
  gemv_nk<__half, 1, gemv_pack<__half>(kK), kLanes, kUnroll>(
      x, w, kN, kK, out, GemvEpilogue<__half>{}, GemvNoActivation{});
}

template <int64_t kN, int64_t kK, int kUnroll, int kLanes>
__global__ void __launch_bounds__(kGemvNkThreads)
    normed(const __half* x, const __half* w, const __half* norm_weight, __half* out) {
  gemv_nk_norm<__half, 1, gemv_pack<__half>(kK), kLanes, kK, true, kUnroll>(
      x, w, kN, norm_weight, nullptr, 1e-6f, out, GemvEpilogue<__half>{}, GemvNoActivation{});
}

/// One launch's time in a graph of kChain launches, each `launch(i, stream)`.
template <typename Launch>
float chain_us(cudaStream_t stream, Launch launch) {
  return captured_chain_us(stream, kChain, kReplays, launch);
}

struct Buffers {
  std::vector<__half*> weights;
  __half *x = nullptr, *out = nullptr, *norm_weight = nullptr;
};

/// Values in [-1, 1) from a hash of the index: the check below needs sums that depend on the order.
__global__ void fill_random(__half* p, int64_t n, unsigned seed) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * blockDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    p[i] = __float2half(static_cast<float>(h & 0xffff) / 32768.0f - 1.0f);
  }
}

Buffers make_buffers(int64_t n, int64_t k) {
  Buffers b;
  const size_t bytes = static_cast<size_t>(n * k) * sizeof(__half);
  const size_t copies = std::max<size_t>(2, kColdBytes / bytes);
  for (size_t c = 0; c < copies; ++c) {
    __half* w = nullptr;
    CHECK(cudaMalloc(&w, bytes));
    fill_random<<<1024, 256>>>(w, n * k, static_cast<unsigned>(c) + 1);
    b.weights.push_back(w);
  }
  CHECK(cudaMalloc(&b.x, static_cast<size_t>(k) * sizeof(__half)));
  fill_random<<<64, 256>>>(b.x, k, 7777);
  CHECK(cudaMalloc(&b.norm_weight, static_cast<size_t>(k) * sizeof(__half)));
  fill_random<<<64, 256>>>(b.norm_weight, k, 8888);
  CHECK(cudaMalloc(&b.out, static_cast<size_t>(n) * sizeof(__half)));
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  return b;
}

void free_buffers(Buffers& b) {
  for (__half* w : b.weights) CHECK(cudaFree(w));
  CHECK(cudaFree(b.x));
  CHECK(cudaFree(b.norm_weight));
  CHECK(cudaFree(b.out));
}

/// One launch of the variant on weight copy `w`, as the chains below launch it.
template <int64_t kN, int64_t kK, bool kNorm, int kUnroll, int kLanes>
cudaError_t launch_variant(bool dependent, const Buffers& b, const __half* w, cudaStream_t s) {
  const dim3 grid(gemv_nk_grid(kN, kLanes)), block(kGemvNkThreads);
  if constexpr (kNorm) {
    return launch_kernel(dependent, normed<kN, kK, kUnroll, kLanes>, grid, block, 0, s, b.x, w,
                         b.norm_weight, b.out);
  } else {
    return launch_kernel(dependent, plain<kN, kK, kUnroll, kLanes>, grid, block, 0, s, b.x, w,
                         b.out);
  }
}

/// The variant's output on weight copy 0, on the host.
template <int64_t kN, int64_t kK, bool kNorm, int kUnroll, int kLanes>
std::vector<float> output_of(const Buffers& b, cudaStream_t stream) {
  CHECK((launch_variant<kN, kK, kNorm, kUnroll, kLanes>(false, b, b.weights[0], stream)));
  std::vector<__half> out(kN);
  CHECK(cudaMemcpyAsync(out.data(), b.out, kN * sizeof(__half), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  return std::vector<float>(out.begin(), out.end());
}

/// The largest difference from `reference`, over its largest magnitude.
float relative_difference(const std::vector<float>& got, const std::vector<float>& reference) {
  float diff = 0, top = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    diff = std::max(diff, std::fabs(got[i] - reference[i]));
    top = std::max(top, std::fabs(reference[i]));
  }
  return top > 0 ? diff / top : diff;
}

/// The lanes a column and loads a lane generated code instantiates the kernel with.
template <int64_t kN, int64_t kK, bool kNorm>
constexpr int now_lanes() {
  return kNorm ? gemv_nk_lanes<__half>(kK) : gemv_nk_split_lanes<__half>(kN, kK);
}
template <int64_t kN, int64_t kK, bool kNorm>
constexpr int now_unroll() {
  return kNorm ? gemv_nk_norm_unroll<__half>(kN, kK) : gemv_nk_split_unroll<__half>(kN, kK);
}

template <int64_t kN, int64_t kK, bool kNorm, int kUnroll, int kLanes>
void time_variant(const char* name, Buffers& b, cudaStream_t stream, float copy_gbs,
                  const std::vector<float>& reference) {
  if (kK / gemv_pack<__half>(kK) < kLanes) return;  // fewer packs than lanes
  const double gb = static_cast<double>(kN * kK) * sizeof(__half) / 1e9;
  const float diff =
      relative_difference(output_of<kN, kK, kNorm, kUnroll, kLanes>(b, stream), reference);
  float us[2];
  for (const bool dependent : {false, true}) {
    us[dependent] = chain_us(stream, [&](int i, cudaStream_t s) {
      const __half* w = b.weights[static_cast<size_t>(i) % b.weights.size()];
      return launch_variant<kN, kK, kNorm, kUnroll, kLanes>(dependent, b, w, s);
    });
  }
  const bool now = kUnroll == now_unroll<kN, kK, kNorm>() && kLanes == now_lanes<kN, kK, kNorm>();
  std::printf("| %s | %lld x %lld | %s | %d | %d%s | %.2f | %.0f | %.2f | %.0f | %.0f%% | %.1e |\n",
              name, static_cast<long long>(kN), static_cast<long long>(kK), kNorm ? "rms" : "-",
              kLanes, kUnroll, now ? " (now)" : "", us[0], gb / us[0] * 1e6, us[1],
              gb / us[1] * 1e6, 100.0 * gb / us[1] * 1e6 / copy_gbs, diff);
}

template <int64_t kN, int64_t kK, bool kNorm, int kLanes>
void time_lanes(const char* name, Buffers& b, cudaStream_t stream, float copy_gbs,
                const std::vector<float>& reference) {
  time_variant<kN, kK, kNorm, 2, kLanes>(name, b, stream, copy_gbs, reference);
  time_variant<kN, kK, kNorm, 4, kLanes>(name, b, stream, copy_gbs, reference);
  time_variant<kN, kK, kNorm, 8, kLanes>(name, b, stream, copy_gbs, reference);
  time_variant<kN, kK, kNorm, 16, kLanes>(name, b, stream, copy_gbs, reference);
}

template <int64_t kN, int64_t kK, bool kNorm>
void time_shape(const char* name, cudaStream_t stream, float copy_gbs) {
  Buffers b = make_buffers(kN, kK);
  // The reference: the kernel as generated code instantiates it.
  const std::vector<float> reference =
      output_of<kN, kK, kNorm, now_unroll<kN, kK, kNorm>(), now_lanes<kN, kK, kNorm>()>(b, stream);
  time_lanes<kN, kK, kNorm, 32>(name, b, stream, copy_gbs, reference);
  time_lanes<kN, kK, kNorm, 64>(name, b, stream, copy_gbs, reference);
  time_lanes<kN, kK, kNorm, 128>(name, b, stream, copy_gbs, reference);
  free_buffers(b);
}

/// Device-to-device copy bandwidth (read + write bytes over time), 256 MB, in a graph.
float copy_gbs(cudaStream_t stream) {
  const size_t bytes = size_t{256} << 20;
  void *a = nullptr, *b = nullptr;
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&b, bytes));
  const float us = chain_us(stream, [&](int, cudaStream_t s) {
    return cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s);
  });
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  return static_cast<float>(2.0 * static_cast<double>(bytes) / 1e9 / us * 1e6);
}

}  // namespace

int main() {
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const float copy = copy_gbs(stream);
  std::printf(
      "%s: f16 GEMV, 1 row, weight [N, K]; us per launch in a graph of %d; copy %.0f GB/s\n\n",
      prop.name, kChain, copy);
  std::printf(
      "| shape | N x K | norm | lanes a column | loads a lane | us | GB/s | us (PDL) | GB/s (PDL) "
      "| "
      "of copy (PDL) | vs now |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
  time_shape<2560, 2048, true>("TinyLlama qkv", stream, copy);
  time_shape<2048, 2048, false>("TinyLlama o", stream, copy);
  time_shape<11264, 2048, true>("TinyLlama gate/up", stream, copy);
  time_shape<2048, 5632, false>("TinyLlama down", stream, copy);
  time_shape<32000, 2048, true>("TinyLlama LM head", stream, copy);
  time_shape<2304, 768, true>("GPT-2 qkv", stream, copy);
  time_shape<768, 768, false>("GPT-2 out", stream, copy);
  time_shape<3072, 768, true>("GPT-2 fc", stream, copy);
  time_shape<768, 3072, false>("GPT-2 proj", stream, copy);
  CHECK(cudaStreamDestroy(stream));
  return 0;
}
