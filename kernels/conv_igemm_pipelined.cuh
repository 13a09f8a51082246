// kernels/conv_igemm_pipelined.cuh: the 16-bit implicit-GEMM convolution on tensor cores with a
// multi-stage cp.async pipeline, for the shapes most convolutions have: NHWC, C a multiple of 8
// (16-byte chunks of channels). conv_igemm.cuh describes the GEMM (out[m, o] = sum over k
// of A[m, k] * W[o, k], A gathered from x under the kernel window) and routes such calls here on
// sm_80 and later; its register-staged kernel stays for the other layouts and older GPUs. A gate
// (squeeze-and-excitation's per-image channel scale) is applied to A in shared memory, by the
// thread that copied each chunk, once the chunk has landed (gate_landed_chunks).
//
// Why a second kernel: the register-staged one keeps one K step in flight behind the math, so its
// warps wait on memory latency (about 50 TFLOP/s at batch 8 on an H100). Here each thread copies
// its 16-byte chunks of A and W straight from global to shared memory with cp.async (zero-filled
// in the padding and past the edges, so no branch around a load), kStages - 1 K steps ahead of the
// math, and the tiles are larger (up to 128 x 128, eight warps of 64 x 32), so each loaded byte
// feeds more mma.sync. One barrier per K step: at the top of step j every warp has finished the
// math of step j - 1, so the slot that step read can take step j + kStages - 1's copies.
//
// Tile shapes are IgemmTiles (conv_igemm_plan.h): codegen names one per convolution from its
// shape, the launcher of kAuto picks at run time by the same rule. K is split over a cluster on
// sm_90 as in the register-staged kernel (igemm_finish) when the tiles are too few for the GPU.
#pragma once

#include "common.cuh"
#include "conv.cuh"
#include "conv_igemm_plan.h"
#include "conv_igemm_tiles.cuh"

namespace inferno::kernels {
namespace detail {

/// The shape of a pipelined tile: kM x kN outputs per block, kWarpsM x kWarpsN warps, K in steps
/// of 32 (four 16-byte chunks a row), kStages steps in shared memory.
template <int kM_, int kN_, int kWarpsM_, int kWarpsN_, int kStages_>
struct PipeShape {
  static constexpr int kM = kM_, kN = kN_, kWarpsM = kWarpsM_, kWarpsN = kWarpsN_;
  static constexpr int kStages = kStages_;
  static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
  static constexpr int kK = 32;
  static constexpr int kChunksPerRow = kK / 8;  ///< 16-byte chunks of 16-bit values
  // Rows padded by 16 bytes: ldmatrix's eight 16-byte row reads then hit distinct banks.
  static constexpr int kStride = kK + 8;
  static constexpr int kWarpM = kM / kWarpsM, kWarpN = kN / kWarpsN;
  static constexpr int kMi = kWarpM / 16, kNi = kWarpN / 8;  ///< m16 and n8 tiles per warp
  static constexpr int kAcc = kMi * kNi * 4;
  static constexpr int kChunksA = kM * kChunksPerRow / kThreads;
  static constexpr int kChunksW = kN * kChunksPerRow / kThreads;
  static constexpr int kStageElements = (kM + kN) * kStride;
  static constexpr int kTileBytes = kStages * kStageElements * 2;
  static constexpr int kPartialBytes = kAcc * kThreads * 4;  ///< split-K sums (igemm_finish)
  static constexpr int kSumBytes = kM * kSumStride<kN> * 4;  ///< the tile's sums (store_tile)
  static constexpr int kSmemBytes = kTileBytes > kPartialBytes ? kTileBytes : kPartialBytes;
  static_assert(kSumBytes <= kSmemBytes, "the sums fit where the tiles were");
  static_assert(kWarpM % 16 == 0 && kWarpN % 16 == 0, "whole m16 tiles, n8 tiles in pairs");
  static_assert(kChunksA * kThreads == kM * kChunksPerRow, "A's chunks spread evenly");
  static_assert(kChunksW * kThreads == kN * kChunksPerRow, "W's chunks spread evenly");
};

template <IgemmTiles kTiles>
struct PipeShapeOf;
template <>
struct PipeShapeOf<IgemmTiles::kPipe64x64> {
  using type = PipeShape<64, 64, 2, 2, 4>;
};
template <>
struct PipeShapeOf<IgemmTiles::kPipe128x64> {
  using type = PipeShape<128, 64, 2, 2, 4>;
};
template <>
struct PipeShapeOf<IgemmTiles::kPipe128x128> {
  using type = PipeShape<128, 128, 2, 4, 4>;
};

/// 16 bytes from global to shared memory, or 16 zero bytes when !fill (the source is then not
/// read, but must still be a valid address).
__device__ __forceinline__ void cp_async_16(void* dst, const void* src, bool fill) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const auto address = static_cast<uint32_t>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(address), "l"(src),
               "r"(fill ? 16 : 0));
#else
  (void)dst, (void)src, (void)fill;
#endif
}
__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}
/// Waits until at most kPending of this thread's committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
#endif
}

