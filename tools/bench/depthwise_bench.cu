// Times the NHWC depthwise convolutions of the zoo's CNNs (ConvNeXt-Tiny's 7x7, MobileNet v2's
// 3x3, EfficientNet-B0's 3x3 and 5x5; 224x224 input) in f16 with a bias and ReLU: the generic
// 16-byte kernel (DepthwisePlan::kGeneric) against the strip kernel the shape's plan names
// (kernels/conv_depthwise.cuh), with strips of 2, 4 (the launcher's) and 8 pixels. Each figure is
// the median over 10 replays of a CUDA graph of 20 launches, per launch; "of copy" is the traffic
// (input + output bytes) over the time, as a share of a device-to-device copy's bandwidth measured
// in the same run (read + write bytes per second). "max diff" is the largest |strip - generic| over
// the whole output (the default strip): the two kernels add the same terms in the same order, so it
// should be 0.
//
//   nvcc -std=c++17 -O3 -arch=sm_90 -I. tools/bench/depthwise_bench.cu -o depthwise_bench
//   ./depthwise_bench [batch ...]        (default: 1 32)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_conv_data.cuh"
#include "bench_cuda_check.h"
#include "bench_graph_timing.h"
#include "kernels/conv_depthwise.cuh"

using namespace inferno::kernels;

struct Shape {
  const char* model;
  int64_t c, hw, k, stride;
};

const Shape kShapes[] = {
    {"convnext", 96, 56, 7, 1},      {"convnext", 192, 28, 7, 1},
    {"convnext", 384, 14, 7, 1},     {"convnext", 768, 7, 7, 1},
    {"mobilenet_v2", 32, 112, 3, 1}, {"mobilenet_v2", 96, 112, 3, 2},
    {"mobilenet_v2", 144, 56, 3, 1}, {"mobilenet_v2", 192, 28, 3, 1},
    {"mobilenet_v2", 576, 14, 3, 1}, {"mobilenet_v2", 960, 7, 3, 1},
    {"efficientnet", 144, 56, 5, 2}, {"efficientnet", 240, 28, 5, 1},
    {"efficientnet", 672, 14, 5, 1}, {"efficientnet", 1152, 7, 5, 1},
};

/// Read + write bytes per second of a device-to-device copy of 256 MB.
double copy_bandwidth(cudaStream_t stream) {
  constexpr size_t kBytes = size_t{256} << 20;
  void *a, *b;
  CHECK(cudaMalloc(&a, kBytes));
  CHECK(cudaMalloc(&b, kBytes));
  const float us = captured_chain_us(stream, 5, 10, [&](int, cudaStream_t s) {
    return cudaMemcpyAsync(b, a, kBytes, cudaMemcpyDeviceToDevice, s);
  });
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  return 2.0 * kBytes / (us * 1e-6);
}

/// The strip kernel of `plan` with strips of kPixels pixels (the launcher's is
/// kDepthwiseStripPixels); kGeneric: the launcher with the generic kernels only.
template <int kPixels>
cudaError_t launch(DepthwisePlan plan, const __half* x, const __half* w,
                   const Conv2dEpilogue<__half>& e, __half* out, const Conv2dShape& s,
                   cudaStream_t stream) {
  if (plan == DepthwisePlan::kGeneric)
    return conv2d_depthwise<__half, DepthwisePlan::kGeneric>(x, w, e, out, s, stream, Relu{});
  const detail::DepthwiseGeom g = detail::depthwise_geom(s);
  const bool launched = visit_strip_plan(plan, false, [&](auto strip) {
    return detail::launch_depthwise_strip<__half, decltype(strip)::value, Relu, kPixels>(
        x, w, e, out, s, g, stream, Relu{});
  });
  return launched ? cudaGetLastError() : cudaErrorInvalidValue;
}

