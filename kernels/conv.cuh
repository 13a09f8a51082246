// kernels/conv.cuh: conv2d and conv_transpose2d (its gather form, further down). conv2d, as
// ops.def defines it: out = activation(conv(in * gate, w) + bias + residual), where
// conv(in, w)[n, o, y, x] = sum over (ci, ky, kx) of
// in[n, g * cg + ci, y * sh - pt + ky * dh, x * sw - pl + kx * dw] * w[o, ci, ky, kx], with
// g = o / (O / groups), cg = C / groups, and reads outside the input counting as zero (padding).
// Contiguous tensors, NCHW with OIHW weights or (layout nhwc) NHWC with OHWI weights.
//
// A direct kernel: one thread per output element (grid-stride), consecutive threads along the
// output's innermost dim. It sums in float (double for double) in (ci, ky, kx) order from zero,
// then adds the bias and the residual and applies the activation in registers, and rounds once,
// as the CPU reference does, so results are bitwise reproducible run to run. No tensor cores. A
// grouped NHWC conv whose groups hold whole 16-byte pieces of output channels runs on a variant
// that stages the weights in shared memory (conv2d_grouped_nhwc_vec_kernel), the same sums.
#pragma once

#include "common.cuh"
#include "scalar_ops.h"  // the vocabulary of the activation functors model.cu defines

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
  bool nhwc = false;               ///< conv2d only: NHWC input, output and residual, OHWI weights
};

/// The operands a conv2d's epilogue reads besides the sum; each may be null (absent).
template <typename T>
struct Conv2dEpilogue {
  const T* bias = nullptr;      ///< [o]
  const T* residual = nullptr;  ///< the output's shape and layout, added before the activation
  const T* gate = nullptr;      ///< [n, c] (either layout): scales input channel (n, c)
};

/// activation "none". model.cu defines the other activations as functors of this form, their
/// bodies the expressions of the elementwise ops of those names (ops.def), in the type A that
/// the kernel accumulates in (float, or double for double).
struct ConvNoActivation {
  template <typename A>
  __device__ __forceinline__ A operator()(A a) const {
    return a;
  }
};

namespace detail {

constexpr int kConvThreads = 256;

/// Element offsets of the input and weight taps and of output `i`'s coordinates, per layout.
template <bool kNhwc>
struct ConvIndex {
  __device__ __forceinline__ static int64_t input(const Conv2dShape& s, int64_t n, int64_t c,
                                                  int64_t y, int64_t x) {
    return kNhwc ? ((n * s.h + y) * s.w + x) * s.c + c : ((n * s.c + c) * s.h + y) * s.w + x;
  }
  __device__ __forceinline__ static int64_t weight(const Conv2dShape& s, int64_t o, int64_t ci,
                                                   int64_t ky, int64_t kx) {
    const int64_t cg = s.c / s.groups;
    return kNhwc ? ((o * s.kh + ky) * s.kw + kx) * cg + ci
                 : ((o * cg + ci) * s.kh + ky) * s.kw + kx;
  }
  /// Output i as (n, o, y, x).
  __device__ __forceinline__ static void output(const Conv2dShape& s, int64_t i, int64_t& n,
                                                int64_t& o, int64_t& y, int64_t& x) {
    if (kNhwc) {
      o = i % s.o;
      x = (i / s.o) % s.ow;
      y = (i / (s.o * s.ow)) % s.oh;
      n = i / (s.o * s.ow * s.oh);
    } else {
      x = i % s.ow;
      y = (i / s.ow) % s.oh;
      o = (i / (s.ow * s.oh)) % s.o;
      n = i / (s.ow * s.oh * s.o);
    }
  }
};

template <typename T, bool kNhwc, typename Act>
__global__ void __launch_bounds__(kConvThreads)
    conv2d_direct_kernel(const T* __restrict__ in, const T* __restrict__ w,
                         Conv2dEpilogue<T> epilogue, T* __restrict__ out, Conv2dShape s,
                         int64_t total, Act activation) {
  using A = acc_t<T>;
  using Index = ConvIndex<kNhwc>;
  const int64_t cg = s.c / s.groups, og = s.o / s.groups;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t n, o, y, x;
    Index::output(s, i, n, o, y, x);
    const int64_t g = o / og;
    const int64_t y0 = y * s.stride_h - s.pad_top, x0 = x * s.stride_w - s.pad_left;
    A acc = 0;
    for (int64_t ci = 0; ci < cg; ++ci) {
      const int64_t c = g * cg + ci;
      const A gate = epilogue.gate != nullptr ? to_acc(epilogue.gate[n * s.c + c]) : A(1);
      for (int64_t ky = 0; ky < s.kh; ++ky) {
        const int64_t iy = y0 + ky * s.dilation_h;
        const bool row_in = iy >= 0 && iy < s.h;
        for (int64_t kx = 0; kx < s.kw; ++kx) {
          const int64_t ix = x0 + kx * s.dilation_w;
          // A padded read adds 0 * w (not skipped: the reference adds it too, and it keeps
          // NaN and inf weights propagating as they do in PyTorch)
          A v = (row_in && ix >= 0 && ix < s.w) ? to_acc(in[Index::input(s, n, c, iy, ix)]) : A(0);
          if (epilogue.gate != nullptr) v *= gate;
          acc += v * to_acc(w[Index::weight(s, o, ci, ky, kx)]);
        }
      }
    }
    // Absent terms are not added (adding 0 would turn -0 into +0), as in the reference.
    if (epilogue.bias != nullptr) acc += to_acc(epilogue.bias[o]);
    if (epilogue.residual != nullptr) acc += to_acc(epilogue.residual[i]);
    out[i] = from_acc<T>(activation(acc));
  }
}

