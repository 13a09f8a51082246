// Times the 16-bit implicit-GEMM convolution (kernels/conv_igemm.cuh) on the groups-1 shapes of
// ResNet-18 and ResNet-50 that run on it (224x224; 3x3 and strided 1x1: legalize sends stride-1
// 1x1 convolutions to cuBLASLt), f16 NHWC with a bias and ReLU, at batch 1 and 32: the
// register-staged kernel, each tile shape of the pipelined kernel (IgemmTiles), the tiles kAuto
// picks on this GPU, and cuBLAS's f16 GEMM (f32 accumulation) on the equivalent GEMM (M = N * OH
// * OW, N = O, K = C * KH * KW; no gather, no epilogue), the issue's yardstick: "auto / cuBLAS" is
// cuBLAS's time over auto's (1.0 = as fast as the GEMM). Each figure is the median over 10 replays
// of a CUDA graph of 20 launches, per launch; inputs are random. Every variant's output is
// compared with the staged kernel's (relative L2; both sum in f32, in other orders).
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -I. tools/bench/conv_f16_bench.cu -lcublas -o conv_f16_bench
//   ./conv_f16_bench [batch ...]        (default: 1 32)
#include <cublas_v2.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench_cuda_check.h"
#include "bench_graph_timing.h"
#include "kernels/conv_igemm.cuh"

using namespace inferno::kernels;

#define CHECK_CUBLAS(call)                                                            \
  do {                                                                                \
    const cublasStatus_t s_ = (call);                                                 \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                \
      std::fprintf(stderr, "%s:%d %s: cuBLAS status %d\n", __FILE__, __LINE__, #call, \
                   static_cast<int>(s_));                                             \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

struct Layer {
  const char* name;
  int count;  ///< times it occurs in the network
  int64_t c, hw, o, k, stride, pad;
};

const Layer kResnet50[] = {
    {"r50 3x3 64->64 @56", 3, 64, 56, 64, 3, 1, 1},
    {"r50 3x3/2 128->128 @56", 1, 128, 56, 128, 3, 2, 1},
    {"r50 3x3 128->128 @28", 3, 128, 28, 128, 3, 1, 1},
    {"r50 3x3/2 256->256 @28", 1, 256, 28, 256, 3, 2, 1},
    {"r50 3x3 256->256 @14", 5, 256, 14, 256, 3, 1, 1},
    {"r50 3x3/2 512->512 @14", 1, 512, 14, 512, 3, 2, 1},
    {"r50 3x3 512->512 @7", 2, 512, 7, 512, 3, 1, 1},
    {"r50 1x1/2 256->512 @56", 1, 256, 56, 512, 1, 2, 0},
    {"r50 1x1/2 512->1024 @28", 1, 512, 28, 1024, 1, 2, 0},
    {"r50 1x1/2 1024->2048 @14", 1, 1024, 14, 2048, 1, 2, 0},
};
const Layer kResnet18[] = {
    {"r18 3x3 64->64 @56", 4, 64, 56, 64, 3, 1, 1},
    {"r18 3x3/2 64->128 @56", 1, 64, 56, 128, 3, 2, 1},
    {"r18 3x3 128->128 @28", 3, 128, 28, 128, 3, 1, 1},
    {"r18 3x3/2 128->256 @28", 1, 128, 28, 256, 3, 2, 1},
    {"r18 3x3 256->256 @14", 3, 256, 14, 256, 3, 1, 1},
    {"r18 3x3/2 256->512 @14", 1, 256, 14, 512, 3, 2, 1},
    {"r18 3x3 512->512 @7", 3, 512, 7, 512, 3, 1, 1},
    {"r18 1x1/2 64->128 @56", 1, 64, 56, 128, 1, 2, 0},
    {"r18 1x1/2 128->256 @28", 1, 128, 28, 256, 1, 2, 0},
    {"r18 1x1/2 256->512 @14", 1, 256, 14, 512, 1, 2, 0},
};

struct Relu {
  template <typename A>
  __device__ A operator()(A v) const {
    return v < A(0) ? A(0) : v;
  }
};

__global__ void fill(__half* p, int64_t n, uint32_t seed) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += gridDim.x * int64_t(blockDim.x)) {
    uint32_t h = static_cast<uint32_t>(i) * 2654435761u ^ seed;
    h ^= h >> 13;
    p[i] = __float2half(static_cast<float>(h % 2001) / 1000.0f - 1.0f);
  }
}

