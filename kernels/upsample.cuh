// kernels/upsample.cuh: nearest and bilinear 2-D upsampling of a contiguous [planes, in_h, in_w]
// tensor into [planes, out_h, out_w], with PyTorch's source coordinates (UpSample.h):
//  - nearest: out == in copies, out == 2 in halves the index, otherwise floor(dst * s) in float,
//    clamped to the input, with s = 1 / scale when the model gave a scale factor, else in / out;
//  - bilinear: src = (dst + 0.5) s - 0.5 (at least 0), or dst (in - 1) / (out - 1) with
//    align_corners, in float (double for double); the two neighbours per dim are interpolated.
// One thread per output element (grid-stride); the host checked the sizes (ir/rules/resize.cpp).
#pragma once

#include "common.cuh"

namespace inferno::kernels {
namespace detail {

constexpr int kUpsampleThreads = 256;

template <typename A>
__device__ __forceinline__ A upsample_scale(double scale, int64_t in, int64_t out) {
  return scale > 0 ? static_cast<A>(1.0 / scale) : static_cast<A>(in) / static_cast<A>(out);
}

__device__ __forceinline__ int64_t nearest_source(int64_t dst, int64_t in, int64_t out,
                                                  double scale) {
  if (out == in) return dst;
  if (out == 2 * in) return dst >> 1;
  const float f = floorf(static_cast<float>(dst) * upsample_scale<float>(scale, in, out));
  return f < static_cast<float>(in - 1) ? static_cast<int64_t>(f) : in - 1;
}

/// The two neighbours of dst along one dim, and the second one's weight.
template <typename A>
__device__ __forceinline__ void linear_source(int64_t dst, int64_t in, int64_t out,
                                              bool align_corners, double scale, int64_t& i0,
                                              int64_t& i1, A& w1) {
  A src;
  if (align_corners) {
    const A s = out > 1 ? static_cast<A>(in - 1) / static_cast<A>(out - 1) : A(0);
    src = s * static_cast<A>(dst);
  } else {
    const A s = upsample_scale<A>(scale, in, out);
    src = s * (static_cast<A>(dst) + A(0.5)) - A(0.5);
    if (src < A(0)) src = A(0);
  }
  if (!(src < static_cast<A>(in - 1))) {  // past the last element (or a huge 1 / scale)
    i0 = i1 = in - 1;
    w1 = A(0);
    return;
  }
  i0 = static_cast<int64_t>(src);
  i1 = i0 + 1;
  w1 = src - static_cast<A>(i0);
}

template <typename T>
__global__ void __launch_bounds__(kUpsampleThreads)
    upsample2d_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t planes, int64_t in_h,
                      int64_t in_w, int64_t out_h, int64_t out_w, bool bilinear, bool align_corners,
                      double scale_h, double scale_w) {
  using A = acc_t<T>;
  const int64_t total = planes * out_h * out_w;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t w = i % out_w, h = (i / out_w) % out_h, plane = i / (out_w * out_h);
    const T* src = in + plane * in_h * in_w;
    if (!bilinear) {
      out[i] = src[nearest_source(h, in_h, out_h, scale_h) * in_w +
                   nearest_source(w, in_w, out_w, scale_w)];
      continue;
    }
    int64_t h0, h1, w0, w1;
    A lh, lw;
    linear_source<A>(h, in_h, out_h, align_corners, scale_h, h0, h1, lh);
    linear_source<A>(w, in_w, out_w, align_corners, scale_w, w0, w1, lw);
    const A top = (A(1) - lw) * to_acc(src[h0 * in_w + w0]) + lw * to_acc(src[h0 * in_w + w1]);
    const A bottom = (A(1) - lw) * to_acc(src[h1 * in_w + w0]) + lw * to_acc(src[h1 * in_w + w1]);
    out[i] = from_acc<T>((A(1) - lh) * top + lh * bottom);
  }
}

}  // namespace detail

/// Resizes `in` [planes, in_h, in_w] to `out` [planes, out_h, out_w] (see the top of the file);
/// scale_h and scale_w are the model's scale factors, 0 for none.
template <typename T>
inline cudaError_t upsample2d(const T* in, T* out, int64_t planes, int64_t in_h, int64_t in_w,
                              int64_t out_h, int64_t out_w, bool bilinear, bool align_corners,
                              double scale_h, double scale_w, cudaStream_t stream) {
  static_assert(is_float_type_v<T>, "upsample2d: float, double, __half or __nv_bfloat16");
  if (planes < 0 || in_h < 1 || in_w < 1 || out_h < 0 || out_w < 0 || !(scale_h >= 0) ||
      !(scale_w >= 0))
    return cudaErrorInvalidValue;
  const int64_t total = planes * out_h * out_w;
  if (total == 0) return cudaSuccess;
  if (in == nullptr || out == nullptr) return cudaErrorInvalidValue;
  detail::upsample2d_kernel<T>
      <<<grid_size(total, detail::kUpsampleThreads), detail::kUpsampleThreads, 0, stream>>>(
          in, out, planes, in_h, in_w, out_h, out_w, bilinear, align_corners, scale_h, scale_w);
  return cudaGetLastError();
}

}  // namespace inferno::kernels
