// kernels/conv_depthwise_plan.h: which of conv2d_depthwise's NHWC kernels a depthwise conv's
// shape selects, for host and device. The strip kernel (conv_depthwise.cuh) is instantiated per
// kernel size and stride, so a launcher that chose at run time would carry all six of them for
// each dtype and activation; codegen knows the shape and names the plan, so model.cu instantiates
// only the one it runs. Plain C++17 with no CUDA headers: codegen (src/codegen/emit_conv.cpp)
// and the launcher read the same rule.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/host_device.h"

namespace inferno::kernels {

/// kAny: the launcher decides at run time (tests, benchmarks, callers without a plan), among
/// every kernel. kGeneric: the 16-byte or element kernel only, for any shape. kStrip*: the strip
/// kernel for a square KxK window of stride S (dilation 1, one output channel per input channel,
/// NHWC); the launcher still falls back to the generic kernels where C or the pointers do not allow
/// 16-byte pieces.
enum class DepthwisePlan : int {
  kAny = 0,
  kGeneric,
  kStrip3x3s1,
  kStrip3x3s2,
  kStrip5x5s1,
  kStrip5x5s2,
  kStrip7x7s1,
  kStrip7x7s2,
};

/// The window size of a strip plan (0 for kAny and kGeneric).
INFERNO_HD constexpr int depthwise_plan_taps(DepthwisePlan plan) {
  switch (plan) {
    case DepthwisePlan::kStrip3x3s1:
    case DepthwisePlan::kStrip3x3s2:
      return 3;
    case DepthwisePlan::kStrip5x5s1:
    case DepthwisePlan::kStrip5x5s2:
      return 5;
    case DepthwisePlan::kStrip7x7s1:
    case DepthwisePlan::kStrip7x7s2:
      return 7;
    default:
      return 0;
  }
}

/// The stride of a strip plan (0 for kAny and kGeneric).
INFERNO_HD constexpr int depthwise_plan_stride(DepthwisePlan plan) {
  switch (plan) {
    case DepthwisePlan::kStrip3x3s1:
    case DepthwisePlan::kStrip5x5s1:
    case DepthwisePlan::kStrip7x7s1:
      return 1;
    case DepthwisePlan::kStrip3x3s2:
    case DepthwisePlan::kStrip5x5s2:
    case DepthwisePlan::kStrip7x7s2:
      return 2;
    default:
      return 0;
  }
}

/// The plan for a depthwise conv (groups == C) of c input and o output channels, a kh x kw
/// window, strides and dilations, in layout `nhwc`: a strip plan where one exists for the shape,
/// else kGeneric.
INFERNO_HD constexpr DepthwisePlan depthwise_plan(bool nhwc, int64_t c, int64_t o, int64_t kh,
                                                  int64_t kw, int64_t stride_h, int64_t stride_w,
                                                  int64_t dilation_h, int64_t dilation_w) {
  if (!nhwc || c != o || kh != kw || stride_h != stride_w || dilation_h != 1 || dilation_w != 1)
    return DepthwisePlan::kGeneric;
  const bool s1 = stride_h == 1, s2 = stride_h == 2;
  if (!s1 && !s2) return DepthwisePlan::kGeneric;
  switch (kh) {
    case 3:
      return s1 ? DepthwisePlan::kStrip3x3s1 : DepthwisePlan::kStrip3x3s2;
    case 5:
      return s1 ? DepthwisePlan::kStrip5x5s1 : DepthwisePlan::kStrip5x5s2;
    case 7:
      return s1 ? DepthwisePlan::kStrip7x7s1 : DepthwisePlan::kStrip7x7s2;
    default:
      return DepthwisePlan::kGeneric;
  }
}

/// Output pixels a strip kernel's thread computes along a row.
constexpr int64_t kDepthwiseStripPixels = 4;
/// Threads below which the strip kernel does not pay: with a quarter of the generic kernel's
/// threads, a small conv leaves the GPU too few warps to hide its loads' latency. Measured on an
/// H100 (tools/bench/depthwise_bench.cu, f16): every zoo shape at batch 32 (43K threads and more)
/// ran 0.29-1.03x the generic kernel's time, every one at batch 1 (1.3K-14K threads) 0.76-1.51x.
constexpr int64_t kDepthwiseStripMinThreads = 32768;

/// Whether the strip kernel pays for an NHWC depthwise conv of n images of oh x ow output pixels
/// and c channels of `element_bytes` each (16 bytes of channels a thread).
INFERNO_HD constexpr bool depthwise_strips_pay(int64_t n, int64_t oh, int64_t ow, int64_t c,
                                               int64_t element_bytes) {
  const int64_t strips = n * oh * ((ow + kDepthwiseStripPixels - 1) / kDepthwiseStripPixels);
  return strips * (c * element_bytes / 16) >= kDepthwiseStripMinThreads;
}

/// f(std::integral_constant<DepthwisePlan, P>{}) for the strip plan P that `plan` is, so that a
/// caller choosing at run time instantiates its template once per strip plan; `otherwise` for
/// kAny and kGeneric.
template <typename R, typename F>
R visit_strip_plan(DepthwisePlan plan, R otherwise, F&& f) {
  switch (plan) {
#define INFERNO_STRIP_PLAN(P) \
  case DepthwisePlan::P:      \
    return f(std::integral_constant<DepthwisePlan, DepthwisePlan::P>{});
    INFERNO_STRIP_PLAN(kStrip3x3s1)
    INFERNO_STRIP_PLAN(kStrip3x3s2)
    INFERNO_STRIP_PLAN(kStrip5x5s1)
    INFERNO_STRIP_PLAN(kStrip5x5s2)
    INFERNO_STRIP_PLAN(kStrip7x7s1)
    INFERNO_STRIP_PLAN(kStrip7x7s2)
#undef INFERNO_STRIP_PLAN
    default:
      return otherwise;
  }
}

/// The plan's name as codegen writes it into model.cu ("kStrip7x7s1").
constexpr const char* depthwise_plan_name(DepthwisePlan plan) {
  switch (plan) {
    case DepthwisePlan::kAny:
      return "kAny";
    case DepthwisePlan::kGeneric:
      return "kGeneric";
    case DepthwisePlan::kStrip3x3s1:
      return "kStrip3x3s1";
    case DepthwisePlan::kStrip3x3s2:
      return "kStrip3x3s2";
    case DepthwisePlan::kStrip5x5s1:
      return "kStrip5x5s1";
    case DepthwisePlan::kStrip5x5s2:
      return "kStrip5x5s2";
    case DepthwisePlan::kStrip7x7s1:
      return "kStrip7x7s1";
    case DepthwisePlan::kStrip7x7s2:
      return "kStrip7x7s2";
  }
  return "kAny";
}

}  // namespace inferno::kernels
