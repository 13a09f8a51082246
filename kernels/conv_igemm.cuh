// kernels/conv_igemm.cuh: conv2d with groups == 1 as an implicit GEMM, with conv.cuh's operands,
// epilogue (gate, bias, residual, an activation functor) and launcher signature. The GEMM is
// out[m, o] = sum over k of A[m, k] * W[o, k] with
//   m = (n, oy, ox), an output pixel (M = N * OH * OW rows),
//   o, an output channel (O columns),
//   k = (ky, kx, c) for NHWC or (c, ky, kx) for NCHW: the order of the weights' rows in memory
//     (OHWI or OIHW), so W is a plain row-major [O, K] matrix in both layouts;
// and A[m, k] = x[n, c, oy * sh - pt + ky * dh, ox * sw - pl + kx * dw] (zero in the padding) is
// never materialized: each block gathers its tile of A from x as it goes.
//
// A block computes a kM x kN tile of out, walking K in steps of kK. Each step, every thread loads
// its chunks of the next A and W tiles (16 bytes each) from global memory into registers, the
// block computes on the current tiles in shared memory, then stores the registers into the other
// shared buffer: two buffers, one barrier per step, and the global loads in flight during the math.
// Both kernels run that loop as conv_igemm_k_loop.cuh's IgemmKLoop, naming only the shared layout
// of their tiles and their math.
// When the tiles are too few to fill the GPU (batch 1's late layers: 49 output pixels, K = 4608),
// K is split over a thread block cluster of up to 8 blocks on sm_90, which add their partial tiles
// through distributed shared memory (igemm_finish): one kernel, no workspace, a fixed order.
//   - f16 / bf16: tensor cores (mma.sync m16n8k16, f32 accumulation), 4 warps of 32x32 each on a
//     64x64 tile, both tiles stored k-contiguous as the fragments read them. Below sm_80 (no
//     m16n8k16) the same fragments are computed with FMAs.
//   - f32 / f64: full precision on the FMA units (no TF32), 256 threads of
//     4x4 outputs each on a 64x64 tile, the tiles stored transposed (k-major) so a thread reads
//     its 4 rows and 4 columns as two vectors.
// Chunks are 16-byte vector loads where they can be: an A chunk is 16 bytes of consecutive
// channels of one pixel (NHWC with C a multiple of the vector), a W chunk 16 bytes of one row (K a
// multiple of it); otherwise each element is gathered alone (NCHW, and the RGB stem's C = 3).
// Which of these variants a call runs is its plan (conv_igemm_plan.h), which codegen names.
// Out-of-range rows, columns and k, and padding, load zeros, so any shape is correct. The gate
// multiplies each loaded input value in registers before it is stored to shared memory.
//
// The sum over k runs in a fixed order (per thread, per k step, splits added in rank order; the
// split count depends on the shape and the GPU's SM count), so results are reproducible run to
// run on one GPU; they differ from the direct kernel's (conv.cuh) in the order of the additions.
// Grouped convolutions stay on the direct kernel (codegen's choice: codegen/conv_kernel_choice.h).
// 16-bit NHWC convolutions with C a multiple of 8 run the multi-stage cp.async kernel
// of conv_igemm_pipelined.cuh instead (its tiles: IgemmTiles), falling back to this one where the
// GPU or the pointers cannot take it.
#pragma once

#include "common.cuh"
#include "conv.cuh"
#include "conv_igemm_k_loop.cuh"
#include "conv_igemm_pipelined.cuh"
#include "conv_igemm_plan.h"
#include "conv_igemm_tiles.cuh"
#include "conv_igemm_wgmma.cuh"

