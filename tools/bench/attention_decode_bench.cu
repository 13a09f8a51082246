// Times the decode attention (kernels/attention_decode.cuh) at an LLM's one-token shapes, f16:
// TinyLlama-1.1B's (32 query heads on 4 kv heads) and GPT-2 small's (12 on 12), head dim 64, a
// static cache of 256 positions of which `live` are kept by a bool mask, as in a generation 160
// tokens in. Variants: the plain attention (the rotary and cache writes done before it) and the
// attention step (attention_step: the rotary of q and the new key and the cache writes in the
// kernel), each with the kernel's own key split and with 1, 2, 4 and 8 splits forced
// (AttentionDecodeLaunch::splits: the cluster size), each launched normally and as a dependent
// launch. Each figure is one launch's time in a replayed CUDA graph of a chain of kChain
// launches, every launch on another layer's cache (the caches together are larger than the L2,
// as a decode step's GEMVs leave it), so a launch pays what it pays in a step: its wait for the
// launch before, its first loads, DRAM for K and V. "hop": a one-block kernel that only waits
// for the one before, the floor of any launch in such a chain. "max diff": layer 0's output
// against the kernel's own split (f16 outputs of |v| <= 1; another split sums in another order).
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -I. -Itools/bench tools/bench/attention_decode_bench.cu \
//     -o attention_decode_bench && ./attention_decode_bench
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench_cuda_check.h"
#include "bench_graph_timing.h"
#include "kernels/attention.cuh"
#include "kernels/dependent_launch.cuh"

using namespace inferno::kernels;

namespace {

constexpr int kChain = 256, kReplays = 10;
constexpr int64_t kCache = 256, kHead = 64;

struct Shape {
  const char* name;
  int64_t heads, kv_heads, live;
};

// One layer's operands: q, the new key and value rows, the caches; cosine and sine and the mask
// are shared.
struct Layer {
  __half *q, *k_new, *v_new, *k_cache, *v_cache, *out;
};

__half* device_random(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> unit(-1, 1);
  std::vector<__half> host(n);
  for (auto& v : host) v = __float2half(unit(rng));
  __half* d = nullptr;
  CHECK(cudaMalloc(&d, n * sizeof(__half)));
  CHECK(cudaMemcpy(d, host.data(), n * sizeof(__half), cudaMemcpyHostToDevice));
  return d;
}

__global__ void hop(int* counter) {
  await_producers();
  if (threadIdx.x == 0) *counter += 1;
}

cudaError_t launch_hop(bool dependent, int* counter, cudaStream_t stream) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(1);
  config.blockDim = dim3(32);
  config.stream = stream;
  cudaLaunchAttribute overlap = {};
  overlap.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  overlap.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &overlap;
  config.numAttrs = dependent ? 1 : 0;
  return cudaLaunchKernelEx(&config, hop, counter);
}

