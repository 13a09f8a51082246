// kernels/conv_igemm_wgmma.cuh: the 16-bit implicit-GEMM convolution on Hopper's warpgroup
// tensor-core instruction (wgmma, sm_90a only), for the shapes conv_igemm_pipelined.cuh takes
// (NHWC, C a multiple of 8, a gate applied as there). conv_igemm.cuh describes the GEMM and routes
// such calls here when the library was built for sm_90a and runs on a compute capability 9.0 GPU;
// the pipelined mma.sync kernel of the same tile takes them everywhere else.
//
// A block of two warpgroups (256 threads) computes a 128 x kN tile (kN = 64 or 128), each
// warpgroup 64 rows with one m64nNk16 wgmma per 16 of K. K goes in steps of 64 (128-byte rows of
// 16-bit values). Every thread copies its 16-byte chunks of A (gathered from x under the kernel
// window, zero-filled in the padding) and W with cp.async into shared memory laid out as wgmma
// reads K-major operands with the 128-byte swizzle: row r of a tile at r * 128 bytes, its
// 16-byte chunk c at chunk position c ^ (r % 8), tiles 1024-byte aligned. kStages slots: step j's
// wgmmas run while step j + 1 has landed and steps up to j + kStages - 2 are in flight; the slot
// step j + kStages - 2 is copied into was read by step j - 2's wgmmas, which each warpgroup has
// waited for (wgmma.wait_group 1 after issuing step j - 1) before the barrier of step j. cp.async
// writes through the generic proxy and wgmma reads through the async one, so each thread fences
// the proxies after its copies land, before the barrier.
#pragma once

#include <type_traits>

#include "common.cuh"
#include "conv.cuh"
#include "conv_igemm_k_loop.cuh"
#include "conv_igemm_pipelined.cuh"
#include "conv_igemm_tiles.cuh"

namespace inferno::kernels {
namespace detail {

// wgmma m64n64k16 with f32 accumulators d[32], A and B from shared memory (descriptors a,
// b), d += A B; TYPE: f16 or bf16.
#define INFERNO_WGMMA_M64N64K16(TYPE)                                                          \
  asm volatile("wgmma.mma_async.sync.aligned.m64n64k16.f32." TYPE "." TYPE                     \
               " {"                                                                            \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, "   \
               "%17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"     \
               "}, %32, %33, 1, 1, 1, 0, 0;\n"                                                 \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),       \
                 "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),     \
                 "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), \
                 "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
                 "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), \
                 "+f"(d[30]), "+f"(d[31])                                                      \
               : "l"(a), "l"(b))

// wgmma m64n128k16 with f32 accumulators d[64], A and B from shared memory (descriptors a,
// b), d += A B; TYPE: f16 or bf16.
#define INFERNO_WGMMA_M64N128K16(TYPE)                                                         \
  asm volatile("wgmma.mma_async.sync.aligned.m64n128k16.f32." TYPE "." TYPE                    \
               " {"                                                                            \
               "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, "   \
               "%17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "   \
               "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, "   \
               "%47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, "   \
               "%62, %63"                                                                      \
               "}, %64, %65, 1, 1, 1, 0, 0;\n"                                                 \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),       \
                 "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),     \
                 "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), \
                 "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
                 "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), \
                 "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), \
                 "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), \
                 "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
                 "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), \
                 "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), \
                 "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])                            \
               : "l"(a), "l"(b))

template <typename T, int kN>
__device__ __forceinline__ void wgmma_step(float (&d)[kN / 2], uint64_t a, uint64_t b) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  constexpr bool kHalf = std::is_same_v<T, __half>;
  if constexpr (kN == 64) {
    if constexpr (kHalf) {
      INFERNO_WGMMA_M64N64K16("f16");
    } else {
      INFERNO_WGMMA_M64N64K16("bf16");
    }
  } else {
    static_assert(kN == 128, "m64n64 or m64n128");
    if constexpr (kHalf) {
      INFERNO_WGMMA_M64N128K16("f16");
    } else {
      INFERNO_WGMMA_M64N128K16("bf16");
    }
  }
