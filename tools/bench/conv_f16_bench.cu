// Times the 16-bit implicit-GEMM convolution (kernels/conv_igemm.cuh) on the groups-1 shapes of
// ResNet-18 and ResNet-50 that run on it (224x224; 3x3 and strided 1x1: legalize sends stride-1
// 1x1 convolutions to cuBLASLt), f16 NHWC with a bias and ReLU, at batch 1 and 32: the
// register-staged kernel, each tile shape of the pipelined mma.sync and wgmma kernels
// (IgemmTiles), the tiles codegen picks for an sm_90a build on this GPU's SM count ("chosen"),
// and cuBLAS's f16 GEMM (f32 accumulation) on the equivalent GEMM (M = N * OH
// * OW, N = O, K = C * KH * KW; no gather, no epilogue), the yardstick: "chosen / cuBLAS" is
// cuBLAS's time over the chosen kernel's (1.0 = as fast as the GEMM). Each figure is the median
// over 10 replays of a CUDA graph of 20 launches, per launch; inputs are random. Every variant's
// output is checked at 512 sampled outputs against the host's sum in double ("error per kernel":
// the largest difference over the largest output, in the columns' order; f16 rounding is ~5e-4).
//
//   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -I. tools/bench/conv_f16_bench.cu \
//     -lcublas -o conv_f16_bench     (sm_90a alone: the wgmma columns need it)
//   ./conv_f16_bench [batch ...]        (default: 1 32)
#include <cublas_v2.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>
#include <vector>

#include "bench_conv_data.cuh"
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

// Shapes that leave partial tiles in M, N and K, C below the 64-wide K step, and O that is not
// a multiple of 8 (the epilogue's element-by-element path): the error column checks them.
const Layer kOdd[] = {
    {"odd 3x3/2 24->136 @23", 1, 24, 23, 136, 3, 2, 1},
    {"odd 3x3 8->70 @40", 1, 8, 40, 70, 3, 1, 1},
    {"odd 1x1 200->72 @13", 1, 200, 13, 72, 1, 1, 0},
    {"odd 5x5 16->96 @31", 1, 16, 31, 96, 5, 1, 2},
};

/// Outputs at sampled positions computed on the host in double (x, w, bias as the GPU holds
/// them, relu), so that each kernel is checked on its own, not only against another kernel.
struct HostCheck {
  std::vector<int64_t> at;  ///< NHWC output indices
  std::vector<double> want;
  double scale = 0;  ///< the largest |want|

  HostCheck(const Conv2dShape& s, const __half* x, const __half* w, const __half* b) {
    const int64_t xn = s.n * s.c * s.h * s.w, wn = s.o * s.c * s.kh * s.kw;
    const std::vector<float> hx = download_floats(x, xn), hw = download_floats(w, wn),
                             hb = download_floats(b, s.o);
    const int64_t count = s.n * s.oh * s.ow * s.o;
    uint64_t state = 88172645463325252ull;
    for (int i = 0; i < 512; ++i) {
      state ^= state << 13, state ^= state >> 7, state ^= state << 17;
      const int64_t index = static_cast<int64_t>(state % static_cast<uint64_t>(count));
      const int64_t o = index % s.o, m = index / s.o;
      const int64_t n = m / (s.oh * s.ow), oy = m / s.ow % s.oh, ox = m % s.ow;
      double sum = hb[static_cast<size_t>(o)];
      for (int64_t ky = 0; ky < s.kh; ++ky)
        for (int64_t kx = 0; kx < s.kw; ++kx) {
          const int64_t iy = oy * s.stride_h - s.pad_top + ky,
                        ix = ox * s.stride_w - s.pad_left + kx;
          if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
          for (int64_t c = 0; c < s.c; ++c)
            sum += double(hx[static_cast<size_t>(((n * s.h + iy) * s.w + ix) * s.c + c)]) *
                   hw[static_cast<size_t>(((o * s.kh + ky) * s.kw + kx) * s.c + c)];
        }
      at.push_back(index);
      want.push_back(sum < 0 ? 0 : sum);
      scale = std::max(scale, std::fabs(want.back()));
    }
  }

  /// The largest error at the samples over the largest |want| (NaN when one is not finite).
  double error(const __half* out) const {
    double worst = 0;
    for (size_t i = 0; i < at.size(); ++i) {
      __half h;
      CHECK(cudaMemcpy(&h, out + at[i], sizeof(h), cudaMemcpyDeviceToHost));
      const double got = __half2float(h);
      if (!std::isfinite(got)) return NAN;
      worst = std::max(worst, std::fabs(got - want[i]) / (scale > 0 ? scale : 1));
    }
    return worst;
  }
};