/// This thread's column of each K step, (c, ky, kx) of k = k0 + 8 * chunk, walked step by step
/// (C is a multiple of 8, so a chunk never straddles a tap).
struct PipeKPos {
  int k, c, ky, kx;
  __device__ PipeKPos(const IgemmGeom& g, int k0) : k(k0) {
    const int tap = k0 / g.c;
    c = k0 - tap * g.c;
    ky = tap / g.kw;
    kx = tap - ky * g.kw;
  }
  __device__ __forceinline__ void advance(const IgemmGeom& g, int by) {
    k += by;
    c += by;
    while (c >= g.c) {  // once per tap crossed: C < 32 crosses several
      c -= g.c;
      if (++kx == g.kw) kx = 0, ++ky;
    }
  }
};

/// Whether the A chunk of pixel row p at pos holds x (cp.async copies it) rather than zeros (the
/// padding, rows past M, K past its end).
__device__ __forceinline__ bool a_chunk_filled(const IgemmGeom& g, const PixelRow& p,
                                               const PipeKPos& pos) {
  const int iy = p.iy0 + pos.ky * g.dh, ix = p.ix0 + pos.kx * g.dw;
  return p.valid && pos.k < g.k && iy >= 0 && iy < g.h && ix >= 0 && ix < g.w;
}

/// The gate (conv_igemm.cuh) on the A chunks a thread copied for the K step at pos, once they
/// have landed: each is multiplied in shared memory by its image's gate at its 8 channels and
/// rounded to T, as the register-staged kernel rounds x * gate (input_value); chunks of zeros
/// stay zero (the gate scales x, not the padding). at(i) is chunk i's place in shared memory.
/// The caller's barrier (and on wgmma, its proxy fence) publishes the results.
template <typename T, int kChunks, typename At>
__device__ __forceinline__ void gate_landed_chunks(const T* __restrict__ gate, const IgemmGeom& g,
                                                   const PixelRow (&rows)[kChunks],
                                                   const PipeKPos& pos, At at) {
#pragma unroll
  for (int i = 0; i < kChunks; ++i) {
    if (!a_chunk_filled(g, rows[i], pos)) continue;
    T* const chunk = at(i);
    Pack<T, 8> v = load_pack<8>(chunk);
    const Pack<T, 8> scale = load_pack<8>(gate + static_cast<int64_t>(rows[i].n) * g.c + pos.c);
#pragma unroll
    for (int k = 0; k < 8; ++k) v.v[k] = from_acc<T>(to_acc(v.v[k]) * to_acc(scale.v[k]));
    store_pack(chunk, v);
  }
}

template <typename T, typename Act, typename S>
__global__ void __launch_bounds__(S::kThreads)
    conv2d_igemm_pipelined_kernel(const T* __restrict__ x, const T* __restrict__ w,
                                  T* __restrict__ out, Conv2dEpilogue<T> e, IgemmGeom g,
                                  Act activation) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  extern __shared__ __align__(16) unsigned char smem[];
  T* const tiles = reinterpret_cast<T*>(smem);  // [kStages][A: kM rows, W: kN rows][kStride]
  constexpr int kM = S::kM, kN = S::kN, kK = S::kK, kStride = S::kStride;
  const int tid = static_cast<int>(threadIdx.x);
  const int64_t m0 = static_cast<int64_t>(blockIdx.x) * kM;
  const int o0 = static_cast<int>(blockIdx.y) * kN;

  // Chunk i of a tile is row tid / 4 + i * (kThreads / 4), chunk tid % 4 of it: every chunk of a
  // thread is at the same k.
  const int chunk = tid % S::kChunksPerRow, row0 = tid / S::kChunksPerRow;
  constexpr int kRowStep = S::kThreads / S::kChunksPerRow;
  PixelRow rows[S::kChunksA];
