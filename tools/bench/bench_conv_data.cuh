// The conv benchmarks' shared pieces (built alone with nvcc): the ReLU epilogue they pass the
// kernels, a deterministic fill of device buffers with values in [-1, 1], and a download to floats.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "bench_cuda_check.h"
#include "kernels/common.cuh"

struct Relu {
  template <typename A>
  __device__ A operator()(A v) const {
    return v < A(0) ? A(0) : v;
  }
};

/// p[i] = a hash of (i, seed) mapped to [-1, 1] in steps of 0.001: the same values every run.
template <typename T>
__global__ void fill(T* p, int64_t n, uint32_t seed) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += gridDim.x * int64_t(blockDim.x)) {
    uint32_t h = static_cast<uint32_t>(i) * 2654435761u ^ seed;
    h ^= h >> 13;
    p[i] = inferno::kernels::from_float<T>(static_cast<float>(h % 2001) / 1000.0f - 1.0f);
  }
}

/// n elements of T from the device, as floats.
template <typename T>
std::vector<float> download_floats(const T* p, int64_t n) {
  std::vector<T> h(static_cast<size_t>(n));
  CHECK(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
  std::vector<float> f(h.size());
  for (size_t i = 0; i < h.size(); ++i) f[i] = inferno::kernels::to_float(h[i]);
  return f;
}