/// Finishes the sums of the 16 bytes of output channels o, o + 1, ... at NHWC output element `at`
/// as the direct kernel finishes one (+ bias, + residual, the activation, one rounding) and
/// stores them as one piece; the residual, when there is one, is read as one piece too.
template <typename T, typename Act>
__device__ __forceinline__ void finish_pack(const acc_t<T>* sum, const Conv2dEpilogue<T>& e,
                                            int64_t o, int64_t at, T* out, Act activation) {
  constexpr int V = kPack16<T>;
  Pack<T, V> residual{}, result;
  if (e.residual != nullptr) residual = load_pack<V>(e.residual + at);
  for (int k = 0; k < V; ++k) {
    acc_t<T> total = sum[k];
    if (e.bias != nullptr) total += to_acc(e.bias[o + k]);
    if (e.residual != nullptr) total += to_acc(residual.v[k]);
    result.v[k] = from_acc<T>(activation(total));
  }
  store_pack(out + at, result);
}

/// NHWC grouped convolution (RegNet's, ResNeXt's), V = 16 / sizeof(T) output channels of one
/// pixel a thread, all in one group (O / groups a multiple of V), so each input element it reads
/// feeds V sums. The block covers 64 output channels of 256 / (64 / V) pixels and first stages
/// their weights in shared memory as [tap][ci][channel], one broadcast read per term, where the
/// direct kernel above reads each thread's weight a whole filter apart. The same terms in the
/// same order (ci, then ky, kx) as the direct kernel.
constexpr int kGroupedChannels = 64, kGroupedThreads = 256, kGroupedMaxTerms = 128;

template <typename T, typename Act>
__global__ void __launch_bounds__(kGroupedThreads)
    conv2d_grouped_nhwc_vec_kernel(const T* __restrict__ in, const T* __restrict__ w,
                                   Conv2dEpilogue<T> epilogue, T* __restrict__ out, Conv2dShape s,
                                   int64_t pixels, Act activation) {
  using A = acc_t<T>;
  constexpr int V = kPack16<T>;
  constexpr int kVectors = kGroupedChannels / V, kPixels = kGroupedThreads / kVectors;
  __shared__ A weights[kGroupedMaxTerms * kGroupedChannels];  // [tap][ci][channel]
  const int cg = static_cast<int>(s.c / s.groups), og = static_cast<int>(s.o / s.groups);
  const int taps = static_cast<int>(s.kh * s.kw), terms = taps * cg;
  const int64_t o0 = static_cast<int64_t>(blockIdx.y) * kGroupedChannels;
  const int channels = static_cast<int>(min(static_cast<int64_t>(kGroupedChannels), s.o - o0));
  for (int i = threadIdx.x; i < channels * terms; i += kGroupedThreads) {
    const int ch = i / terms, r = i - ch * terms;  // w [O, kh, kw, cg]: r = tap * cg + ci
    weights[r * kGroupedChannels + ch] = to_acc(w[(o0 + ch) * terms + r]);
  }
  __syncthreads();
  const int vec = threadIdx.x % kVectors;
  const int64_t o = o0 + vec * V;
  const int64_t pixel = static_cast<int64_t>(blockIdx.x) * kPixels + threadIdx.x / kVectors;
  if (o >= s.o || pixel >= pixels) return;
  const int64_t x = pixel % s.ow, y = (pixel / s.ow) % s.oh, n = pixel / (s.ow * s.oh);
  const int64_t c0 = o / og * cg;
  const int64_t y0 = y * s.stride_h - s.pad_top, x0 = x * s.stride_w - s.pad_left;
  A sum[V];
  for (int k = 0; k < V; ++k) sum[k] = 0;
  for (int ci = 0; ci < cg; ++ci) {
    const A gate = epilogue.gate != nullptr ? to_acc(epilogue.gate[n * s.c + c0 + ci]) : A(1);
    for (int64_t ky = 0; ky < s.kh; ++ky) {
      const int64_t iy = y0 + ky * s.dilation_h;
      const bool row_in = iy >= 0 && iy < s.h;
      for (int64_t kx = 0; kx < s.kw; ++kx) {
        const int64_t ix = x0 + kx * s.dilation_w;
        A v = (row_in && ix >= 0 && ix < s.w)
                  ? to_acc(in[((n * s.h + iy) * s.w + ix) * s.c + c0 + ci])
                  : A(0);  // a padded read adds 0 * w, as above
        if (epilogue.gate != nullptr) v *= gate;
        const A* wr = weights + ((ky * s.kw + kx) * cg + ci) * kGroupedChannels + vec * V;
        for (int k = 0; k < V; ++k) sum[k] += v * wr[k];
      }
    }
  }
  finish_pack<T>(sum, epilogue, o, pixel * s.o + o, out, activation);
}

