// Times the conv2d kernels on ResNet-18's convolutions (224x224 input): the direct kernel
// (kernels/conv.cuh, NCHW) and the implicit GEMM (kernels/conv_igemm.cuh) in NCHW and NHWC, in f32
// and f16, at batch 1 and 8. Each figure is the mean time of one launch inside a replayed CUDA
// graph (as the runtime runs a model), so host overhead is not in it; inputs are random, weights
// and outputs distinct buffers. Prints one row per layer shape and a row summing each column over
// the 20 convolutions of the network. tools/bench/conv_torch_bench.py times
// torch.nn.functional.conv2d on the same shapes.
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -I. tools/bench/conv_kernels_bench.cu -o conv_bench &&
//   ./conv_bench
#include <cstdio>
#include <vector>

#include "bench_conv_data.cuh"
#include "bench_cuda_check.h"
#include "kernels/conv.cuh"
#include "kernels/conv_igemm.cuh"

using namespace inferno::kernels;

struct Layer {
  const char* name;
  int count;  ///< times it occurs in ResNet-18
  int64_t c, hw, o, k, stride, pad;
};

const Layer kLayers[] = {
    {"stem 7x7/2 3->64 @224", 1, 3, 224, 64, 7, 2, 3},
    {"3x3 64->64 @56", 4, 64, 56, 64, 3, 1, 1},
    {"3x3/2 64->128 @56", 1, 64, 56, 128, 3, 2, 1},
    {"3x3 128->128 @28", 3, 128, 28, 128, 3, 1, 1},
    {"1x1/2 64->128 @56", 1, 64, 56, 128, 1, 2, 0},
    {"3x3/2 128->256 @28", 1, 128, 28, 256, 3, 2, 1},
    {"3x3 256->256 @14", 3, 256, 14, 256, 3, 1, 1},
    {"1x1/2 128->256 @28", 1, 128, 28, 256, 1, 2, 0},
    {"3x3/2 256->512 @14", 1, 256, 14, 512, 3, 2, 1},
    {"3x3 512->512 @7", 3, 512, 7, 512, 3, 1, 1},
    {"1x1/2 256->512 @14", 1, 256, 14, 512, 1, 2, 0},
};

/// Microseconds per launch: 20 launches captured into a CUDA graph (as a model's run is replayed),
/// the graph replayed 5 times between two events after one warm-up replay.
template <typename F>
float time_us(F launch) {
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CHECK(launch(stream));  // checks the arguments outside the capture
  constexpr int kLaunches = 20, kReplays = 5;
  cudaGraph_t graph;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < kLaunches; ++i) CHECK(launch(stream));
  CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphLaunch(exec, stream));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start, stream));
  for (int i = 0; i < kReplays; ++i) CHECK(cudaGraphLaunch(exec, stream));
  CHECK(cudaEventRecord(stop, stream));
  CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
  return ms * 1000 / (kLaunches * kReplays);
}

/// direct, igemm NCHW, igemm NHWC for one layer in T.
template <typename T>
void time_layer(const Conv2dShape& s, float* us) {
  const int64_t xn = s.n * s.c * s.h * s.w, wn = s.o * s.c * s.kh * s.kw,
                on = s.n * s.o * s.oh * s.ow;
  T *x, *w, *b, *out;
  CHECK(cudaMalloc(&x, xn * sizeof(T)));
  CHECK(cudaMalloc(&w, wn * sizeof(T)));
  CHECK(cudaMalloc(&b, s.o * sizeof(T)));
  CHECK(cudaMalloc(&out, on * sizeof(T)));
  fill<<<256, 256>>>(x, xn, 1);
  fill<<<256, 256>>>(w, wn, 2);
  fill<<<256, 256>>>(b, s.o, 3);
  Conv2dEpilogue<T> e;
  e.bias = b;
  Conv2dShape nhwc = s;
  nhwc.nhwc = true;
  us[0] = time_us([&](cudaStream_t st) { return conv2d<T>(x, w, e, out, s, st, Relu{}); });
  us[1] = time_us([&](cudaStream_t st) { return conv2d_igemm<T>(x, w, e, out, s, st, Relu{}); });
  us[2] = time_us([&](cudaStream_t st) { return conv2d_igemm<T>(x, w, e, out, nhwc, st, Relu{}); });
  cudaFree(x);
  cudaFree(w);
  cudaFree(b);
  cudaFree(out);
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s\n", prop.name);
  for (const int64_t batch : {1, 8}) {
    std::printf("\nbatch %lld, microseconds per conv (bias + relu epilogue)\n",
                static_cast<long long>(batch));
    std::printf("%-24s %3s | %9s %9s %9s | %9s %9s %9s\n", "layer", "n", "f32 dir", "f32 nchw",
                "f32 nhwc", "f16 dir", "f16 nchw", "f16 nhwc");
    float total[6] = {};
    for (const Layer& l : kLayers) {
      const int64_t oh = (l.hw + 2 * l.pad - l.k) / l.stride + 1;
      const Conv2dShape s = {batch, l.c,      l.hw,     l.hw,  l.o,   l.k, l.k, oh,
                             oh,    l.stride, l.stride, l.pad, l.pad, 1,   1,   1};
      float us[6];
      time_layer<float>(s, us);
      time_layer<__half>(s, us + 3);
      std::printf("%-24s %3d | %9.1f %9.1f %9.1f | %9.1f %9.1f %9.1f\n", l.name, l.count, us[0],
                  us[1], us[2], us[3], us[4], us[5]);
      for (int i = 0; i < 6; ++i) total[i] += us[i] * l.count;
    }
    std::printf("%-24s %3d | %9.1f %9.1f %9.1f | %9.1f %9.1f %9.1f\n", "resnet18 convs", 20,
                total[0], total[1], total[2], total[3], total[4], total[5]);
  }
  return 0;
}
