// kernels/conv_depthwise.cuh: depthwise conv2d (groups == C; O = C * multiplier, each output
// channel o reading input channel o / multiplier), any kernel size, stride, dilation and padding,
// in either layout, with conv.cuh's operands, epilogue and launcher signature.
//
// A direct kernel, as an implicit GEMM gains nothing here (K = kh * kw is a handful of taps):
// one thread per output element, summing its taps in (ky, kx) order in float (double for f64).
//   - NCHW: a block row covers 256 pixels of one output plane (n, o): the plane's taps are the
//     same weights for every thread (broadcast reads) and neighbouring threads read neighbouring
//     inputs.
//   - NHWC: a block covers 64 consecutive channels of 4 pixels, so a warp reads 32 consecutive
//     channels of one input pixel per tap; where channels come in 16-byte pieces, a thread sums
//     a whole piece with the block's weights staged in shared memory (the vec kernel below).
// Both layouts keep the weights as [O, kh, kw] (OIHW and OHWI agree when C / groups is 1).
// Padded taps add 0 * w, as the direct kernel and the reference do (NaN weights propagate).
#pragma once

#include "common.cuh"
#include "conv.cuh"
#include "conv_depthwise_plan.h"

namespace inferno::kernels {
namespace detail {

/// A depthwise conv's sizes in 32 bits (conv_depthwise_fits checks that they fit).
struct DepthwiseGeom {
  int c, h, w, o, kh, kw, oh, ow;
  int sh, sw, pt, pl, dh, dw;
  int multiplier;  ///< o / c
};

/// The sizes of a shape conv_depthwise_fits takes.
inline DepthwiseGeom depthwise_geom(const Conv2dShape& s) {
  return {
      static_cast<int>(s.c),          static_cast<int>(s.h),          static_cast<int>(s.w),
      static_cast<int>(s.o),          static_cast<int>(s.kh),         static_cast<int>(s.kw),
      static_cast<int>(s.oh),         static_cast<int>(s.ow),         static_cast<int>(s.stride_h),
      static_cast<int>(s.stride_w),   static_cast<int>(s.pad_top),    static_cast<int>(s.pad_left),
      static_cast<int>(s.dilation_h), static_cast<int>(s.dilation_w), static_cast<int>(s.o / s.c)};
}

/// The sum over the taps of output (n, o, oy, ox), gated input channel o / multiplier; `plane`
/// points at that input plane's (0, 0) and `step` is the distance between neighbouring pixels of
/// a row (1 in NCHW, C in NHWC).
template <typename T>
__device__ __forceinline__ acc_t<T> depthwise_sum(const T* plane, int64_t step, const T* taps,
                                                  acc_t<T> gate, const DepthwiseGeom& g, int oy,
                                                  int ox) {
  using A = acc_t<T>;
  const int iy0 = oy * g.sh - g.pt, ix0 = ox * g.sw - g.pl;
  A sum = 0;
  for (int ky = 0; ky < g.kh; ++ky) {
    const int iy = iy0 + ky * g.dh;
    const bool row_in = iy >= 0 && iy < g.h;
    for (int kx = 0; kx < g.kw; ++kx) {
      const int ix = ix0 + kx * g.dw;
      const A v = (row_in && ix >= 0 && ix < g.w)
                      ? to_acc(plane[(static_cast<int64_t>(iy) * g.w + ix) * step]) * gate
                      : A(0);
      sum += v * to_acc(taps[ky * g.kw + kx]);
    }
  }
  return sum;
}

/// The sum plus bias[o] and residual[at] (absent terms not added, so -0 stays -0), activated and
/// rounded once.
template <typename T, typename Act>
__device__ __forceinline__ T depthwise_finish(acc_t<T> sum, const Conv2dEpilogue<T>& e, int o,
                                              int64_t at, Act activation) {
  if (e.bias != nullptr) sum += to_acc(e.bias[o]);
  if (e.residual != nullptr) sum += to_acc(e.residual[at]);
  return from_acc<T>(activation(sum));
}

constexpr int kDepthwisePlaneThreads = 256;

/// NCHW: blockIdx.x is the output plane n * O + o, blockIdx.y * 256 + threadIdx.x the pixel.
template <typename T, typename Act>
__global__ void __launch_bounds__(kDepthwisePlaneThreads)
    conv2d_depthwise_nchw_kernel(const T* __restrict__ x, const T* __restrict__ w,
                                 T* __restrict__ out, Conv2dEpilogue<T> e, DepthwiseGeom g,
                                 Act activation) {
  const int pixel = static_cast<int>(blockIdx.y) * kDepthwisePlaneThreads + threadIdx.x;
  if (pixel >= g.oh * g.ow) return;
  const int64_t out_plane = blockIdx.x;
  const int64_t n = out_plane / g.o;
  const int o = static_cast<int>(out_plane - n * g.o), c = o / g.multiplier;
  const acc_t<T> gate = e.gate != nullptr ? to_acc(e.gate[n * g.c + c]) : acc_t<T>(1);
  const int oy = pixel / g.ow, ox = pixel - oy * g.ow;
  const T* plane = x + (n * g.c + c) * static_cast<int64_t>(g.h) * g.w;
  const acc_t<T> sum =
      depthwise_sum(plane, 1, w + static_cast<int64_t>(o) * g.kh * g.kw, gate, g, oy, ox);
  const int64_t at = out_plane * g.oh * g.ow + pixel;
  out[at] = depthwise_finish<T>(sum, e, o, at, activation);
}

constexpr int kDepthwiseChannels = 64, kDepthwisePixels = 4;

/// NHWC: blockIdx.x * 4 + threadIdx.y is the output pixel (n, oy, ox), blockIdx.y * 64 +
/// threadIdx.x the output channel.
template <typename T, typename Act>
__global__ void __launch_bounds__(kDepthwiseChannels* kDepthwisePixels)
    conv2d_depthwise_nhwc_kernel(const T* __restrict__ x, const T* __restrict__ w,
                                 T* __restrict__ out, Conv2dEpilogue<T> e, DepthwiseGeom g,
                                 int64_t pixels, Act activation) {
  const int o = static_cast<int>(blockIdx.y) * kDepthwiseChannels + threadIdx.x;
  const int64_t pixel = static_cast<int64_t>(blockIdx.x) * kDepthwisePixels + threadIdx.y;
  if (o >= g.o || pixel >= pixels) return;
  const int64_t plane_size = static_cast<int64_t>(g.oh) * g.ow;
  const int64_t n = pixel / plane_size;
  const int p = static_cast<int>(pixel - n * plane_size);
  const int oy = p / g.ow, ox = p - oy * g.ow, c = o / g.multiplier;
  const acc_t<T> gate = e.gate != nullptr ? to_acc(e.gate[n * g.c + c]) : acc_t<T>(1);
  const T* image = x + n * g.h * static_cast<int64_t>(g.w) * g.c + c;
  const acc_t<T> sum =
      depthwise_sum(image, g.c, w + static_cast<int64_t>(o) * g.kh * g.kw, gate, g, oy, ox);
  const int64_t at = pixel * g.o + o;
  out[at] = depthwise_finish<T>(sum, e, o, at, activation);
}

/// NHWC, 16-byte pieces (multiplier 1, C a multiple of the piece, aligned pointers, at most
/// kDepthwiseVecMaxTaps taps): a block covers 64 channels of 256 / (64 / V) pixels, a thread V
/// channels of one pixel. The block first stages its channels' taps in shared memory as
/// [tap][channel], so that every tap's weights are one broadcast read, where the element kernel
/// above reads each thread's weight kh * kw elements apart; each tap's input is one 16-byte load.
/// The sums are the element kernel's, term for term.
constexpr int kDepthwiseVecChannels = 64, kDepthwiseVecThreads = 256, kDepthwiseVecMaxTaps = 64;

static_assert(kDepthwiseVecChannels == kDepthwiseChannels, "both NHWC kernels share the grid's y");

template <typename T, typename Act>
__global__ void __launch_bounds__(kDepthwiseVecThreads)
    conv2d_depthwise_nhwc_vec_kernel(const T* __restrict__ x, const T* __restrict__ w,
                                     T* __restrict__ out, Conv2dEpilogue<T> e, DepthwiseGeom g,
                                     int64_t pixels, Act activation) {
  using A = acc_t<T>;
  constexpr int V = kPack16<T>;
  constexpr int kVectors = kDepthwiseVecChannels / V, kPixels = kDepthwiseVecThreads / kVectors;
  __shared__ A taps[kDepthwiseVecMaxTaps * kDepthwiseVecChannels];  // [tap][channel]
  const int c0 = static_cast<int>(blockIdx.y) * kDepthwiseVecChannels;
  const int ntaps = g.kh * g.kw, channels = min(kDepthwiseVecChannels, g.o - c0);
  for (int i = threadIdx.x; i < ntaps * channels; i += kDepthwiseVecThreads) {
    const int ch = i / ntaps, t = i - ch * ntaps;  // w [O, taps]: coalesced reads
    taps[t * kDepthwiseVecChannels + ch] = to_acc(w[static_cast<int64_t>(c0 + ch) * ntaps + t]);
  }
  __syncthreads();
  const int vec = threadIdx.x % kVectors, o = c0 + vec * V;
  const int64_t pixel = static_cast<int64_t>(blockIdx.x) * kPixels + threadIdx.x / kVectors;
  if (o >= g.o || pixel >= pixels) return;
  const int64_t plane_size = static_cast<int64_t>(g.oh) * g.ow;
  const int64_t n = pixel / plane_size;
  const int p = static_cast<int>(pixel - n * plane_size);
  const int oy = p / g.ow, ox = p - oy * g.ow;
  A gate[V], sum[V];
  for (int k = 0; k < V; ++k) {
    gate[k] = e.gate != nullptr ? to_acc(e.gate[n * g.c + o + k]) : A(1);
    sum[k] = 0;
  }
  const T* image = x + n * g.h * static_cast<int64_t>(g.w) * g.c + o;
  const int iy0 = oy * g.sh - g.pt, ix0 = ox * g.sw - g.pl;
  for (int ky = 0; ky < g.kh; ++ky) {
    const int iy = iy0 + ky * g.dh;
    const bool row_in = iy >= 0 && iy < g.h;
    for (int kx = 0; kx < g.kw; ++kx) {
      const int ix = ix0 + kx * g.dw;
      Pack<T, V> in{};  // padded taps add 0 * w, as the element kernel does
      if (row_in && ix >= 0 && ix < g.w)
        in = load_pack<V>(image + (static_cast<int64_t>(iy) * g.w + ix) * g.c);
      const A* tap = taps + (ky * g.kw + kx) * kDepthwiseVecChannels + vec * V;
      for (int k = 0; k < V; ++k) sum[k] += to_acc(in.v[k]) * gate[k] * tap[k];
    }
  }
  finish_pack<T>(sum, e, o, pixel * g.o + o, out, activation);
}

/// NHWC, a strip of kDepthwiseStripPixels output pixels along a row a thread, V = 16 bytes of
/// channels (the vec kernel's pieces), for a square kTaps x kTaps window of stride kStride and
/// dilation 1 (DepthwisePlan). Why: the vec kernel reads every input piece once per tap that
/// covers it (kTaps^2 loads and conversions an output piece) and recomputes each tap's address;
/// here a window row's (R - 1) * kStride + kTaps input pieces are loaded once (all issued
/// before the first is used), converted once and fed to the R outputs they reach, against that
/// row's taps held in registers: 10 loads for 4 outputs of a 7x7 row instead of 28, and the
/// loop is unrolled at compile time. The block covers `vecs` pieces of channels (all of C, or an
/// even share of it when C has more than 32 pieces or its taps would not fit kStripSmemBytes)
/// of `strips` strips, and stages those channels' taps in shared memory as [tap][channel].
/// The sums are the element kernel's term for term: each output adds its taps in (ky, kx)
/// order, padded taps as 0 * w.
constexpr int kDepthwiseStripThreads = 256, kDepthwiseStripMaxVecs = 32;
constexpr int64_t kDepthwiseStripSmemBytes = 32 * 1024;

/// The strip kernel's launch for a shape: pieces of channels and strips a block, the grid and its
/// shared memory.
struct DepthwiseStripGrid {
  int vecs = 0, strips = 0, strips_per_row = 0;
  int64_t total_strips = 0;
  dim3 grid;
  size_t smem = 0;
};

template <typename T, int kTaps, int kPixels = static_cast<int>(kDepthwiseStripPixels)>
inline DepthwiseStripGrid depthwise_strip_grid(const Conv2dShape& s) {
  constexpr int V = kPack16<T>;
  const int64_t vecs = s.c / V;
  const int64_t fit = kDepthwiseStripSmemBytes / (kTaps * kTaps * V * sizeof(acc_t<T>));
  const int64_t most = fit < kDepthwiseStripMaxVecs ? fit : kDepthwiseStripMaxVecs;
  const int64_t parts = (vecs + most - 1) / most;
  DepthwiseStripGrid g;
  g.vecs = static_cast<int>((vecs + parts - 1) / parts);
  g.strips = kDepthwiseStripThreads / g.vecs;
  g.strips_per_row = static_cast<int>((s.ow + kPixels - 1) / kPixels);
  g.total_strips = s.n * s.oh * g.strips_per_row;
  g.grid = dim3(static_cast<unsigned>((g.total_strips + g.strips - 1) / g.strips),
                static_cast<unsigned>(parts));
  g.smem = static_cast<size_t>(kTaps * kTaps) * g.vecs * V * sizeof(acc_t<T>);
  return g;
}

// Two blocks an SM (at most 128 registers a thread) for strips of up to 4 pixels: one block
// of 256 threads at ~150 registers left 8 warps an SM to hide the loads' latency.
template <typename T, int kTaps, int kStride, typename Act,
          int kPixels = static_cast<int>(kDepthwiseStripPixels)>
__global__ void __launch_bounds__(kDepthwiseStripThreads, kPixels <= 4 ? 2 : 1)
    conv2d_depthwise_nhwc_strip_kernel(const T* __restrict__ x, const T* __restrict__ w,
                                       T* __restrict__ out, Conv2dEpilogue<T> e, DepthwiseGeom g,
                                       int vecs, int strips, int strips_per_row,
                                       int64_t total_strips, Act activation) {
  using A = acc_t<T>;
  constexpr int V = kPack16<T>, R = kPixels, kTapCount = kTaps * kTaps;
  constexpr int kSpan = (R - 1) * kStride + kTaps;  // input pixels a window row of a strip reads
  constexpr int kAccPack = 16 / static_cast<int>(sizeof(A));
  static_assert(V % kAccPack == 0, "a piece's taps are whole 16-byte loads of A");
  extern __shared__ __align__(16) unsigned char strip_smem[];
  A* taps = reinterpret_cast<A*>(strip_smem);  // [tap][channel of the block]
  const int block_channels = vecs * V;
  const int c0 = static_cast<int>(blockIdx.y) * block_channels;
  const int channels = min(block_channels, g.c - c0);
  for (int i = threadIdx.x; i < kTapCount * channels; i += blockDim.x) {
    const int ch = i / kTapCount, t = i - ch * kTapCount;  // w [C, taps]: coalesced reads
    taps[t * block_channels + ch] = to_acc(w[static_cast<int64_t>(c0 + ch) * kTapCount + t]);
  }
  __syncthreads();
  const int vec = static_cast<int>(threadIdx.x) % vecs, o = c0 + vec * V;
  const int64_t strip = static_cast<int64_t>(blockIdx.x) * strips + threadIdx.x / vecs;
  if (o >= g.c || strip >= total_strips) return;
  const int64_t row = strip / strips_per_row;  // n * oh + oy
  const int ox0 = static_cast<int>(strip - row * strips_per_row) * R;
  const int64_t n = row / g.oh;
  const int oy = static_cast<int>(row - n * g.oh);
  const bool gated = e.gate != nullptr;
  A gate[V], acc[R][V];
#pragma unroll
  for (int k = 0; k < V; ++k) {
    gate[k] = gated ? to_acc(e.gate[n * g.c + o + k]) : A(1);
#pragma unroll
    for (int r = 0; r < R; ++r) acc[r][k] = 0;
  }
  const T* image = x + n * g.h * static_cast<int64_t>(g.w) * g.c + o;
  const int ix0 = ox0 * kStride - g.pl, iy0 = oy * kStride - g.pt;
  for (int ky = 0; ky < kTaps; ++ky) {
    const int iy = iy0 + ky;
    const bool row_in = iy >= 0 && iy < g.h;
    const T* in_row = image + static_cast<int64_t>(iy) * g.w * g.c;
    Pack<T, V> in[kSpan];
#pragma unroll
    for (int j = 0; j < kSpan; ++j) {
      const int ix = ix0 + j;
      in[j] = Pack<T, V>{};  // padded taps add 0 * w, as the element kernel does
      if (row_in && ix >= 0 && ix < g.w)
        in[j] = load_pack<V>(in_row + static_cast<int64_t>(ix) * g.c);
    }
    A wk[kTaps][V];
#pragma unroll
    for (int kx = 0; kx < kTaps; ++kx) {
      const A* tap = taps + (ky * kTaps + kx) * block_channels + vec * V;
#pragma unroll
      for (int q = 0; q < V; q += kAccPack) {
        const Pack<A, kAccPack> p = load_pack<kAccPack>(tap + q);
#pragma unroll
        for (int k = 0; k < kAccPack; ++k) wk[kx][q + k] = p.v[k];
      }
    }
#pragma unroll
    for (int j = 0; j < kSpan; ++j) {
      A v[V];
#pragma unroll
      for (int k = 0; k < V; ++k) v[k] = to_acc(in[j].v[k]) * gate[k];
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const int kx = j - r * kStride;  // output ox0 + r reads input ix0 + j through tap kx
        if (kx >= 0 && kx < kTaps) {
#pragma unroll
          for (int k = 0; k < V; ++k) acc[r][k] += v[k] * wk[kx][k];
        }
      }
    }
  }
#pragma unroll
  for (int r = 0; r < R; ++r) {
    if (ox0 + r < g.ow)
      finish_pack<T>(acc[r], e, o, ((row * g.ow) + ox0 + r) * g.c + o, out, activation);
  }
}

/// Whether the 16-byte kernel takes the (NHWC) shape and pointers.
template <typename T>
inline bool depthwise_vec_fits(const T* in, const Conv2dEpilogue<T>& e, const T* out,
                               const Conv2dShape& s) {
  const T* residual = e.residual != nullptr ? e.residual : out;
  return s.nhwc && s.o == s.c && s.kh * s.kw <= kDepthwiseVecMaxTaps &&
         packs_fit<T>(kPack16<T>, s.c, in, out) && packs_fit<T>(kPack16<T>, s.c, residual, out);
}

/// Launches the strip kernel of plan kPlan (a strip plan) where the shape is the plan's and the
/// 16-byte pieces fit; false (nothing launched) otherwise.
template <typename T, DepthwisePlan kPlan, typename Act,
          int kPixels = static_cast<int>(kDepthwiseStripPixels)>
inline bool launch_depthwise_strip(const T* in, const T* w, const Conv2dEpilogue<T>& epilogue,
                                   T* out, const Conv2dShape& s, const DepthwiseGeom& g,
                                   cudaStream_t stream, Act activation) {
  constexpr int kTaps = depthwise_plan_taps(kPlan), kStride = depthwise_plan_stride(kPlan);
  static_assert(kTaps > 0, "a strip plan");
  if (depthwise_plan(s.nhwc, s.c, s.o, s.kh, s.kw, s.stride_h, s.stride_w, s.dilation_h,
                     s.dilation_w) != kPlan ||
      !depthwise_vec_fits(in, epilogue, out, s))
    return false;
  const DepthwiseStripGrid grid = depthwise_strip_grid<T, kTaps, kPixels>(s);
  if (grid.grid.y > 65535 || (grid.total_strips + grid.strips - 1) / grid.strips > INT32_MAX)
    return false;
  conv2d_depthwise_nhwc_strip_kernel<T, kTaps, kStride, Act, kPixels>
      <<<grid.grid, grid.vecs * grid.strips, grid.smem, stream>>>(
          in, w, out, epilogue, g, grid.vecs, grid.strips, grid.strips_per_row, grid.total_strips,
          activation);
  return true;
}

/// kAny: the strip plan the shape has, chosen at run time (every strip kernel instantiated),
/// where the strips pay (depthwise_strips_pay).
template <typename T, typename Act>
inline bool launch_depthwise_strip_any(const T* in, const T* w, const Conv2dEpilogue<T>& e, T* out,
                                       const Conv2dShape& s, const DepthwiseGeom& g,
                                       cudaStream_t stream, Act act) {
  if (!depthwise_strips_pay(s.n, s.oh, s.ow, s.c, sizeof(T))) return false;
  const DepthwisePlan plan = depthwise_plan(s.nhwc, s.c, s.o, s.kh, s.kw, s.stride_h, s.stride_w,
                                            s.dilation_h, s.dilation_w);
  return visit_strip_plan(plan, false, [&](auto strip) {
    return launch_depthwise_strip<T, decltype(strip)::value>(in, w, e, out, s, g, stream, act);
  });
}

}  // namespace detail