constexpr IgemmTiles kColumns[] = {IgemmTiles::kStaged,      IgemmTiles::kPipe64x64,
                                   IgemmTiles::kPipe128x64,  IgemmTiles::kPipe128x128,
                                   IgemmTiles::kWgmma128x64, IgemmTiles::kWgmma128x128};
// Pipeline depths of the wgmma kernel timed beside the tiles' own (WgmmaShapeOf), by N and stages.
using detail::WgmmaShape;
constexpr int kSweep = 4;
constexpr const char* kSweepNames[kSweep] = {"wgmma 128x64 s3", "wgmma 128x64 s6",
                                             "wgmma 128x128 s4", "wgmma 128x128 s5"};
cudaError_t run_sweep(int i, const __half* x, const __half* w, const Conv2dEpilogue<__half>& e,
                      __half* out, const Conv2dShape& s, cudaStream_t stream) {
  const detail::IgemmGeom g = detail::igemm_geom(s);
  switch (i) {
    case 0:
      return detail::launch_wgmma_shape<__half, Relu, WgmmaShape<64, 3>>(x, w, out, e, g, stream,
                                                                         {});
    case 1:
      return detail::launch_wgmma_shape<__half, Relu, WgmmaShape<64, 6>>(x, w, out, e, g, stream,
                                                                         {});
    case 2:
      return detail::launch_wgmma_shape<__half, Relu, WgmmaShape<128, 4>>(x, w, out, e, g, stream,
                                                                          {});
    default:
      return detail::launch_wgmma_shape<__half, Relu, WgmmaShape<128, 5>>(x, w, out, e, g, stream,
                                                                          {});
  }
}
constexpr int kKernels = 6;

template <IgemmTiles kTiles>
cudaError_t run(const __half* x, const __half* w, const Conv2dEpilogue<__half>& e, __half* out,
                const Conv2dShape& s, cudaStream_t stream) {
  return conv2d_igemm<__half, IgemmPlan::kNhwcVecAW, kTiles>(x, w, e, out, s, stream, Relu{});
}

cudaError_t run_column(int column, const __half* x, const __half* w,
                       const Conv2dEpilogue<__half>& e, __half* out, const Conv2dShape& s,
                       cudaStream_t stream) {
  switch (kColumns[column]) {
    case IgemmTiles::kStaged:
      return run<IgemmTiles::kStaged>(x, w, e, out, s, stream);
    case IgemmTiles::kPipe64x64:
      return run<IgemmTiles::kPipe64x64>(x, w, e, out, s, stream);
    case IgemmTiles::kPipe128x64:
      return run<IgemmTiles::kPipe128x64>(x, w, e, out, s, stream);
    case IgemmTiles::kPipe128x128:
      return run<IgemmTiles::kPipe128x128>(x, w, e, out, s, stream);
    case IgemmTiles::kWgmma128x64:
      return run<IgemmTiles::kWgmma128x64>(x, w, e, out, s, stream);
    default:
      return run<IgemmTiles::kWgmma128x128>(x, w, e, out, s, stream);
  }
}

struct Row {
  float sweep_us[kSweep];
  double sweep_error[kSweep];
  float us[kKernels];
  float cublas_us;
  double error[kKernels];
  int chosen;  ///< the column igemm_tiles picks for an sm_90a build
  double flops;
};