#else
  (void)d, (void)a, (void)b;
#endif
}

/// A shared-memory matrix descriptor for a K-major tile with the 128-byte swizzle: 8-row groups
/// 1024 bytes apart (the stride dimension), the leading offset unused (one swizzle atom spans the
/// K of a wgmma), addresses in 16-byte units.
__device__ __forceinline__ uint64_t wgmma_descriptor(const void* tile) {
  const auto address = static_cast<uint64_t>(__cvta_generic_to_shared(tile));
  return ((address & 0x3FFFF) >> 4) | (uint64_t{1} << 16) | (uint64_t{1024 >> 4} << 32) |
         (uint64_t{1} << 62);
}

__device__ __forceinline__ void wgmma_fence() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void wgmma_commit() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
#endif
}
/// Makes this thread's completed cp.async writes to shared memory visible to wgmma's reads.
__device__ __forceinline__ void fence_proxy_async() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}
/// Keeps the compiler from moving accesses to `v` across an asynchronous wgmma's wait.
__device__ __forceinline__ void register_fence(float& v) { asm volatile("" : "+f"(v)::"memory"); }

template <int kN_, int kStages_>
struct WgmmaShape {
  static constexpr int kM = 128, kN = kN_, kStages = kStages_;
  static constexpr int kThreads = 256;  // two warpgroups of 64 rows each
  static constexpr int kK = 64;         // one 128-byte row of 16-bit values per step
  static constexpr int kChunksPerRow = 8;
  static constexpr int kAcc = kN / 2;  // m64nN: 64 * kN / 128 accumulators a thread
  static constexpr int kChunksA = kM * kChunksPerRow / kThreads;
  static constexpr int kChunksW = kN * kChunksPerRow / kThreads;
  static constexpr int kTileABytes = kM * 128, kTileWBytes = kN * 128;
  static constexpr int kStageBytes = kTileABytes + kTileWBytes;
  static constexpr int kPartialBytes = kAcc * kThreads * 4;  ///< split-K sums (igemm_finish)
  static constexpr int kUsedBytes =
      kStages * kStageBytes > kPartialBytes ? kStages* kStageBytes : kPartialBytes;
  static_assert(kM * kSumStride<kN> * 4 <= kUsedBytes, "the sums (store_tile) fit too");
  static constexpr int kSmemBytes = kUsedBytes + 1024;  ///< room to align the tiles to 1024
  static_assert(kStages >= 3, "a slot copied, one read, one in flight");
};

template <IgemmTiles kTiles>
struct WgmmaShapeOf;
template <>
struct WgmmaShapeOf<IgemmTiles::kWgmma128x64> {
  using type = WgmmaShape<64, 4>;
};
template <>
struct WgmmaShapeOf<IgemmTiles::kWgmma128x128> {
  using type = WgmmaShape<128, 3>;  // 3 stages: 97 KB, two blocks an SM (faster than 4 or 5)
};