#pragma unroll
  for (int i = 0; i < S::kChunksA; ++i) rows[i] = pixel_row(g, m0 + row0 + i * kRowStep);

  const int steps = (g.k + kK - 1) / kK;
  const StepRange range = step_range(steps);
  PipeKPos pos(g, range.first * kK + chunk * 8);
  PipeKPos gate_pos = pos;  // the step the math reads next, for the gate

  // Copies K step `step`'s chunks (at pos) into stage slot `slot`, then moves pos a step on.
  auto load = [&](int slot) {
    T* const as = tiles + slot * S::kStageElements;
    T* const ws = as + kM * kStride;
    const bool k_in = pos.k < g.k;
#pragma unroll
    for (int i = 0; i < S::kChunksA; ++i) {
      const PixelRow& p = rows[i];
      const bool fill = a_chunk_filled(g, p, pos);  // else the padding
      const int iy = p.iy0 + pos.ky * g.dh, ix = p.ix0 + pos.kx * g.dw;
      const T* src = fill ? x + p.image + (static_cast<int64_t>(iy) * g.w + ix) * g.c + pos.c : x;
      cp_async_16(as + (row0 + i * kRowStep) * kStride + chunk * 8, src, fill);
    }
#pragma unroll
    for (int i = 0; i < S::kChunksW; ++i) {
      const int o = o0 + row0 + i * kRowStep;
      const bool fill = o < g.o && k_in;
      const T* src = fill ? w + static_cast<int64_t>(o) * g.k + pos.k : w;
      cp_async_16(ws + (row0 + i * kRowStep) * kStride + chunk * 8, src, fill);
    }
    pos.advance(g, kK);
  };

  // The first kStages - 1 steps in flight; one commit group per step (empty past the end), so
  // "all but kStages - 2 groups done" always means "this step's chunks have landed".