int main(int argc, char** argv) {
  std::vector<int64_t> batches;
  for (int i = 1; i < argc; ++i) batches.push_back(std::atoll(argv[i]));
  if (batches.empty()) batches = {1, 32};
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  const double copy = copy_bandwidth(stream);
  std::printf("device-to-device copy: %.0f GB/s (read + write)\n\n", copy * 1e-9);
  std::printf(
      "| shape | batch | generic us | strip of 2 us | strip of %d us (default) | "
      "strip of 8 us | default / generic | default of copy | max diff |\n"
      "|---|---|---|---|---|---|---|---|---|\n",
      kDepthwiseStripPixels);
  for (const int64_t batch : batches) {
    double generic_total = 0, strip_total = 0;
    for (const Shape& l : kShapes) {
      const int64_t pad = l.k / 2, oh = (l.hw + 2 * pad - l.k) / l.stride + 1;
      Conv2dShape s{batch, l.c,      l.hw,     l.hw, l.c, l.k, l.k, oh,
                    oh,    l.stride, l.stride, pad,  pad, 1,   1,   l.c};
      s.nhwc = true;
      const int64_t in_count = batch * l.hw * l.hw * l.c, out_count = batch * oh * oh * l.c;
      __half *x, *w, *bias, *out_generic, *out_strip;
      CHECK(cudaMalloc(&x, in_count * sizeof(__half)));
      CHECK(cudaMalloc(&w, l.c * l.k * l.k * sizeof(__half)));
      CHECK(cudaMalloc(&bias, l.c * sizeof(__half)));
      CHECK(cudaMalloc(&out_generic, out_count * sizeof(__half)));
      CHECK(cudaMalloc(&out_strip, out_count * sizeof(__half)));
      fill<<<256, 256, 0, stream>>>(x, in_count, 1);
      fill<<<256, 256, 0, stream>>>(w, l.c * l.k * l.k, 2);
      fill<<<256, 256, 0, stream>>>(bias, l.c, 3);
      Conv2dEpilogue<__half> e;
      e.bias = bias;
      const DepthwisePlan plan = depthwise_plan(true, l.c, l.c, l.k, l.k, l.stride, l.stride, 1, 1);
      const float generic_us = captured_chain_us(stream, 20, 10, [&](int, cudaStream_t st) {
        return launch<kDepthwiseStripPixels>(DepthwisePlan::kGeneric, x, w, e, out_generic, s, st);
      });
      const float strip2_us = captured_chain_us(stream, 20, 10, [&](int, cudaStream_t st) {
        return launch<2>(plan, x, w, e, out_strip, s, st);
      });
      const float strip8_us = captured_chain_us(stream, 20, 10, [&](int, cudaStream_t st) {
        return launch<8>(plan, x, w, e, out_strip, s, st);
      });
      const float strip_us = captured_chain_us(stream, 20, 10, [&](int, cudaStream_t st) {
        return launch<kDepthwiseStripPixels>(plan, x, w, e, out_strip, s, st);
      });
      CHECK(cudaStreamSynchronize(stream));
      const std::vector<float> a = download_floats(out_generic, out_count),
                               b = download_floats(out_strip, out_count);
      double diff = 0;
      for (size_t i = 0; i < a.size(); ++i) diff = std::fmax(diff, std::fabs(a[i] - b[i]));
      const double bytes = static_cast<double>(in_count + out_count) * sizeof(__half);
      const std::string name = std::string(l.model) + " " + std::to_string(l.k) + "x" +
                               std::to_string(l.k) + "/" + std::to_string(l.stride) + " C" +
                               std::to_string(l.c) + " @" + std::to_string(l.hw);
      std::printf("| %s | %lld | %.1f | %.1f | %.1f | %.1f | %.2f | %.0f%% | %g |\n", name.c_str(),
                  static_cast<long long>(batch), generic_us, strip2_us, strip_us, strip8_us,
                  strip_us / generic_us, 100.0 * bytes / (strip_us * 1e-6) / copy, diff);
      generic_total += generic_us;
      strip_total += strip_us;
      for (void* p : {static_cast<void*>(x), static_cast<void*>(w), static_cast<void*>(bias),
                      static_cast<void*>(out_generic), static_cast<void*>(out_strip)})
        CHECK(cudaFree(p));
    }
    std::printf("| all shapes above, once each | %lld | %.1f | | %.1f | | %.2f | | |\n",
                static_cast<long long>(batch), generic_total, strip_total,
                strip_total / generic_total);
  }
  CHECK(cudaStreamDestroy(stream));
  return 0;
}
