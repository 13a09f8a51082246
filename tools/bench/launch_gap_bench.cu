// What a dependent kernel launch costs inside a CUDA graph, with and without programmatic
// dependent launch (PDL, sm_90): a chain of kChain small kernels, each reading what the previous
// one wrote, captured once and replayed; the time per kernel is the replay's time over kChain.
// Sizes: one block of 128 threads (the launch alone), and 132 blocks streaming 4 MB (a decode
// step's GEMV-sized kernel), so the table shows both the bare gap and what PDL overlaps.
//
// Build and run on a GPU machine:
//   nvcc -O2 -std=c++17 -arch=sm_90 -I. tools/bench/launch_gap_bench.cu -o /tmp/launch_gap &&
//   /tmp/launch_gap
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench_cuda_check.h"
#include "bench_graph_timing.h"
#include "kernels/dependent_launch.cuh"

namespace {

constexpr int kChain = 200, kReplays = 20;

// mode 0: no PDL; 1: wait for the previous grid first; 2: also let the next one launch at once.
__global__ void step(const float* in, float* out, int n, int mode) {
#if __CUDA_ARCH__ >= 900
  if (mode == 2) asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  if (mode >= 1) asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
  float sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    sum += in[i];
  if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

double per_kernel_us(int blocks, int n, int mode, float* a, float* b, cudaStream_t stream) {
  return captured_chain_us(stream, kChain, kReplays, [&](int i, cudaStream_t s) {
    return inferno::kernels::launch_kernel(mode > 0, step, dim3(blocks), dim3(128), 0, s,
                                           (i % 2) ? b : a, (i % 2) ? a : b, n, mode);
  });
}

}  // namespace

int main() {
  const int n = 1 << 20;  // 4 MB of floats
  float *a, *b;
  CHECK(cudaMalloc(&a, n * sizeof(float)));
  CHECK(cudaMalloc(&b, n * sizeof(float)));
  CHECK(cudaMemset(a, 0, n * sizeof(float)));
  CHECK(cudaMemset(b, 0, n * sizeof(float)));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s: us per kernel in a graph of %d dependent kernels (median of %d replays)\n\n",
              prop.name, kChain, kReplays);
  std::printf("| kernel | no PDL | PDL, wait first | PDL, trigger + wait |\n|---|---|---|---|\n");
  const struct {
    const char* name;
    int blocks, n;
  } shapes[] = {{"1 block, 128 floats", 1, 128}, {"132 blocks, 4 MB", 132, n}};
  for (const auto& s : shapes) {
    std::printf("| %s |", s.name);
    for (int mode = 0; mode < 3; ++mode)
      std::printf(" %.2f |", per_kernel_us(s.blocks, s.n, mode, a, b, stream));
    std::printf("\n");
  }
  return 0;
}