/// Whether the grouped 16-byte kernel takes the shape and pointers (16-bit and f32 only: the
/// launcher never instantiates it for double, whose staged weights would not fit).
template <typename T>
inline bool grouped_vec_fits(const Conv2dEpilogue<T>& e, const T* out, const Conv2dShape& s) {
  constexpr int kVector = kPack16<T>;
  const T* residual = e.residual != nullptr ? e.residual : out;
  return s.nhwc && s.groups > 1 && packs_fit<T>(kVector, s.o / s.groups, out, residual) &&
         s.kh * s.kw * (s.c / s.groups) <= kGroupedMaxTerms &&
         (s.o + kGroupedChannels - 1) / kGroupedChannels <= 65535 &&
         (s.n * s.oh * s.ow) / (kGroupedThreads / (kGroupedChannels / kVector)) < INT32_MAX;
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
  if (!detail::conv_shape_valid(s) || s.nhwc) return cudaErrorInvalidValue;
  const int64_t total = s.n * s.o * s.oh * s.ow;
  if (total == 0) return cudaSuccess;
  detail::conv_transpose2d_direct_kernel<T>
      <<<grid_size(total, detail::kConvThreads), detail::kConvThreads, 0, stream>>>(in, w, bias,
                                                                                    out, s, total);
  return cudaGetLastError();
}

/// conv2d of contiguous `in` with weights `w` into `out` (NCHW and OIHW, or NHWC and OHWI when
/// s.nhwc), then the epilogue's operands and `activation` (ConvNoActivation: none).
template <typename T, typename Act = ConvNoActivation>
inline cudaError_t conv2d(const T* in, const T* w, const Conv2dEpilogue<T>& epilogue, T* out,
                          const Conv2dShape& s, cudaStream_t stream, Act activation = {}) {
  static_assert(is_float_type_v<T>, "conv2d: a floating-point element type");
  if (!detail::conv_shape_valid(s)) return cudaErrorInvalidValue;
  const int64_t total = s.n * s.o * s.oh * s.ow;
  if (total == 0) return cudaSuccess;
  if constexpr (sizeof(T) < 8) {  // double's staged weights would not fit shared memory
    if (detail::grouped_vec_fits(epilogue, out, s)) {
      constexpr int64_t kPixels = detail::kGroupedThreads * kPack16<T> / detail::kGroupedChannels;
      const int64_t pixels = s.n * s.oh * s.ow;
      const dim3 grid(
          static_cast<unsigned>((pixels + kPixels - 1) / kPixels),
          static_cast<unsigned>((s.o + detail::kGroupedChannels - 1) / detail::kGroupedChannels));
      detail::conv2d_grouped_nhwc_vec_kernel<T, Act><<<grid, detail::kGroupedThreads, 0, stream>>>(
          in, w, epilogue, out, s, pixels, activation);
      return cudaGetLastError();
    }
  }
  const unsigned blocks = grid_size(total, detail::kConvThreads);
  if (s.nhwc) {
    detail::conv2d_direct_kernel<T, true, Act>
        <<<blocks, detail::kConvThreads, 0, stream>>>(in, w, epilogue, out, s, total, activation);
  } else {
    detail::conv2d_direct_kernel<T, false, Act>
        <<<blocks, detail::kConvThreads, 0, stream>>>(in, w, epilogue, out, s, total, activation);
  }
  return cudaGetLastError();
}

}  // namespace inferno::kernels