namespace inferno::kernels {
namespace detail {

template <typename T, typename Act, bool kNhwc, bool kVecA, bool kVecW>
__global__ void __launch_bounds__(IgemmTile<T>::kThreads)
    conv2d_igemm_mma_kernel(const T* __restrict__ x, const T* __restrict__ w, T* __restrict__ out,
                            Conv2dEpilogue<T> e, IgemmGeom g, Act activation) {
  using Tile = IgemmTile<T>;
  using Loop = IgemmKLoop<T, KContiguousTile, kNhwc, kVecA, kVecW>;
  constexpr int kM = Tile::kM, kN = Tile::kN, kK = Tile::kK, kStride = Loop::TileA::kStride;
  constexpr int kThreads = Tile::kThreads, kAcc = 2 * 4 * 4;
  static_assert(Loop::TileW::kStride == kStride, "A's and W's rows alike");
  // The K loop's tiles; after it, the split-K partial sums.
  constexpr int kPartialBytes = kAcc * kThreads * static_cast<int>(sizeof(float));
  __shared__ alignas(
      16) unsigned char smem[Loop::kTileBytes > kPartialBytes ? Loop::kTileBytes : kPartialBytes];
  T* const as = reinterpret_cast<T*>(smem);  // [2][kM * kStride]
  T* const ws = as + 2 * kM * kStride;       // [2][kN * kStride]

  const int64_t m0 = static_cast<int64_t>(blockIdx.x) * kM;
  const int o0 = static_cast<int>(blockIdx.y) * kN;
  Loop loop(g, m0);
  // Warps 2 x 2 over the tile, each 32 x 32: 2 m16 tiles by 4 n8 tiles.
  const int warp = threadIdx.x >> 5, gid = (threadIdx.x & 31) >> 2, tig = threadIdx.x & 3;
  const int wm = (warp >> 1) * 32, wn = (warp & 1) * 32;
  float acc[2][4][4] = {};

  loop.run(x, w, e, g, o0, as, ws, [&](int buf) {
    const T* at = as + buf * kM * kStride;
    const T* wt = ws + buf * kN * kStride;
#pragma unroll
    for (int kk = 0; kk < kK; kk += 16) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
      // Fragments by ldmatrix: lane l addresses row l % 16 of A's 16 x 16 tile at k + (l / 16) * 8,
      // and row (l % 8) + (l / 16) * 8 of W's two 8-row tiles at k + (l / 8 % 2) * 8.
      const int lane = threadIdx.x & 31;
      uint32_t fa[2][4], fb[4][2];
#pragma unroll
      for (int mi = 0; mi < 2; ++mi)
        ldmatrix_x4(fa[mi], at + (wm + mi * 16 + (lane & 15)) * kStride + kk + (lane >> 4) * 8);
#pragma unroll
      for (int nj = 0; nj < 4; nj += 2) {
        uint32_t pair[4];
        ldmatrix_x4(pair, wt + (wn + nj * 8 + (lane & 7) + (lane >> 4) * 8) * kStride + kk +
                              ((lane >> 3) & 1) * 8);
        fb[nj][0] = pair[0], fb[nj][1] = pair[1], fb[nj + 1][0] = pair[2], fb[nj + 1][1] = pair[3];
      }
#pragma unroll
      for (int mi = 0; mi < 2; ++mi) {
#pragma unroll
        for (int ni = 0; ni < 4; ++ni) mma_16816<T>(acc[mi][ni], fa[mi], fb[ni]);
      }
#else
      for (int mi = 0; mi < 2; ++mi) {
        for (int ni = 0; ni < 4; ++ni) {
          fma_16816<T, kStride>(acc[mi][ni], at + (wm + mi * 16) * kStride + kk,
                                wt + (wn + ni * 8) * kStride + kk);
        }
      }
#endif
    }
  });

  // Accumulator i = (mi * 4 + ni) * 4 + r is out[m0 + wm + mi * 16 + gid (+ 8 for r >= 2),
  // o0 + wn + ni * 8 + tig * 2 (+ 1 for odd r)]: the m16n8 fragment layout.
  igemm_finish<kAcc, kThreads>(reinterpret_cast<const float(&)[kAcc]>(acc), smem,
                               [&](int i, float sum) {
                                 const int mi = i >> 4, ni = (i >> 2) & 3, r = i & 3;
                                 const int64_t m = m0 + wm + mi * 16 + gid + (r >> 1) * 8;
                                 const int o = o0 + wn + ni * 8 + tig * 2 + (r & 1);
                                 if (m >= g.m || o >= g.o) return;
                                 const int64_t at = out_index<kNhwc>(g, m, o);
                                 out[at] = conv_finish<T>(sum, e, o, at, activation);
                               });
}

template <typename T, typename Act, bool kNhwc, bool kVecA, bool kVecW>
__global__ void __launch_bounds__(IgemmTile<T>::kThreads)
    conv2d_igemm_fma_kernel(const T* __restrict__ x, const T* __restrict__ w, T* __restrict__ out,
                            Conv2dEpilogue<T> e, IgemmGeom g, Act activation) {
  using Tile = IgemmTile<T>;
  using Loop = IgemmKLoop<T, KMajorTile, kNhwc, kVecA, kVecW>;
  using A = acc_t<T>;
  constexpr int kM = Tile::kM, kN = Tile::kN, kK = Tile::kK;
  constexpr int kStrideM = Loop::TileA::kStride, kStrideN = Loop::TileW::kStride;
  constexpr int kThreads = Tile::kThreads, kAcc = 4 * 4;
  // The K loop's k-major tiles, as[k][m] and ws[k][o], so a thread's 4 rows (and 4 columns) are
  // one vector read; after the loop, the split-K partial sums.
  constexpr int kPartialBytes = kAcc * kThreads * static_cast<int>(sizeof(A));
  __shared__ alignas(
      32) unsigned char smem[Loop::kTileBytes > kPartialBytes ? Loop::kTileBytes : kPartialBytes];
  T* const as = reinterpret_cast<T*>(smem);  // [2][kK * kStrideM]
  T* const ws = as + 2 * kK * kStrideM;      // [2][kK * kStrideN]

  const int64_t m0 = static_cast<int64_t>(blockIdx.x) * kM;
  const int o0 = static_cast<int>(blockIdx.y) * kN;
  Loop loop(g, m0);
  // 16 x 16 threads, each 4 rows (ty) by 4 columns (tx).
  const int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
  A acc[kAcc] = {};
  loop.run(x, w, e, g, o0, as, ws, [&](int buf) {
#pragma unroll
    for (int kk = 0; kk < kK; ++kk) {
      const Pack<T, 4> a4 =
          *reinterpret_cast<const Pack<T, 4>*>(&as[(buf * kK + kk) * kStrideM + ty * 4]);
      const Pack<T, 4> w4 =
          *reinterpret_cast<const Pack<T, 4>*>(&ws[(buf * kK + kk) * kStrideN + tx * 4]);
#pragma unroll
      for (int i = 0; i < 4; ++i) {
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i * 4 + j] += to_acc(a4.v[i]) * to_acc(w4.v[j]);
      }
    }
  });

