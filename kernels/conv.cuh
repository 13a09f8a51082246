// kernels/conv.cuh: conv2d and conv_transpose2d (its gather form, further down). conv2d:
// out[n, o, y, x] = bias[o] + sum over (ci, ky, kx) of
// in[n, g * cg + ci, y * sh - pt + ky * dh, x * sw - pl + kx * dw] * w[o, ci, ky, kx], with
// g = o / (O / groups), cg = C / groups, and reads outside the input counting as zero (padding).
// Contiguous NCHW input and output, OIHW weights.
//
// A direct kernel: one thread per output element (grid-stride), consecutive threads along the
// output row, so a warp reads one weight at a time (a broadcast) and neighbouring inputs. It sums
// in float (double for double) in (ci, ky, kx) order from zero and adds the bias last, as the CPU
// reference does, so results are bitwise reproducible run to run. Correct first: no tensor cores,
// no shared-memory tiling; an implicit-GEMM kernel is the next step for speed.
#pragma once

#include "common.cuh"

namespace inferno::kernels {

/// The sizes of one conv2d, all in elements.
struct Conv2dShape {
  int64_t n, c, h, w;              ///< input [n, c, h, w]
  int64_t o, kh, kw;               ///< weight [o, c / groups, kh, kw]
  int64_t oh, ow;                  ///< output [n, o, oh, ow]
  int64_t stride_h, stride_w;      ///< >= 1
  int64_t pad_top, pad_left;       ///< >= 0 (padding after is implied by oh and ow)
  int64_t dilation_h, dilation_w;  ///< >= 1
  int64_t groups;                  ///< >= 1, divides c and o
};

namespace detail {

constexpr int kConvThreads = 256;

template <typename T>
__global__ void __launch_bounds__(kConvThreads)
    conv2d_direct_kernel(const T* __restrict__ in, const T* __restrict__ w,
                         const T* __restrict__ bias, T* __restrict__ out, Conv2dShape s,
                         int64_t total) {
  using A = acc_t<T>;
  const int64_t cg = s.c / s.groups, og = s.o / s.groups;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t x = i % s.ow, y = (i / s.ow) % s.oh, o = (i / (s.ow * s.oh)) % s.o,
                  n = i / (s.ow * s.oh * s.o);
    const int64_t g = o / og;
    const int64_t y0 = y * s.stride_h - s.pad_top, x0 = x * s.stride_w - s.pad_left;
    const T* wo = w + o * cg * s.kh * s.kw;
    A acc = 0;
    for (int64_t ci = 0; ci < cg; ++ci) {
      const T* plane = in + ((n * s.c + g * cg + ci) * s.h) * s.w;
      const T* wk = wo + ci * s.kh * s.kw;
      for (int64_t ky = 0; ky < s.kh; ++ky) {
        const int64_t iy = y0 + ky * s.dilation_h;
        const bool row_in = iy >= 0 && iy < s.h;
        for (int64_t kx = 0; kx < s.kw; ++kx) {
          const int64_t ix = x0 + kx * s.dilation_w;
          // A padded read adds 0 * w (not skipped: the reference adds it too, and it keeps
          // NaN and inf weights propagating as they do in PyTorch)
          const A v = (row_in && ix >= 0 && ix < s.w) ? to_acc(plane[iy * s.w + ix]) : A(0);
          acc += v * to_acc(wk[ky * s.kw + kx]);
        }
      }
    }
    if (bias != nullptr) acc += to_acc(bias[o]);
    out[i] = from_acc<T>(acc);
  }
}

/// conv_transpose2d, gathered: output (y, x) takes input (iy, ix) through tap (ky, kx) where
/// y = iy * sh - pt + ky * dh (and likewise for x); taps that meet no input add nothing.
template <typename T>
__global__ void __launch_bounds__(kConvThreads)
    conv_transpose2d_direct_kernel(const T* __restrict__ in, const T* __restrict__ w,
                                   const T* __restrict__ bias, T* __restrict__ out, Conv2dShape s,
                                   int64_t total) {
  using A = acc_t<T>;
  const int64_t cg = s.c / s.groups, og = s.o / s.groups;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t x = i % s.ow, y = (i / s.ow) % s.oh, o = (i / (s.ow * s.oh)) % s.o,
                  n = i / (s.ow * s.oh * s.o);
    const int64_t g = o / og, oc = o % og;
    A acc = 0;
    for (int64_t ci = g * cg; ci < (g + 1) * cg; ++ci) {
      const T* plane = in + ((n * s.c + ci) * s.h) * s.w;
      const T* wk = w + (ci * og + oc) * s.kh * s.kw;
      for (int64_t ky = 0; ky < s.kh; ++ky) {
        const int64_t ty = y + s.pad_top - ky * s.dilation_h;
        if (ty < 0 || ty % s.stride_h != 0 || ty / s.stride_h >= s.h) continue;
        const int64_t iy = ty / s.stride_h;
        for (int64_t kx = 0; kx < s.kw; ++kx) {
          const int64_t tx = x + s.pad_left - kx * s.dilation_w;
          if (tx < 0 || tx % s.stride_w != 0 || tx / s.stride_w >= s.w) continue;
          acc += to_acc(plane[iy * s.w + tx / s.stride_w]) * to_acc(wk[ky * s.kw + kx]);
        }
      }
    }
    if (bias != nullptr) acc += to_acc(bias[o]);
    out[i] = from_acc<T>(acc);
  }
}