std::vector<float> download(const __half* p, int64_t n) {
  std::vector<__half> h(static_cast<size_t>(n));
  CHECK(cudaMemcpy(h.data(), p, n * sizeof(__half), cudaMemcpyDeviceToHost));
  std::vector<float> f(h.size());
  for (size_t i = 0; i < h.size(); ++i) f[i] = __half2float(h[i]);
  return f;
}

double relative_l2(const std::vector<float>& got, const std::vector<float>& want) {
  double num = 0, den = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    num += (got[i] - want[i]) * double(got[i] - want[i]);
    den += want[i] * double(want[i]);
  }
  return std::sqrt(num / (den > 0 ? den : 1));
}

constexpr int kKernels = 5;

template <IgemmTiles kTiles>
cudaError_t run(const __half* x, const __half* w, const Conv2dEpilogue<__half>& e, __half* out,
                const Conv2dShape& s, cudaStream_t stream) {
  return conv2d_igemm<__half, IgemmPlan::kNhwcVecAW, kTiles>(x, w, e, out, s, stream, Relu{});
}

cudaError_t run_column(int column, const __half* x, const __half* w,
                       const Conv2dEpilogue<__half>& e, __half* out, const Conv2dShape& s,
                       cudaStream_t stream) {
  switch (column) {
    case 0:
      return run<IgemmTiles::kStaged>(x, w, e, out, s, stream);
    case 1:
      return run<IgemmTiles::kPipe64x64>(x, w, e, out, s, stream);
    case 2:
      return run<IgemmTiles::kPipe128x64>(x, w, e, out, s, stream);
    case 3:
      return run<IgemmTiles::kPipe128x128>(x, w, e, out, s, stream);
    default:
      return run<IgemmTiles::kAuto>(x, w, e, out, s, stream);
  }
}

struct Row {
  float us[kKernels];
  float cublas_us;
  double worst_error;
  IgemmTiles auto_tiles;
  double flops;
};