  igemm_finish<kAcc, kThreads>(acc, smem, [&](int i, A sum) {
    const int64_t m = m0 + ty * 4 + (i >> 2);
    const int o = o0 + tx * 4 + (i & 3);
    if (m >= g.m || o >= g.o) return;
    const int64_t at = out_index<kNhwc>(g, m, o);
    out[at] = conv_finish<T>(sum, e, o, at, activation);
  });
}

/// Launches the tensor-core or the FMA kernel with the chunk loads the shape and pointers allow,
/// K split over a cluster when the tiles are few.
template <typename T, typename Act, bool kNhwc, bool kVecA, bool kVecW>
inline cudaError_t launch_igemm(const T* x, const T* w, T* out, const Conv2dEpilogue<T>& e,
                                const IgemmGeom& g, cudaStream_t stream, Act activation) {
  using Tile = IgemmTile<T>;
  constexpr auto kernel = [] {
    if constexpr (Tile::kMma) {
      return conv2d_igemm_mma_kernel<T, Act, kNhwc, kVecA, kVecW>;
    } else {
      return conv2d_igemm_fma_kernel<T, Act, kNhwc, kVecA, kVecW>;
    }
  }();
  const int64_t m_tiles = (g.m + Tile::kM - 1) / Tile::kM,
                o_tiles = (g.o + Tile::kN - 1) / Tile::kN;
  const int steps = (g.k + Tile::kK - 1) / Tile::kK;
  const int splits = igemm_splits(m_tiles * o_tiles, steps, binary_version<kernel>());
  return launch_tiles(kernel, m_tiles, o_tiles, splits, Tile::kThreads, 0, stream, x, w, out, e, g,
                      activation);
}

/// Plan kPlan's kernel, or the scalar-load kernel of its layout when the pointers cannot take
/// its vectors (never for the arena's and the weights' 256-byte aligned buffers; a caller's
/// buffer or a view may be): two kernels per plan at most, one for a scalar plan.
template <typename T, typename Act, IgemmPlan kPlan>
inline cudaError_t launch_igemm_planned(const T* x, const T* w, T* out, const Conv2dEpilogue<T>& e,
                                        const IgemmGeom& g, cudaStream_t stream, Act activation) {
  constexpr bool kNhwc = igemm_plan_nhwc(kPlan);
  constexpr bool kVecA = igemm_plan_vec_a(kPlan), kVecW = igemm_plan_vec_w(kPlan);
  const bool aligned = (!kVecA || reinterpret_cast<uintptr_t>(x) % 16 == 0) &&
                       (!kVecW || reinterpret_cast<uintptr_t>(w) % 16 == 0);
  if (aligned)
    return launch_igemm<T, Act, kNhwc, kVecA, kVecW>(x, w, out, e, g, stream, activation);
  return launch_igemm<T, Act, kNhwc, false, false>(x, w, out, e, g, stream, activation);
}

