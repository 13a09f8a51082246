// kernels/pool.cuh: 2-D pooling over the last two dims of a contiguous [planes, in_h, in_w] tensor
// into [planes, out_h, out_w]: max and average pooling with kernel, stride, padding and dilation
// (max only), and adaptive max and average pooling, with PyTorch's window arithmetic:
//  - fixed windows start at o * stride - padding; max pads with -inf (NaN wins, as in PyTorch),
//    average divides by `divisor` when it is nonzero, else by the window clipped to the padded
//    input (count_include_pad) or to the input, and writes 0 for a window with no input element;
//  - adaptive window o of `out` over `in` is [floor(o * in / out), ceil((o + 1) * in / out)).
// One thread per output element (grid-stride), summing in float (double for double) in a fixed
// order, so results are bitwise reproducible. Windows are clipped to the input before the loops,
// so a thread's work is bounded by the input whatever the kernel size. The host checked the
// geometry (ir/rules/pool.cpp): attributes below 2^31, and in * out within int64 for adaptive.
#pragma once

#include "common.cuh"

namespace inferno::kernels {

enum class PoolMode : int { kMax, kAvg, kAdaptiveMax, kAdaptiveAvg };

namespace detail {

constexpr int kPoolThreads = 256;

/// The taps start + k * dilation (k < kernel) inside [0, in): the first one and their count.
__device__ __forceinline__ void pool_taps(int64_t start, int64_t kernel, int64_t dilation,
                                          int64_t in, int64_t& first, int64_t& count) {
  const int64_t k0 = start < 0 ? (-start + dilation - 1) / dilation : 0;
  first = start + k0 * dilation;
  if (first >= in) {
    count = 0;
    return;
  }
  const int64_t k1 = min(kernel, (in - 1 - start) / dilation + 1);
  count = k1 > k0 ? k1 - k0 : 0;
}

template <typename T>
__global__ void __launch_bounds__(kPoolThreads)
    pool2d_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t planes, int64_t in_h,
                  int64_t in_w, int64_t out_h, int64_t out_w, int64_t kernel_h, int64_t kernel_w,
                  int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w,
                  int64_t dilation_h, int64_t dilation_w, PoolMode mode, bool count_include_pad,
                  int64_t divisor) {
  using A = acc_t<T>;
  const int64_t total = planes * out_h * out_w;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t ow = i % out_w, oh = (i / out_w) % out_h, plane = i / (out_w * out_h);
    const T* src = in + plane * in_h * in_w;
    int64_t h0, hn, w0, wn, dh = 1, dw = 1;  // first tap, tap count and step per dim
    A divide = 1;
    const bool adaptive = mode == PoolMode::kAdaptiveMax || mode == PoolMode::kAdaptiveAvg;
    if (adaptive) {
      h0 = oh * in_h / out_h;
      hn = ((oh + 1) * in_h + out_h - 1) / out_h - h0;
      w0 = ow * in_w / out_w;
      wn = ((ow + 1) * in_w + out_w - 1) / out_w - w0;
      divide = static_cast<A>(hn * wn);
    } else {
      const int64_t hs = oh * stride_h - pad_h, ws = ow * stride_w - pad_w;
      if (mode == PoolMode::kMax) {
        dh = dilation_h;
        dw = dilation_w;
      }
      pool_taps(hs, kernel_h, dh, in_h, h0, hn);
      pool_taps(ws, kernel_w, dw, in_w, w0, wn);
      if (mode == PoolMode::kAvg) {
        const int64_t he = min(hs + kernel_h, in_h + pad_h), we = min(ws + kernel_w, in_w + pad_w);
        divide = static_cast<A>(divisor != 0        ? divisor
                                : count_include_pad ? (he - hs) * (we - ws)
                                                    : hn * wn);
      }
    }
    A r;
    if (mode == PoolMode::kMax || mode == PoolMode::kAdaptiveMax) {
      r = -acc_infinity<A>();
      for (int64_t a = 0; a < hn; ++a) {
        const T* row = src + (h0 + a * dh) * in_w + w0;
        for (int64_t b = 0; b < wn; ++b) r = max_nan(r, to_acc(row[b * dw]));
      }
    } else if (hn == 0 || wn == 0) {
      r = 0;
    } else {
      r = 0;
      for (int64_t a = 0; a < hn; ++a) {
        const T* row = src + (h0 + a * dh) * in_w + w0;
        for (int64_t b = 0; b < wn; ++b) r += to_acc(row[b * dw]);
      }
      r = r / divide;
    }
    out[i] = from_acc<T>(r);
  }
}

}  // namespace detail

/// Pools `in` [planes, in_h, in_w] into `out` [planes, out_h, out_w] (see the top of the file);
/// dilation applies to kMax, count_include_pad and divisor (0: none) to kAvg, and the kernel,
/// stride and padding to neither adaptive mode.
template <typename T>
inline cudaError_t pool2d(const T* in, T* out, int64_t planes, int64_t in_h, int64_t in_w,
                          int64_t out_h, int64_t out_w, int64_t kernel_h, int64_t kernel_w,
                          int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w,
                          int64_t dilation_h, int64_t dilation_w, PoolMode mode,
                          bool count_include_pad, int64_t divisor, cudaStream_t stream) {
  static_assert(is_float_type_v<T>, "pool2d: float, double, __half or __nv_bfloat16");
  if (planes < 0 || in_h < 1 || in_w < 1 || out_h < 0 || out_w < 0 || kernel_h < 1 ||
      kernel_w < 1 || stride_h < 1 || stride_w < 1 || pad_h < 0 || pad_w < 0 || dilation_h < 1 ||
      dilation_w < 1)
    return cudaErrorInvalidValue;
  const int64_t total = planes * out_h * out_w;
  if (total == 0) return cudaSuccess;
  if (in == nullptr || out == nullptr) return cudaErrorInvalidValue;
  detail::pool2d_kernel<T>
      <<<grid_size(total, detail::kPoolThreads), detail::kPoolThreads, 0, stream>>>(
          in, out, planes, in_h, in_w, out_h, out_w, kernel_h, kernel_w, stride_h, stride_w, pad_h,
          pad_w, dilation_h, dilation_w, mode, count_include_pad, divisor);
  return cudaGetLastError();
}

}  // namespace inferno::kernels