Row time_layer(const Conv2dShape& s, cublasHandle_t cublas, cudaStream_t stream, int sms) {
  const int64_t xn = s.n * s.c * s.h * s.w, wn = s.o * s.c * s.kh * s.kw,
                on = s.n * s.o * s.oh * s.ow;
  const int64_t m = s.n * s.oh * s.ow, k = s.c * s.kh * s.kw;
  __half *x, *w, *b, *out, *ref, *gemm_a;
  CHECK(cudaMalloc(&x, xn * sizeof(__half)));
  CHECK(cudaMalloc(&w, wn * sizeof(__half)));
  CHECK(cudaMalloc(&b, s.o * sizeof(__half)));
  CHECK(cudaMalloc(&out, on * sizeof(__half)));
  CHECK(cudaMalloc(&ref, on * sizeof(__half)));
  CHECK(cudaMalloc(&gemm_a, m * k * sizeof(__half)));
  fill<<<256, 256>>>(x, xn, 1);
  fill<<<256, 256>>>(w, wn, 2);
  fill<<<256, 256>>>(b, s.o, 3);
  fill<<<256, 256>>>(gemm_a, m * k, 4);
  CHECK(cudaGetLastError());
  Conv2dEpilogue<__half> e;
  e.bias = b;

  Row row{};
  row.flops = 2.0 * static_cast<double>(m) * static_cast<double>(s.o) * static_cast<double>(k);
  row.auto_tiles = igemm_tiles(IgemmPlan::kNhwcVecAW, 2, false, m, s.o, sms);
  CHECK(run_column(0, x, w, e, ref, s, stream));
  CHECK(cudaStreamSynchronize(stream));
  const std::vector<float> want = download(ref, on);
  for (int column = 0; column < kKernels; ++column) {
    CHECK(cudaMemsetAsync(out, 0xff, on * sizeof(__half), stream));  // NaN: unwritten shows
    CHECK(run_column(column, x, w, e, out, s, stream));
    CHECK(cudaStreamSynchronize(stream));
    const double error = relative_l2(download(out, on), want);
    row.worst_error = std::isnan(error) || error > row.worst_error ? error : row.worst_error;
    row.us[column] = captured_chain_us(stream, 20, 10, [&](int, cudaStream_t st) {
      return run_column(column, x, w, e, out, s, st);
    });
  }
  // The equivalent GEMM: out[m, o] = sum_k A[m, k] W[o, k], row-major; cuBLAS is column-major,
  // so it computes out^T [O, M] = W [O, K] (as K x O, transposed) times A^T (K x M).
  const float alpha = 1.0f, beta = 0.0f;
  CHECK_CUBLAS(cublasSetStream(cublas, stream));
  row.cublas_us = captured_chain_us(stream, 20, 10, [&](int, cudaStream_t) {
    const cublasStatus_t status =
        cublasGemmEx(cublas, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(s.o), static_cast<int>(m),
                     static_cast<int>(k), &alpha, w, CUDA_R_16F, static_cast<int>(k), gemm_a,
                     CUDA_R_16F, static_cast<int>(k), &beta, out, CUDA_R_16F, static_cast<int>(s.o),
                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    return status == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
  });
  for (__half* p : {x, w, b, out, ref, gemm_a}) CHECK(cudaFree(p));
  return row;
}

int main(int argc, char** argv) {
  std::vector<int64_t> batches;
  for (int i = 1; i < argc; ++i) batches.push_back(std::atoll(argv[i]));
  if (batches.empty()) batches = {1, 32};
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  cublasHandle_t cublas;
  CHECK_CUBLAS(cublasCreate(&cublas));
  void* workspace;
  constexpr size_t kWorkspace = 32 << 20;  // set explicitly: cuBLAS in a graph capture
  CHECK(cudaMalloc(&workspace, kWorkspace));
  CHECK_CUBLAS(cublasSetWorkspace(cublas, workspace, kWorkspace));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  for (const int64_t batch : batches) {
    std::printf("\nbatch %lld, us per conv (f16 NHWC, bias + relu); TFLOP/s of auto and cuBLAS\n\n",
                static_cast<long long>(batch));
    std::printf(
        "| layer | n | staged | pipe 64x64 | pipe 128x64 | pipe 128x128 | auto (tiles) | cuBLAS "
        "GEMM | auto TFLOP/s | cuBLAS TFLOP/s | auto / cuBLAS | max rel. L2 vs staged |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const auto* net : {&kResnet18, &kResnet50}) {
      float total[kKernels + 1] = {};
      for (const Layer& l : *net) {
        const int64_t oh = (l.hw + 2 * l.pad - l.k) / l.stride + 1;
        Conv2dShape s = {batch, l.c,      l.hw,     l.hw,  l.o,   l.k, l.k, oh,
                         oh,    l.stride, l.stride, l.pad, l.pad, 1,   1,   1};
        s.nhwc = true;
        const Row r = time_layer(s, cublas, stream, prop.multiProcessorCount);
        std::printf(
            "| %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f (%s) | %.1f | %.0f | %.0f | %.2f | "
            "%.1e |\n",
            l.name, l.count, r.us[0], r.us[1], r.us[2], r.us[3], r.us[4],
            igemm_tiles_name(r.auto_tiles), r.cublas_us, r.flops / r.us[4] * 1e-6,
            r.flops / r.cublas_us * 1e-6, r.cublas_us / r.us[4], r.worst_error);
        for (int i = 0; i < kKernels; ++i) total[i] += r.us[i] * l.count;
        total[kKernels] += r.cublas_us * l.count;
      }
      std::printf("| %s, these convs | | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | | | %.2f | |\n",
                  net == &kResnet18 ? "ResNet-18" : "ResNet-50", total[0], total[1], total[2],
                  total[3], total[4], total[5], total[5] / total[4]);
    }
  }
  CHECK_CUBLAS(cublasDestroy(cublas));
  return 0;
}
