// kernels/pool.cuh: 2-D pooling over the last two dims of a contiguous [planes, in_h, in_w] tensor
// into [planes, out_h, out_w], or over the middle two of a channels-last [n, in_h, in_w, c] one
// (pool2d_nhwc): max and average pooling with kernel, stride, padding and dilation (max only), and
// adaptive max and average pooling, with PyTorch's window arithmetic:
//  - fixed windows start at o * stride - padding; max pads with -inf (NaN wins, as in PyTorch),
//    average divides by `divisor` when it is nonzero, else by the window clipped to the padded
//    input (count_include_pad) or to the input, and writes 0 for a window with no input element;
//  - adaptive window o of `out` over `in` is [floor(o * in / out), ceil((o + 1) * in / out)).
// One thread per output element (grid-stride; NHWC: per 16 bytes of a pixel's channels), summing
// in float (double for double) in a fixed order, so results are bitwise reproducible. Windows are
// clipped to the input before the loops, so a thread's work is bounded by the input whatever the
// kernel size. The host checked the geometry (ir/rules/pool.cpp): attributes below 2^31, and in *
// out within int64 for adaptive.
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

/// One output element's window: its first tap, tap count and step per dim, and what an average
/// divides by (see the top of the file).
template <typename A>
struct PoolWindow {
  int64_t h0, hn, dh, w0, wn, dw;
  A divide;
};

struct PoolGeometry {
  int64_t in_h, in_w, out_h, out_w, kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w,
      dilation_h, dilation_w;
  PoolMode mode;
  bool count_include_pad;
  int64_t divisor;
};

template <typename A>
__device__ __forceinline__ PoolWindow<A> pool_window(const PoolGeometry& g, int64_t oh,
                                                     int64_t ow) {
  PoolWindow<A> win{0, 0, 1, 0, 0, 1, A(1)};
  if (g.mode == PoolMode::kAdaptiveMax || g.mode == PoolMode::kAdaptiveAvg) {
    win.h0 = oh * g.in_h / g.out_h;
    win.hn = ((oh + 1) * g.in_h + g.out_h - 1) / g.out_h - win.h0;
    win.w0 = ow * g.in_w / g.out_w;
    win.wn = ((ow + 1) * g.in_w + g.out_w - 1) / g.out_w - win.w0;
    win.divide = static_cast<A>(win.hn * win.wn);
    return win;
  }
  const int64_t hs = oh * g.stride_h - g.pad_h, ws = ow * g.stride_w - g.pad_w;
  if (g.mode == PoolMode::kMax) {
    win.dh = g.dilation_h;
    win.dw = g.dilation_w;
  }
  pool_taps(hs, g.kernel_h, win.dh, g.in_h, win.h0, win.hn);
  pool_taps(ws, g.kernel_w, win.dw, g.in_w, win.w0, win.wn);
  if (g.mode == PoolMode::kAvg) {
    const int64_t he = min(hs + g.kernel_h, g.in_h + g.pad_h);
    const int64_t we = min(ws + g.kernel_w, g.in_w + g.pad_w);
    win.divide = static_cast<A>(g.divisor != 0        ? g.divisor
                                : g.count_include_pad ? (he - hs) * (we - ws)
                                                      : win.hn * win.wn);
  }
  return win;
}

__device__ __forceinline__ bool pool_is_max(PoolMode mode) {
  return mode == PoolMode::kMax || mode == PoolMode::kAdaptiveMax;
}

/// NCHW: one thread per output element of [planes, out_h, out_w].
template <typename T>
__global__ void __launch_bounds__(kPoolThreads)
    pool2d_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t planes, PoolGeometry g) {
  using A = acc_t<T>;
  const int64_t total = planes * g.out_h * g.out_w;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t ow = i % g.out_w, oh = (i / g.out_w) % g.out_h, plane = i / (g.out_w * g.out_h);
    const T* src = in + plane * g.in_h * g.in_w;
    const PoolWindow<A> win = pool_window<A>(g, oh, ow);
    const bool is_max = pool_is_max(g.mode);
    A r = is_max ? -acc_infinity<A>() : A(0);
    for (int64_t a = 0; a < win.hn; ++a) {
      const T* row = src + (win.h0 + a * win.dh) * g.in_w + win.w0;
      for (int64_t b = 0; b < win.wn; ++b) {
        const A v = to_acc(row[b * win.dw]);
        r = is_max ? max_nan(r, v) : r + v;
      }
    }
    if (!is_max) r = win.hn == 0 || win.wn == 0 ? A(0) : r / win.divide;
    out[i] = from_acc<T>(r);
  }
}