void run_shape(const Shape& s, cudaStream_t stream) {
  std::mt19937 rng(7);
  const int64_t hq = s.heads, hk = s.kv_heads;
  std::vector<Layer> layers(kChain);
  for (Layer& l : layers) {
    l.q = device_random(static_cast<size_t>(hq * kHead), rng);
    l.k_new = device_random(static_cast<size_t>(hk * kHead), rng);
    l.v_new = device_random(static_cast<size_t>(hk * kHead), rng);
    l.k_cache = device_random(static_cast<size_t>(hk * kCache * kHead), rng);
    l.v_cache = device_random(static_cast<size_t>(hk * kCache * kHead), rng);
    CHECK(cudaMalloc(&l.out, static_cast<size_t>(hq * kHead) * sizeof(__half)));
  }
  __half* cosine = device_random(kHead, rng);
  __half* sine = device_random(kHead, rng);
  std::vector<unsigned char> keep(kCache);
  for (int64_t j = 0; j < kCache; ++j) keep[static_cast<size_t>(j)] = j < s.live ? 1 : 0;
  unsigned char* mask = nullptr;
  int64_t* position = nullptr;
  const int64_t at = s.live - 1;
  CHECK(cudaMalloc(&mask, kCache));
  CHECK(cudaMemcpy(mask, keep.data(), kCache, cudaMemcpyHostToDevice));
  CHECK(cudaMalloc(&position, sizeof(int64_t)));
  CHECK(cudaMemcpy(position, &at, sizeof(int64_t), cudaMemcpyHostToDevice));

  const AttentionDims dims{1, hq, hk, 1, kCache, kHead, kHead};
  const AttentionLayout ql{hq * kHead, kHead, kHead},
      cl{hk * kCache * kHead, kCache * kHead, kHead}, nl{hk * kHead, kHead, kHead};
  const AttentionMask bool_mask{mask, 1, {0, 0, 0, 1}};
  const double scale = 0.125;
  auto run = [&](bool step, int splits, bool dependent) {
    return captured_chain_us(stream, kChain, kReplays, [&](int i, cudaStream_t st) {
      const Layer& l = layers[static_cast<size_t>(i)];
      const AttentionDecodeLaunch launch{dependent, splits};
      if (!step)
        return attention<__half, kHead>(l.q, l.k_cache, l.v_cache, l.out, dims, ql, cl, cl, ql,
                                        bool_mask, scale, false, st, launch);
      const AttentionDecodeUpdate<__half> update{l.k_new, nl,   l.v_new, nl,    position,
                                                 cosine,  sine, 0,       kHead, kHead};
      return attention_step<__half, kHead>(l.q, l.k_cache, l.v_cache, l.out, dims, ql, cl, cl, ql,
                                           bool_mask, scale, update, st, launch);
    });
  };
  // Layer 0's output after a chain, on the host.
  auto output = [&] {
    std::vector<__half> host(static_cast<size_t>(hq * kHead));
    CHECK(cudaMemcpy(host.data(), layers[0].out, host.size() * sizeof(__half),
                     cudaMemcpyDeviceToHost));
    return std::vector<float>(host.begin(), host.end());
  };
  for (const bool step : {false, true}) {
    std::vector<float> reference;
    for (const int splits : {0, 1, 2, 4, 8}) {
      const float normal = run(step, splits, false), dependent = run(step, splits, true);
      const std::vector<float> got = output();
      if (splits == 0) reference = got;
      float diff = 0;
      for (size_t i = 0; i < got.size(); ++i)
        diff = std::max(diff, std::fabs(got[i] - reference[i]));
      std::printf("| %s | %s | %s | %.2f | %.2f | %.1e |\n", s.name,
                  step ? "attention step" : "attention",
                  splits == 0 ? "auto" : std::to_string(splits).c_str(), normal, dependent, diff);
    }
  }
  for (Layer& l : layers) {
    for (__half* p : {l.q, l.k_new, l.v_new, l.k_cache, l.v_cache, l.out}) CHECK(cudaFree(p));
  }
  CHECK(cudaFree(cosine));
  CHECK(cudaFree(sine));
  CHECK(cudaFree(mask));
  CHECK(cudaFree(position));
}

}  // namespace

int main() {
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs; us per launch in a graph of %d, cache %lld positions, head dim %lld\n\n",
              prop.name, prop.multiProcessorCount, kChain, static_cast<long long>(kCache),
              static_cast<long long>(kHead));
  int* counter = nullptr;
  CHECK(cudaMalloc(&counter, sizeof(int)));
  const float hop_normal = captured_chain_us(
      stream, kChain, kReplays, [&](int, cudaStream_t s) { return launch_hop(false, counter, s); });
  const float hop_dependent = captured_chain_us(
      stream, kChain, kReplays, [&](int, cudaStream_t s) { return launch_hop(true, counter, s); });
  std::printf(
      "| shape | kernel | splits | us | us, dependent launch | max diff vs auto |\n"
      "|---|---|---|---|---|---|\n");
  std::printf("| - | hop (one block, waits only) | - | %.2f | %.2f | - |\n", hop_normal,
              hop_dependent);
  for (const Shape& s : {Shape{"TinyLlama (32 on 4 heads, 160 live keys)", 32, 4, 160},
                         Shape{"GPT-2 small (12 heads, 160 live keys)", 12, 12, 160}})
    run_shape(s, stream);
  CHECK(cudaFree(counter));
  CHECK(cudaStreamDestroy(stream));
  return 0;
}
