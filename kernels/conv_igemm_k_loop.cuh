// kernels/conv_igemm_k_loop.cuh: the K loop both of conv_igemm.cuh's kernels run around their
// math: the block's share of the K steps, the two shared-memory layouts a kernel may keep its
// tiles in, and the double-buffered walk that gathers each thread's chunks of A and W into
// registers and stores them into shared memory. conv_igemm.cuh says how they fit together.
#pragma once

#include "common.cuh"
#include "conv.cuh"
#include "conv_igemm_tiles.cuh"

namespace inferno::kernels {
namespace detail {

/// The K steps of this block: all of them, or its share when gridDim.z splits K.
struct StepRange {
  int first, last;
};
__device__ __forceinline__ StepRange step_range(int steps) {
  const int per = (steps + static_cast<int>(gridDim.z) - 1) / static_cast<int>(gridDim.z);
  const int first = static_cast<int>(blockIdx.z) * per;
  return {first, min(steps, first + per)};
}

/// A kRows x kK tile (rows: output pixels of A, or output channels of W) in shared memory,
/// k-contiguous: (row, k) of buffer buf at (buf * kRows + row) * kStride + k, the layout the mma
/// fragments read.
template <typename T, int kRows>
struct KContiguousTile {
  static constexpr int kStride = IgemmTile<T>::kK + IgemmTile<T>::kPad;
  static constexpr int kSize = kRows * kStride;  ///< elements of one buffer
  /// Stores chunk i of Chunks (a TileChunks) into buffer buf.
  template <typename Chunks, int V>
  __device__ __forceinline__ static void put(T* tiles, int buf, int i, const Pack<T, V>& chunk) {
    store_pack(&tiles[(buf * kRows + Chunks::row(i)) * kStride + Chunks::col(i)], chunk);
  }
};

/// The same tile transposed (k-major): (row, k) of buffer buf at (buf * kK + k) * kStride + row,
/// so that a thread's consecutive rows at one k are one vector read.
template <typename T, int kRows>
struct KMajorTile {
  static constexpr int kK = IgemmTile<T>::kK;
  static constexpr int kStride = kRows + IgemmTile<T>::kPad;
  static constexpr int kSize = kK * kStride;  ///< elements of one buffer
  /// Stores chunk i of Chunks (a TileChunks) into buffer buf.
  template <typename Chunks, int V>
  __device__ __forceinline__ static void put(T* tiles, int buf, int i, const Pack<T, V>& chunk) {
#pragma unroll
    for (int j = 0; j < V; ++j)
      tiles[(buf * kK + Chunks::col(i) + j) * kStride + Chunks::row(i)] = chunk.v[j];
  }
};

/// The K loop of an igemm block over IgemmTile<T>'s tiles, kept in shared memory in `Layout`
/// (KContiguousTile or KMajorTile), A's and W's chunks loaded as load_a<kNhwc, kVecA> and
/// load_w<kVecW> allow. The constructor finds this thread's rows of A, `run` walks K around the
/// kernel's math.
template <typename T, template <typename, int> class Layout, bool kNhwc, bool kVecA, bool kVecW>
class IgemmKLoop {
 public:
  using Tile = IgemmTile<T>;
  using TileA = Layout<T, Tile::kM>;
  using TileW = Layout<T, Tile::kN>;
  /// The shared memory `run` needs: two buffers of A's tile, then two of W's.
  static constexpr int kTileBytes = 2 * (TileA::kSize + TileW::kSize) * static_cast<int>(sizeof(T));

  /// This thread's rows of A in the block's tile at output pixel m0.
  __device__ __forceinline__ IgemmKLoop(const IgemmGeom& g, int64_t m0) {
#pragma unroll
    for (int i = 0; i < ChunksA::kCount; ++i) rows_[i] = pixel_row(g, m0 + ChunksA::row(i));
  }

  /// Runs this block's K steps for the tile at channel o0, with A's two buffers at `as` and W's at
  /// `ws` (kTileBytes in all; the kernel derives both from its shared array, as its math does:
  /// derived here instead, nvcc compiled the sm_75 fallback's loops differently): each step,
  /// every thread loads its chunks of the next A and W tiles into registers, `math(buf)` computes
  /// on buffer buf of the tiles, then the registers are stored into the other buffer: one barrier
  /// per step, and the global loads in flight during the math.
  template <typename Math>
  __device__ __forceinline__ void run(const T* x, const T* w, const Conv2dEpilogue<T>& e,
                                      const IgemmGeom& g, int o0, T* as, T* ws, Math math) {
    constexpr int kK = Tile::kK;
    Pack<T, Tile::kVec> ra[ChunksA::kCount], rw[ChunksW::kCount];  // the next step's chunks
    auto load = [&](int k0) {
#pragma unroll
      for (int i = 0; i < ChunksA::kCount; ++i)
        load_a<kNhwc, kVecA>(ra[i], x, e.gate, g, rows_[i], k0 + ChunksA::col(i));
#pragma unroll
      for (int i = 0; i < ChunksW::kCount; ++i)
        load_w<kVecW>(rw[i], w, g, o0 + ChunksW::row(i), k0 + ChunksW::col(i));
    };
    auto store = [&](int buf) {
#pragma unroll
      for (int i = 0; i < ChunksA::kCount; ++i) TileA::template put<ChunksA>(as, buf, i, ra[i]);
#pragma unroll
      for (int i = 0; i < ChunksW::kCount; ++i) TileW::template put<ChunksW>(ws, buf, i, rw[i]);
    };

    const StepRange range = step_range((g.k + kK - 1) / kK);
    if (range.first < range.last) {
      load(range.first * kK);
      store(0);
    }
    __syncthreads();
    for (int step = range.first; step < range.last; ++step) {
      const int buf = (step - range.first) & 1;
      const bool more = step + 1 < range.last;
      if (more) load((step + 1) * kK);
      math(buf);
      if (more) store(buf ^ 1);
      __syncthreads();
    }
  }

 private:
  using ChunksA = TileChunks<T, Tile::kM, Tile::kK, Tile::kThreads>;
  using ChunksW = TileChunks<T, Tile::kN, Tile::kK, Tile::kThreads>;
  PixelRow rows_[ChunksA::kCount];
};

}  // namespace detail
}  // namespace inferno::kernels