/// The plan the shape selects, chosen at run time: every variant is instantiated.
template <typename T, typename Act>
inline cudaError_t launch_igemm_any(const T* x, const T* w, T* out, const Conv2dEpilogue<T>& e,
                                    const IgemmGeom& g, bool nhwc, cudaStream_t stream,
                                    Act activation) {
  switch (igemm_plan(nhwc, g.c, g.k, sizeof(T))) {
    case IgemmPlan::kNchwVecW:
      return launch_igemm_planned<T, Act, IgemmPlan::kNchwVecW>(x, w, out, e, g, stream,
                                                                activation);
    case IgemmPlan::kNhwc:
      return launch_igemm_planned<T, Act, IgemmPlan::kNhwc>(x, w, out, e, g, stream, activation);
    case IgemmPlan::kNhwcVecW:
      return launch_igemm_planned<T, Act, IgemmPlan::kNhwcVecW>(x, w, out, e, g, stream,
                                                                activation);
    case IgemmPlan::kNhwcVecAW:
      return launch_igemm_planned<T, Act, IgemmPlan::kNhwcVecAW>(x, w, out, e, g, stream,
                                                                 activation);
    default:
      return launch_igemm_planned<T, Act, IgemmPlan::kNchw>(x, w, out, e, g, stream, activation);
  }
}

}  // namespace detail

/// Whether conv2d_igemm takes this shape: groups 1, every size and coordinate in 32 bits, and
/// the grid within CUDA's limits. codegen/conv_kernel_choice.cpp checks the same before choosing
/// it.
inline bool conv_igemm_fits(const Conv2dShape& s) {
  constexpr int64_t kMax = INT32_MAX;
  if (!detail::conv_shape_valid(s) || s.groups != 1) return false;
  const int64_t k = s.c * s.kh * s.kw;
  const int64_t reach_h = (s.oh - 1) * s.stride_h + (s.kh - 1) * s.dilation_h;
  const int64_t reach_w = (s.ow - 1) * s.stride_w + (s.kw - 1) * s.dilation_w;
  const int64_t m_tiles = (s.n * s.oh * s.ow + 63) / 64;
  return k <= kMax && s.h <= kMax && s.w <= kMax && reach_h <= kMax && reach_w <= kMax &&
         s.stride_h <= kMax && s.stride_w <= kMax && s.dilation_h <= kMax && s.dilation_w <= kMax &&
         s.pad_top <= kMax && s.pad_left <= kMax && s.o <= 65535 * 64 && m_tiles <= kMax;
}

namespace detail {

/// A shape conv_igemm_fits takes, in the kernels' 32-bit sizes.
inline IgemmGeom igemm_geom(const Conv2dShape& s) {
  return {static_cast<int>(s.c),
          static_cast<int>(s.h),
          static_cast<int>(s.w),
          static_cast<int>(s.o),
          static_cast<int>(s.kh),
          static_cast<int>(s.kw),
          static_cast<int>(s.oh),
          static_cast<int>(s.ow),
          static_cast<int>(s.stride_h),
          static_cast<int>(s.stride_w),
          static_cast<int>(s.pad_top),
          static_cast<int>(s.pad_left),
          static_cast<int>(s.dilation_h),
          static_cast<int>(s.dilation_w),
          static_cast<int>(s.c * s.kh * s.kw),
          s.n * s.oh * s.ow};
}

/// The pipelined kernel of kTiles where it applies (16-bit, plan kNhwcVecAW, x, w and a gate
/// 16-byte aligned, a GPU and binary of sm_80 or later; wgmma tiles on a 9.0 GPU, else their
/// mma.sync tile); cudaErrorNotSupported otherwise.
template <typename T, typename Act, IgemmTiles kTiles>
inline cudaError_t launch_pipelined_if(const T* x, const T* w, T* out, const Conv2dEpilogue<T>& e,
                                       const IgemmGeom& g, bool nhwc, cudaStream_t stream,
                                       Act activation) {
  if constexpr (sizeof(T) == 2 && igemm_tiles_pipelined(kTiles)) {
    const bool fits = igemm_plan(nhwc, g.c, g.k, sizeof(T)) == IgemmPlan::kNhwcVecAW &&
                      reinterpret_cast<uintptr_t>(x) % 16 == 0 &&
                      reinterpret_cast<uintptr_t>(w) % 16 == 0 &&
                      reinterpret_cast<uintptr_t>(e.gate) % 16 == 0;  // null or 16-byte pieces
    if (!fits) return cudaErrorNotSupported;
    if constexpr (igemm_tiles_wgmma(kTiles)) {
      const cudaError_t launched =
          launch_igemm_wgmma<T, Act, kTiles>(x, w, out, e, g, stream, activation);
      if (launched != cudaErrorNotSupported) return launched;
    }
    return launch_igemm_pipelined<T, Act, igemm_tiles_mma_sync(kTiles)>(x, w, out, e, g, stream,
                                                                        activation);
  }
  (void)x, (void)w, (void)out, (void)e, (void)g, (void)nhwc, (void)stream, (void)activation;
  return cudaErrorNotSupported;
}

/// kAuto's tiles on this GPU: igemm_tiles with its SM count (the staged kernel if unknown).
template <typename T, typename Act>
inline cudaError_t launch_pipelined_auto(const T* x, const T* w, T* out, const Conv2dEpilogue<T>& e,
                                         const IgemmGeom& g, bool nhwc, cudaStream_t stream,
                                         Act activation) {
  int sms = 0, major = 0;
  if (!current_device_sms(sms, major)) return cudaErrorNotSupported;
  switch (igemm_tiles(igemm_plan(nhwc, g.c, g.k, sizeof(T)), sizeof(T), g.m, g.o, sms)) {
    case IgemmTiles::kPipe128x128:
      return launch_pipelined_if<T, Act, IgemmTiles::kPipe128x128>(x, w, out, e, g, nhwc, stream,
                                                                   activation);
    case IgemmTiles::kPipe128x64:
      return launch_pipelined_if<T, Act, IgemmTiles::kPipe128x64>(x, w, out, e, g, nhwc, stream,
                                                                  activation);
    case IgemmTiles::kPipe64x64:
      return launch_pipelined_if<T, Act, IgemmTiles::kPipe64x64>(x, w, out, e, g, nhwc, stream,
                                                                 activation);
    default:
      return cudaErrorNotSupported;
  }
}

}  // namespace detail