Row time_layer(const Conv2dShape& s, cublasHandle_t cublas, cudaStream_t stream, int sms) {
  const int64_t xn = s.n * s.c * s.h * s.w, wn = s.o * s.c * s.kh * s.kw,
                on = s.n * s.o * s.oh * s.ow;
  const int64_t m = s.n * s.oh * s.ow, k = s.c * s.kh * s.kw;
  __half *x, *w, *b, *out, *gemm_a;
  CHECK(cudaMalloc(&x, xn * sizeof(__half)));
  CHECK(cudaMalloc(&w, wn * sizeof(__half)));
  CHECK(cudaMalloc(&b, s.o * sizeof(__half)));
  CHECK(cudaMalloc(&out, on * sizeof(__half)));
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
  const IgemmTiles chosen = igemm_tiles(IgemmPlan::kNhwcVecAW, 2, m, s.o, sms, true);
  for (int column = 0; column < kKernels; ++column) {
    if (kColumns[column] == chosen) row.chosen = column;
  }
  CHECK(cudaDeviceSynchronize());
  const HostCheck check(s, x, w, b);
  for (int column = 0; column < kKernels; ++column) {
    CHECK(cudaMemsetAsync(out, 0xff, on * sizeof(__half), stream));  // NaN: unwritten shows
    CHECK(run_column(column, x, w, e, out, s, stream));
    CHECK(cudaStreamSynchronize(stream));
    row.error[column] = check.error(out);
    row.us[column] = captured_chain_us(stream, 20, 10, [&](int, cudaStream_t st) {
      return run_column(column, x, w, e, out, s, st);
    });
  }
  for (int i = 0; i < kSweep; ++i) {
    CHECK(cudaMemsetAsync(out, 0xff, on * sizeof(__half), stream));
    CHECK(run_sweep(i, x, w, e, out, s, stream));
    CHECK(cudaStreamSynchronize(stream));
    row.sweep_error[i] = check.error(out);
    row.sweep_us[i] = captured_chain_us(
        stream, 20, 10, [&](int, cudaStream_t st) { return run_sweep(i, x, w, e, out, s, st); });
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
  for (__half* p : {x, w, b, out, gemm_a}) CHECK(cudaFree(p));
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
    std::printf(
        "\nbatch %lld, us per conv (f16 NHWC, bias + relu); TFLOP/s of the chosen kernel and "
        "cuBLAS\n\n",
        static_cast<long long>(batch));
    std::printf(
        "| layer | n | staged | pipe 64x64 | pipe 128x64 | pipe 128x128 | wgmma 128x64 | wgmma "
        "128x128 | chosen | cuBLAS GEMM | chosen TFLOP/s | cuBLAS TFLOP/s | chosen / cuBLAS | "
        "error per kernel |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    std::string sweep_lines;
    struct Net {
      const char* name;  ///< nullptr: no total row
      const Layer* begin;
      const Layer* end;
    };
    const Net nets[] = {{"ResNet-18", std::begin(kResnet18), std::end(kResnet18)},
                        {"ResNet-50", std::begin(kResnet50), std::end(kResnet50)},
                        {nullptr, std::begin(kOdd), std::end(kOdd)}};
    for (const Net& net : nets) {
      float total[kKernels + 2] = {};
      for (const Layer* layer = net.begin; layer != net.end; ++layer) {
        const Layer& l = *layer;
        const int64_t oh = (l.hw + 2 * l.pad - l.k) / l.stride + 1;
        Conv2dShape s = {batch, l.c,      l.hw,     l.hw,  l.o,   l.k, l.k, oh,
                         oh,    l.stride, l.stride, l.pad, l.pad, 1,   1,   1};
        s.nhwc = true;
        const Row r = time_layer(s, cublas, stream, prop.multiProcessorCount);
        const float chosen = r.us[r.chosen];
        std::printf("| %s | %d |", l.name, l.count);
        for (int i = 0; i < kKernels; ++i) std::printf(" %.1f |", r.us[i]);
        std::printf(" %s | %.1f | %.0f | %.0f | %.2f |", igemm_tiles_name(kColumns[r.chosen]),
                    r.cublas_us, r.flops / chosen * 1e-6, r.flops / r.cublas_us * 1e-6,
                    r.cublas_us / chosen);
        for (int i = 0; i < kKernels; ++i) std::printf(" %.0e", r.error[i]);
        std::printf(" |\n");
        sweep_lines += "| " + std::string(l.name) + " |";
        for (int i = 0; i < kSweep; ++i) {
          char cell[64];
          std::snprintf(cell, sizeof cell, " %.1f (%.0e) |", r.sweep_us[i], r.sweep_error[i]);
          sweep_lines += cell;
        }
        sweep_lines += "\n";
        for (int i = 0; i < kKernels; ++i) total[i] += r.us[i] * l.count;
        total[kKernels] += chosen * l.count;
        total[kKernels + 1] += r.cublas_us * l.count;
      }
      if (net.name == nullptr) continue;
      std::printf("| %s, these convs | |", net.name);
      for (int i = 0; i < kKernels; ++i) std::printf(" %.1f |", total[i]);
      std::printf(" %.1f | %.1f | | | %.2f | |\n", total[kKernels], total[kKernels + 1],
                  total[kKernels + 1] / total[kKernels]);
    }
    std::printf("\nbatch %lld, the wgmma kernel at other pipeline depths, us (error)\n\n| layer |",
                static_cast<long long>(batch));
    for (const char* name : kSweepNames) std::printf(" %s |", name);
    std::printf("\n|---|---|---|---|---|\n%s", sweep_lines.c_str());
  }
  CHECK_CUBLAS(cublasDestroy(cublas));
  return 0;
}