/// Whether conv2d_depthwise takes this shape: groups == C, O a multiple of C, sizes and
/// coordinates in 32 bits, the grid within CUDA's limits.
inline bool conv_depthwise_fits(const Conv2dShape& s) {
  constexpr int64_t kMax = INT32_MAX;
  if (!detail::conv_shape_valid(s) || s.groups != s.c || s.c == 0 || s.o % s.c != 0) return false;
  const int64_t reach_h = (s.oh - 1) * s.stride_h + (s.kh - 1) * s.dilation_h;
  const int64_t reach_w = (s.ow - 1) * s.stride_w + (s.kw - 1) * s.dilation_w;
  const int64_t plane = s.oh * s.ow;
  return s.o <= kMax && s.h <= kMax && s.w <= kMax && s.kh * s.kw <= kMax && reach_h <= kMax &&
         reach_w <= kMax && plane <= kMax - detail::kDepthwisePlaneThreads &&
         (plane + detail::kDepthwisePlaneThreads - 1) / detail::kDepthwisePlaneThreads <= 65535 &&
         s.n * s.o <= kMax &&
         (s.o + detail::kDepthwiseChannels - 1) / detail::kDepthwiseChannels <= 65535 &&
         (s.n * plane + detail::kDepthwisePixels - 1) / detail::kDepthwisePixels <= kMax;
}