/// NHWC: one thread per `V` channels of one output pixel of [n, out_h, out_w, c] (c a multiple of
/// V), so a warp reads whole 16-byte pieces of neighbouring channels for every tap.
template <typename T, int V>
__global__ void __launch_bounds__(kPoolThreads)
    pool2d_nhwc_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t n, int64_t c,
                       PoolGeometry g) {
  using A = acc_t<T>;
  using Piece = Pack<T, V>;
  const int64_t packs = c / V, total = n * g.out_h * g.out_w * packs;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t p = i % packs, pixel = i / packs;
    const int64_t ow = pixel % g.out_w, oh = (pixel / g.out_w) % g.out_h;
    const int64_t image = pixel / (g.out_w * g.out_h);
    const Piece* src = reinterpret_cast<const Piece*>(in) + image * g.in_h * g.in_w * packs + p;
    const PoolWindow<A> win = pool_window<A>(g, oh, ow);
    const bool is_max = pool_is_max(g.mode);
    A r[V];
    for (int k = 0; k < V; ++k) r[k] = is_max ? -acc_infinity<A>() : A(0);
    for (int64_t a = 0; a < win.hn; ++a) {
      const Piece* row = src + ((win.h0 + a * win.dh) * g.in_w + win.w0) * packs;
      for (int64_t b = 0; b < win.wn; ++b) {
        const Piece x = row[b * win.dw * packs];
        for (int k = 0; k < V; ++k) {
          const A v = to_acc(x.v[k]);
          r[k] = is_max ? max_nan(r[k], v) : r[k] + v;
        }
      }
    }
    Piece y;
    for (int k = 0; k < V; ++k) {
      if (!is_max) r[k] = win.hn == 0 || win.wn == 0 ? A(0) : r[k] / win.divide;
      y.v[k] = from_acc<T>(r[k]);
    }
    reinterpret_cast<Piece*>(out)[i] = y;
  }
}

/// The arguments every launcher checks: false when they make no sense.
inline bool pool_geometry_valid(const PoolGeometry& g) {
  return g.in_h >= 1 && g.in_w >= 1 && g.out_h >= 0 && g.out_w >= 0 && g.kernel_h >= 1 &&
         g.kernel_w >= 1 && g.stride_h >= 1 && g.stride_w >= 1 && g.pad_h >= 0 && g.pad_w >= 0 &&
         g.dilation_h >= 1 && g.dilation_w >= 1;
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
  const detail::PoolGeometry g{
      in_h,  in_w,  out_h,      out_w,      kernel_h, kernel_w,          stride_h, stride_w,
      pad_h, pad_w, dilation_h, dilation_w, mode,     count_include_pad, divisor};
  if (planes < 0 || !detail::pool_geometry_valid(g)) return cudaErrorInvalidValue;
  const int64_t total = planes * out_h * out_w;
  if (total == 0) return cudaSuccess;
  if (in == nullptr || out == nullptr) return cudaErrorInvalidValue;
  detail::pool2d_kernel<T>
      <<<grid_size(total, detail::kPoolThreads), detail::kPoolThreads, 0, stream>>>(in, out, planes,
                                                                                    g);
  return cudaGetLastError();
}

/// The same pooling over channels-last tensors: `in` [n, in_h, in_w, c] into `out` [n, out_h,
/// out_w, c]. Channels go 16 bytes at a time when c and both pointers allow it, else one by one.
template <typename T>
inline cudaError_t pool2d_nhwc(const T* in, T* out, int64_t n, int64_t c, int64_t in_h,
                               int64_t in_w, int64_t out_h, int64_t out_w, int64_t kernel_h,
                               int64_t kernel_w, int64_t stride_h, int64_t stride_w, int64_t pad_h,
                               int64_t pad_w, int64_t dilation_h, int64_t dilation_w, PoolMode mode,
                               bool count_include_pad, int64_t divisor, cudaStream_t stream) {
  static_assert(is_float_type_v<T>, "pool2d_nhwc: float, double, __half or __nv_bfloat16");
  const detail::PoolGeometry g{
      in_h,  in_w,  out_h,      out_w,      kernel_h, kernel_w,          stride_h, stride_w,
      pad_h, pad_w, dilation_h, dilation_w, mode,     count_include_pad, divisor};
  if (n < 0 || c < 1 || !detail::pool_geometry_valid(g)) return cudaErrorInvalidValue;
  const int64_t pixels = n * out_h * out_w;
  if (pixels == 0) return cudaSuccess;
  if (in == nullptr || out == nullptr) return cudaErrorInvalidValue;
  constexpr int kVector = kPack16<T>;
  const bool vectors = packs_fit<T>(kVector, c, in, out);
  const int64_t total = pixels * (vectors ? c / kVector : c);
  const unsigned blocks = grid_size(total, detail::kPoolThreads);
  if (vectors) {
    detail::pool2d_nhwc_kernel<T, kVector>
        <<<blocks, detail::kPoolThreads, 0, stream>>>(in, out, n, c, g);
  } else {
    detail::pool2d_nhwc_kernel<T, 1><<<blocks, detail::kPoolThreads, 0, stream>>>(in, out, n, c, g);
  }
  return cudaGetLastError();
}

}  // namespace inferno::kernels