template <typename T, typename Act, typename S>
__global__ void __launch_bounds__(S::kThreads)
    conv2d_igemm_wgmma_kernel(const T* __restrict__ x, const T* __restrict__ w, T* __restrict__ out,
                              Conv2dEpilogue<T> e, IgemmGeom g, Act activation) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ __align__(16) unsigned char smem_raw[];
  unsigned char* const smem = reinterpret_cast<unsigned char*>(
      (reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
  constexpr int kK = S::kK, kLookahead = S::kStages - 2;
  const int tid = static_cast<int>(threadIdx.x);
  const int64_t m0 = static_cast<int64_t>(blockIdx.x) * S::kM;
  const int o0 = static_cast<int>(blockIdx.y) * S::kN;

  // Chunk i of a tile is row tid / 8 + 32 i, chunk tid % 8 of it (every chunk of a thread at the
  // same k), stored at its swizzled place.
  const int chunk = tid % S::kChunksPerRow, row0 = tid / S::kChunksPerRow;
  constexpr int kRowStep = S::kThreads / S::kChunksPerRow;
  auto swizzled = [&](int row) { return row * 128 + ((chunk ^ (row & 7)) << 4); };
  PixelRow rows[S::kChunksA];
#pragma unroll
  for (int i = 0; i < S::kChunksA; ++i) rows[i] = pixel_row(g, m0 + row0 + i * kRowStep);

  const StepRange range = step_range((g.k + kK - 1) / kK);
  PipeKPos pos(g, range.first * kK + chunk * 8);
  PipeKPos gate_pos = pos;  // the step the wgmmas read next, for the gate
  auto load = [&](int slot) {
    unsigned char* const as = smem + slot * S::kStageBytes;
    unsigned char* const ws = as + S::kTileABytes;
    const bool k_in = pos.k < g.k;
#pragma unroll
    for (int i = 0; i < S::kChunksA; ++i) {
      const PixelRow& p = rows[i];
      const bool fill = a_chunk_filled(g, p, pos);
      const int iy = p.iy0 + pos.ky * g.dh, ix = p.ix0 + pos.kx * g.dw;
      const T* src = fill ? x + p.image + (static_cast<int64_t>(iy) * g.w + ix) * g.c + pos.c : x;
      cp_async_16(as + swizzled(row0 + i * kRowStep), src, fill);
    }
#pragma unroll
    for (int i = 0; i < S::kChunksW; ++i) {
      const int o = o0 + row0 + i * kRowStep;
      const bool fill = o < g.o && k_in;
      const T* src = fill ? w + static_cast<int64_t>(o) * g.k + pos.k : w;
      cp_async_16(ws + swizzled(row0 + i * kRowStep), src, fill);
    }
    pos.advance(g, kK);
  };

  // One cp.async group per step (empty past the end), kLookahead steps ahead.
#pragma unroll
  for (int s = 0; s < kLookahead; ++s) {
    if (range.first + s < range.last) load(s);
    cp_async_commit();
  }

  const int group = tid / 128;  // the warpgroup: rows 64 * group .. of the tile
  float acc[S::kAcc];
#pragma unroll
  for (int i = 0; i < S::kAcc; ++i) acc[i] = 0.0f;

  for (int step = range.first; step < range.last; ++step) {
    const int j = step - range.first, slot = j % S::kStages;
    cp_async_wait<kLookahead - 1>();  // step j's chunks of this thread have landed
    if (e.gate != nullptr) {
      unsigned char* const landed = smem + slot * S::kStageBytes;
      gate_landed_chunks(e.gate, g, rows, gate_pos, [&](int i) {
        return reinterpret_cast<T*>(landed + swizzled(row0 + i * kRowStep));
      });
      gate_pos.advance(g, kK);
    }
    fence_proxy_async();  // the copies and the gate's stores, before wgmma reads them
    __syncthreads();      // ... and every thread's; every warpgroup is done with step j - 2

    const unsigned char* as = smem + slot * S::kStageBytes;
    const uint64_t a = wgmma_descriptor(as + group * 64 * 128);
    const uint64_t b = wgmma_descriptor(as + S::kTileABytes);
    wgmma_fence();
#pragma unroll
    for (int k = 0; k < kK / 16; ++k) {
      // 16 values of K are 32 bytes: 2 in the descriptor's 16-byte address units.
      wgmma_step<T, S::kN>(acc, a + 2 * k, b + 2 * k);
    }
    wgmma_commit();
    wgmma_wait<1>();  // step j - 1's wgmmas are done: its slot may be copied over next step

    if (step + kLookahead < range.last) load((j + kLookahead) % S::kStages);
    cp_async_commit();
  }
  wgmma_wait<0>();
#pragma unroll
  for (int i = 0; i < S::kAcc; ++i) register_fence(acc[i]);
  // The split-K sums reuse the tiles' shared memory: no copy may still land, no wgmma still read.
  cp_async_wait<0>();
  __syncthreads();

  // Accumulator i of the m64nN layout: n8 block i / 4, rows 16 (warp in the group) + lane / 4
  // (+ 8 for i % 4 >= 2), columns 8 (i / 4) + 2 (lane % 4) (+ 1 for odd i). Without a K split,
  // the tile's sums go through shared memory for an epilogue of whole 16-byte pieces.
  const int warp = (tid % 128) / 32, lane = tid % 32;
  if (gridDim.z == 1) {
    float* const sums = reinterpret_cast<float*>(smem);
    const int row = group * 64 + warp * 16 + lane / 4;
#pragma unroll
    for (int n8 = 0; n8 < S::kN / 8; ++n8) {
      float* at = sums + row * kSumStride<S::kN> + n8 * 8 + (lane % 4) * 2;
      *reinterpret_cast<float2*>(at) = make_float2(acc[4 * n8], acc[4 * n8 + 1]);
      *reinterpret_cast<float2*>(at + 8 * kSumStride<S::kN>) =
          make_float2(acc[4 * n8 + 2], acc[4 * n8 + 3]);
    }
    __syncthreads();
    store_tile<S::kM, S::kN, S::kThreads>(sums, m0, o0, g, e, out, activation);
    return;
  }
  igemm_finish<S::kAcc, S::kThreads>(acc, smem, [&](int i, float sum) {
    const int64_t m = m0 + group * 64 + warp * 16 + lane / 4 + ((i >> 1) & 1) * 8;
    const int o = o0 + (i >> 2) * 8 + (lane % 4) * 2 + (i & 1);
    if (m >= g.m || o >= g.o) return;
    const int64_t at = m * g.o + o;  // NHWC
    out[at] = conv_finish<T>(sum, e, o, at, activation);
  });
#else
  (void)x, (void)w, (void)out, (void)e, (void)g, (void)activation;
  __trap();  // the launcher runs it only from an sm_90a binary
#endif
}

/// Launches the wgmma kernel of shape S (a WgmmaShape); cudaErrorNotSupported (nothing launched,
/// no error left behind) where the GPU is not of compute capability 9.0 or its shared memory is
/// too small. The caller names wgmma tiles only in code built for sm_90a and no plain sm_90
/// (codegen: igemm_tiles' `wgmma`), so the binary a 9.0 GPU runs is sm_90a's; elsewhere the
/// kernel traps.
template <typename T, typename Act, typename S>
inline cudaError_t launch_wgmma_shape(const T* x, const T* w, T* out, const Conv2dEpilogue<T>& e,
                                      const IgemmGeom& g, cudaStream_t stream, Act activation) {
  constexpr auto kernel = conv2d_igemm_wgmma_kernel<T, Act, S>;
  int device = 0, major = 0, minor = 0;
  const bool hopper =
      cudaGetDevice(&device) == cudaSuccess &&
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess &&
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) == cudaSuccess &&
      major == 9 && minor == 0;
  if (!hopper || cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      S::kSmemBytes) != cudaSuccess) {
    (void)cudaGetLastError();
    return cudaErrorNotSupported;
  }
  const int64_t m_tiles = (g.m + S::kM - 1) / S::kM, o_tiles = (g.o + S::kN - 1) / S::kN;
  const int splits = igemm_splits(m_tiles * o_tiles, (g.k + S::kK - 1) / S::kK, 90);
  return launch_tiles(kernel, m_tiles, o_tiles, splits, S::kThreads, S::kSmemBytes, stream, x, w,
                      out, e, g, activation);
}

/// launch_wgmma_shape with the shape of tiles kTiles.
template <typename T, typename Act, IgemmTiles kTiles>
inline cudaError_t launch_igemm_wgmma(const T* x, const T* w, T* out, const Conv2dEpilogue<T>& e,
                                      const IgemmGeom& g, cudaStream_t stream, Act activation) {
  return launch_wgmma_shape<T, Act, typename WgmmaShapeOf<kTiles>::type>(x, w, out, e, g, stream,
                                                                         activation);
}

}  // namespace detail
}  // namespace inferno::kernels