/// conv2d (groups 1) as conv.cuh's conv2d computes it (same arguments, either layout): f16 and
/// bf16 on tensor cores, f32 and f64 on FMAs. cudaErrorInvalidValue where conv_igemm_fits is false,
/// where kPlan is not the plan of the shape (conv_igemm_plan.h: codegen names it, so that
/// model.cu instantiates only that kernel; kAny decides at run time), or where kTiles names a
/// pipelined kernel for a call that cannot take one (another dtype or plan). kTiles
/// kAuto chooses the tiles at run time (every kernel instantiated); a pipelined choice falls back
/// to the staged kernel below sm_80 or for misaligned pointers.
template <typename T, IgemmPlan kPlan = IgemmPlan::kAny, IgemmTiles kTiles = IgemmTiles::kAuto,
          typename Act = ConvNoActivation>
inline cudaError_t conv2d_igemm(const T* in, const T* w, const Conv2dEpilogue<T>& epilogue, T* out,
                                const Conv2dShape& s, cudaStream_t stream, Act activation = {}) {
  static_assert(is_float_type_v<T>, "conv2d_igemm: a floating-point element type");
  if (!conv_igemm_fits(s)) return cudaErrorInvalidValue;
  if (s.n * s.o * s.oh * s.ow == 0) return cudaSuccess;
  const detail::IgemmGeom g = detail::igemm_geom(s);
  const IgemmPlan plan = igemm_plan(s.nhwc, g.c, g.k, sizeof(T));
  if (kPlan != IgemmPlan::kAny && plan != kPlan) return cudaErrorInvalidValue;
  if constexpr (igemm_tiles_pipelined(kTiles)) {
    if (sizeof(T) != 2 || plan != IgemmPlan::kNhwcVecAW) return cudaErrorInvalidValue;
  }
  cudaError_t launched = cudaErrorNotSupported;
  if constexpr (kTiles == IgemmTiles::kAuto && sizeof(T) == 2 &&
                (kPlan == IgemmPlan::kAny || kPlan == IgemmPlan::kNhwcVecAW)) {
    launched = detail::launch_pipelined_auto(in, w, out, epilogue, g, s.nhwc, stream, activation);
  } else if constexpr (igemm_tiles_pipelined(kTiles)) {
    launched = detail::launch_pipelined_if<T, Act, kTiles>(in, w, out, epilogue, g, s.nhwc, stream,
                                                           activation);
  }
  if (launched == cudaErrorNotSupported) {
    if constexpr (kPlan == IgemmPlan::kAny) {
      launched = detail::launch_igemm_any(in, w, out, epilogue, g, s.nhwc, stream, activation);
    } else {
      launched =
          detail::launch_igemm_planned<T, Act, kPlan>(in, w, out, epilogue, g, stream, activation);
    }
  }
  return launched != cudaSuccess ? launched : cudaGetLastError();
}

}  // namespace inferno::kernels