#pragma unroll
  for (int s = 0; s < S::kStages - 1; ++s) {
    if (range.first + s < range.last) load(s);
    cp_async_commit();
  }

  const int warp = tid >> 5, lane = tid & 31, gid = lane >> 2, tig = lane & 3;
  const int wm = (warp / S::kWarpsN) * S::kWarpM, wn = (warp % S::kWarpsN) * S::kWarpN;
  float acc[S::kMi][S::kNi][4] = {};

  for (int step = range.first; step < range.last; ++step) {
    const int j = step - range.first;
    cp_async_wait<S::kStages - 2>();
    if (e.gate != nullptr) {
      T* const landed = tiles + (j % S::kStages) * S::kStageElements;
      gate_landed_chunks(e.gate, g, rows, gate_pos, [&](int i) {
        return landed + (row0 + i * kRowStep) * kStride + chunk * 8;
      });
      gate_pos.advance(g, kK);
    }
    __syncthreads();  // step j landed for every thread; every warp is done with step j - 1
    if (step + S::kStages - 1 < range.last) load((j + S::kStages - 1) % S::kStages);
    cp_async_commit();

    const T* at = tiles + (j % S::kStages) * S::kStageElements;
    const T* wt = at + kM * kStride;
#pragma unroll
    for (int kk = 0; kk < kK; kk += 16) {
      // ldmatrix: lane l addresses row l % 16 of an A m16 tile at k + (l / 16) * 8, and row
      // (l % 8) + (l / 16) * 8 of a pair of W n8 tiles at k + (l / 8 % 2) * 8.
      uint32_t fa[S::kMi][4], fb[S::kNi][2];
#pragma unroll
      for (int mi = 0; mi < S::kMi; ++mi)
        ldmatrix_x4(fa[mi], at + (wm + mi * 16 + (lane & 15)) * kStride + kk + (lane >> 4) * 8);
#pragma unroll
      for (int nj = 0; nj < S::kNi; nj += 2) {
        uint32_t pair[4];
        ldmatrix_x4(pair, wt + (wn + nj * 8 + (lane & 7) + (lane >> 4) * 8) * kStride + kk +
                              ((lane >> 3) & 1) * 8);
        fb[nj][0] = pair[0], fb[nj][1] = pair[1], fb[nj + 1][0] = pair[2], fb[nj + 1][1] = pair[3];
      }
#pragma unroll
      for (int mi = 0; mi < S::kMi; ++mi) {
#pragma unroll
        for (int ni = 0; ni < S::kNi; ++ni) mma_16816<T>(acc[mi][ni], fa[mi], fb[ni]);
      }
    }
  }
  // The split-K sums reuse the tiles' shared memory: no copy may still land, no warp still read.
  cp_async_wait<0>();
  __syncthreads();

  // Accumulator acc[mi][ni][r] is out[m0 + wm + mi * 16 + gid (+ 8 for r >= 2), o0 + wn + ni * 8 +
  // tig * 2 (+ 1 for odd r)]: the m16n8 fragment layout. Without a K split, the tile's sums go
  // through shared memory, so that the epilogue reads and writes whole 16-byte pieces.
  if (gridDim.z == 1) {
    float* const sums = reinterpret_cast<float*>(smem);
#pragma unroll
    for (int mi = 0; mi < S::kMi; ++mi) {
#pragma unroll
      for (int ni = 0; ni < S::kNi; ++ni) {
        float* at = sums + (wm + mi * 16 + gid) * kSumStride<kN> + wn + ni * 8 + tig * 2;
        *reinterpret_cast<float2*>(at) = make_float2(acc[mi][ni][0], acc[mi][ni][1]);
        *reinterpret_cast<float2*>(at + 8 * kSumStride<kN>) =
            make_float2(acc[mi][ni][2], acc[mi][ni][3]);
      }
    }
    __syncthreads();
    store_tile<kM, kN, S::kThreads>(sums, m0, o0, g, e, out, activation);
    return;
  }
  // Accumulator i = (mi * kNi + ni) * 4 + r of the flat array.
  igemm_finish<S::kAcc, S::kThreads>(
      reinterpret_cast<const float(&)[S::kAcc]>(acc), smem, [&](int i, float sum) {
        const int mi = i / (S::kNi * 4), ni = (i / 4) % S::kNi, r = i & 3;
        const int64_t m = m0 + wm + mi * 16 + gid + (r >> 1) * 8;
        const int o = o0 + wn + ni * 8 + tig * 2 + (r & 1);
        if (m >= g.m || o >= g.o) return;
        const int64_t at = m * g.o + o;  // NHWC
        out[at] = conv_finish<T>(sum, e, o, at, activation);
      });
#else
  (void)x, (void)w, (void)out, (void)e, (void)g, (void)activation;
  __trap();  // the launcher never runs a binary built below sm_80
#endif
}

/// Launches the pipelined kernel of tile shape kTiles; cudaErrorNotSupported (with nothing
/// launched and no error left behind) where this GPU or this binary cannot run it (below sm_80,
/// or too little shared memory), so that the caller falls back to the register-staged kernel.
template <typename T, typename Act, IgemmTiles kTiles>
inline cudaError_t launch_igemm_pipelined(const T* x, const T* w, T* out,
                                          const Conv2dEpilogue<T>& e, const IgemmGeom& g,
                                          cudaStream_t stream, Act activation) {
  using S = typename PipeShapeOf<kTiles>::type;
  constexpr auto kernel = conv2d_igemm_pipelined_kernel<T, Act, S>;
  const int binary = binary_version<kernel>();
  // Per call, not once: the limit is per device, and the call costs next to nothing.
  if (binary < 80 || cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          S::kSmemBytes) != cudaSuccess) {
    (void)cudaGetLastError();
    return cudaErrorNotSupported;
  }
  const int64_t m_tiles = (g.m + S::kM - 1) / S::kM, o_tiles = (g.o + S::kN - 1) / S::kN;
  const int splits = igemm_splits(m_tiles * o_tiles, (g.k + S::kK - 1) / S::kK, binary);
  return launch_tiles(kernel, m_tiles, o_tiles, splits, S::kThreads, S::kSmemBytes, stream, x, w,
                      out, e, g, activation);
}

}  // namespace detail
}  // namespace inferno::kernels