/// The checks both launchers make: sizes >= 0, stride and dilation >= 1, groups dividing c and o.
inline bool conv_shape_valid(const Conv2dShape& s) {
  const int64_t sizes[] = {s.n, s.c, s.h, s.w, s.o, s.kh, s.kw, s.oh, s.ow, s.pad_top, s.pad_left};
  for (const int64_t v : sizes) {
    if (v < 0) return false;
  }
  return s.stride_h >= 1 && s.stride_w >= 1 && s.dilation_h >= 1 && s.dilation_w >= 1 &&
         s.groups >= 1 && s.c % s.groups == 0 && s.o % s.groups == 0;
}

}  // namespace detail

/// conv_transpose2d of contiguous NCHW `in` with [c, o / groups, kh, kw] weights `w` into NCHW
/// `out`; `bias` (o values) may be null. The shape's fields mean what they do for conv2d, with
/// pad_top and pad_left the padding taken off each side.
template <typename T>
inline cudaError_t conv_transpose2d(const T* in, const T* w, const T* bias, T* out,
                                    const Conv2dShape& s, cudaStream_t stream) {
  static_assert(is_float_type_v<T>, "conv_transpose2d: a floating-point element type");
  if (!detail::conv_shape_valid(s)) return cudaErrorInvalidValue;
  const int64_t total = s.n * s.o * s.oh * s.ow;
  if (total == 0) return cudaSuccess;
  detail::conv_transpose2d_direct_kernel<T>
      <<<grid_size(total, detail::kConvThreads), detail::kConvThreads, 0, stream>>>(in, w, bias,
                                                                                    out, s, total);
  return cudaGetLastError();
}

/// conv2d of contiguous NCHW `in` with OIHW `w` into NCHW `out`; `bias` (o values) may be null.
template <typename T>
inline cudaError_t conv2d(const T* in, const T* w, const T* bias, T* out, const Conv2dShape& s,
                          cudaStream_t stream) {
  static_assert(is_float_type_v<T>, "conv2d: a floating-point element type");
  if (!detail::conv_shape_valid(s)) return cudaErrorInvalidValue;
  const int64_t total = s.n * s.o * s.oh * s.ow;
  if (total == 0) return cudaSuccess;
  detail::conv2d_direct_kernel<T>
      <<<grid_size(total, detail::kConvThreads), detail::kConvThreads, 0, stream>>>(in, w, bias,
                                                                                    out, s, total);
  return cudaGetLastError();
}

}  // namespace inferno::kernels
