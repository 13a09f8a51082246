#include "codegen/conv_kernel_choice.h"

#include <cstdint>

namespace inferno::codegen {
namespace {

constexpr int64_t kMax32 = INT32_MAX;

// Coordinates the fast kernels form in 32 bits: input sizes, the farthest tap an output reaches,
// stride, dilation and padding.
bool coordinates_fit(const ConvSizes& s) {
  const int64_t reach_h = (s.oh - 1) * s.stride_h + (s.kh - 1) * s.dilation_h;
  const int64_t reach_w = (s.ow - 1) * s.stride_w + (s.kw - 1) * s.dilation_w;
  const int64_t values[] = {s.h,        s.w,       reach_h,    reach_w,      s.stride_h,
                            s.stride_w, s.pad_top, s.pad_left, s.dilation_h, s.dilation_w};
  for (const int64_t v : values) {
    if (v > kMax32) return false;
  }
  return true;
}

// conv_igemm_fits: K in 32 bits, at most 65535 tiles of 64 output channels, M tiles in 32 bits.
bool igemm_fits(const ConvSizes& s) {
  return s.groups == 1 && coordinates_fit(s) && s.c * s.kh * s.kw <= kMax32 && s.o <= 65535 * 64 &&
         (s.n * s.oh * s.ow + 63) / 64 <= kMax32;
}

// conv_depthwise_fits: planes of 256-thread rows, channel tiles of 64 and pixel groups of 4
// within the grid's limits.
bool depthwise_fits(const ConvSizes& s) {
  const int64_t plane = s.oh * s.ow;
  return s.c > 0 && s.groups == s.c && s.o % s.c == 0 && coordinates_fit(s) && s.o <= kMax32 &&
         s.kh * s.kw <= kMax32 && plane <= kMax32 - 256 && (plane + 255) / 256 <= 65535 &&
         s.n * s.o <= kMax32 && (s.o + 63) / 64 <= 65535 && (s.n * plane + 3) / 4 <= kMax32;
}

}  // namespace

ConvKernel choose_conv_kernel(const ConvSizes& s) {
  if (depthwise_fits(s)) return {"conv2d_depthwise", "kernels/conv_depthwise.cuh"};
  if (igemm_fits(s)) return {"conv2d_igemm", "kernels/conv_igemm.cuh"};
  return {"conv2d", "kernels/conv.cuh"};
}

}  // namespace inferno::codegen