/// Depthwise conv2d as conv.cuh's conv2d computes it (same arguments, either layout; weights
/// [O, 1, kh, kw] or [O, kh, kw, 1]). kPlan (conv_depthwise_plan.h) names the NHWC kernel codegen
/// chose for the shape (kGeneric takes any shape). cudaErrorInvalidValue where
/// conv_depthwise_fits is false, or for a strip plan that is not the shape's (a codegen bug: never
/// run with another window).
template <typename T, DepthwisePlan kPlan = DepthwisePlan::kAny, typename Act = ConvNoActivation>
inline cudaError_t conv2d_depthwise(const T* in, const T* w, const Conv2dEpilogue<T>& epilogue,
                                    T* out, const Conv2dShape& s, cudaStream_t stream,
                                    Act activation = {}) {
  static_assert(is_float_type_v<T>, "conv2d_depthwise: a floating-point element type");
  if (!conv_depthwise_fits(s)) return cudaErrorInvalidValue;
  if (depthwise_plan_taps(kPlan) > 0 &&
      depthwise_plan(s.nhwc, s.c, s.o, s.kh, s.kw, s.stride_h, s.stride_w, s.dilation_h,
                     s.dilation_w) != kPlan)
    return cudaErrorInvalidValue;
  if (s.n * s.o * s.oh * s.ow == 0) return cudaSuccess;
  const detail::DepthwiseGeom g = detail::depthwise_geom(s);
  const int64_t plane = s.oh * s.ow;
  if (!s.nhwc) {
    const dim3 grid(static_cast<unsigned>(s.n * s.o),
                    static_cast<unsigned>((plane + detail::kDepthwisePlaneThreads - 1) /
                                          detail::kDepthwisePlaneThreads));
    detail::conv2d_depthwise_nchw_kernel<T, Act>
        <<<grid, detail::kDepthwisePlaneThreads, 0, stream>>>(in, w, out, epilogue, g, activation);
  } else {
    const int64_t pixels = s.n * plane;
    const unsigned channel_blocks =
        static_cast<unsigned>((s.o + detail::kDepthwiseChannels - 1) / detail::kDepthwiseChannels);
    bool launched = false;
    if constexpr (kPlan == DepthwisePlan::kAny) {
      launched = detail::launch_depthwise_strip_any<T, Act>(in, w, epilogue, out, s, g, stream,
                                                            activation);
    } else if constexpr (depthwise_plan_taps(kPlan) > 0) {
      launched = detail::launch_depthwise_strip<T, kPlan, Act>(in, w, epilogue, out, s, g, stream,
                                                               activation);
    }
    if (launched) return cudaGetLastError();
    if (detail::depthwise_vec_fits(in, epilogue, out, s)) {
      constexpr int64_t kPixels =
          detail::kDepthwiseVecThreads * kPack16<T> / detail::kDepthwiseVecChannels;
      const dim3 grid(static_cast<unsigned>((pixels + kPixels - 1) / kPixels), channel_blocks);
      detail::conv2d_depthwise_nhwc_vec_kernel<T, Act>
          <<<grid, detail::kDepthwiseVecThreads, 0, stream>>>(in, w, out, epilogue, g, pixels,
                                                              activation);
      return cudaGetLastError();
    }
    const dim3 grid(
        static_cast<unsigned>((pixels + detail::kDepthwisePixels - 1) / detail::kDepthwisePixels),
        channel_blocks);
    const dim3 block(detail::kDepthwiseChannels, detail::kDepthwisePixels);
    detail::conv2d_depthwise_nhwc_kernel<T, Act>
        <<<grid, block, 0, stream>>>(in, w, out, epilogue, g, pixels, activation);
  }
  return cudaGetLastError();
}

}  // namespace inferno::kernels
