// kernels/reduction.cuh: reduce_sum, out[o, i] = scale * sum_r in[o, r, i] over a contiguous input
// viewed as [outer, reduce, inner] (scale 1 for sum, 1/reduce for mean). Other dim sets are first
// made adjacent by strided_copy.
//
// Three kernels, all adding in float (double for double) in an order fixed by the shape (and
// whether the input is 16-byte aligned), so results are bitwise reproducible run to run (no
// atomics):
//  - inner == 1, reduce <= 1024: a group of W lanes per row (W = reduce rounded up to a power of
//    two, at most 32; several rows share a warp when W < 32); lane l sums elements l, l+W, ...,
//    then an xor butterfly sums the lanes.
//  - inner == 1, longer rows: a block per row; thread t sums t, t+blockDim, ..., then the warps'
//    butterflies and one more over the warps' partials.
//    Both read rows in 16-byte packs (lane l then sums pack l, l+W, ... element by element) when
//    the row length and the pointer allow; warp-wide groups do so from 32 packs a row up.
//  - inner > 1: a block covers bx consecutive columns of one o (threads across inner read
//    coalesced) and splits the reduced axis over its by rows of threads (column_tiles in
//    common.cuh); thread (x, y) sums rows y, y+by, ... of its column, then a fixed shared-memory
//    tree sums the by partials.
// Blocks loop over their rows or tiles (grid-stride) so any outer fits the grid. One row is never
// split across blocks (that would need a workspace), so a few very long rows use only a few SMs.
#pragma once

#include "common.cuh"

namespace inferno::kernels {
namespace detail {

constexpr int kReduceWarpMaxLength = 1024;  // longest row a lane group takes
constexpr int kReduceGroupThreads = 256;    // threads of a block of lane groups

/// Sums a row's packs c = first, first + step, ... (kVec elements each, in order) into acc.
template <int kVec, typename T>
__device__ __forceinline__ acc_t<T> sum_packs(const T* p, int64_t first, int64_t packs,
                                              int64_t step) {
  acc_t<T> acc = 0;
#pragma unroll 4
  for (int64_t c = first; c < packs; c += step) {
    const Pack<T, kVec> pack = load_pack<kVec>(p + c * kVec);
#pragma unroll
    for (int e = 0; e < kVec; ++e) acc += to_acc(pack.v[e]);
  }
  return acc;
}

/// inner == 1: a group of kWidth lanes per row; rows are read in packs of kVec elements.
template <typename T, int kWidth, int kVec>
__global__ void __launch_bounds__(kReduceGroupThreads)
    reduce_rows_group_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t rows,
                             int64_t length, acc_t<T> scale) {
  for_each_group_row<kWidth>(rows, [&](int64_t row, int sub) {
    acc_t<T> acc = 0;
    if (row < rows) acc = sum_packs<kVec>(in + row * length, sub, length / kVec, kWidth);
    acc = warp_reduce<kWidth>(acc, SumOp{});
    if (sub == 0 && row < rows) out[row] = from_acc<T>(acc * scale);
  });
}

/// inner == 1: a block per row; rows are read in packs of kVec elements.
template <typename T, int kThreads, int kVec>
__global__ void __launch_bounds__(kThreads)
    reduce_rows_block_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t rows,
                             int64_t length, acc_t<T> scale) {
  using A = acc_t<T>;
  __shared__ A scratch[32];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    A acc = sum_packs<kVec>(in + row * length, threadIdx.x, length / kVec, kThreads);
    acc = block_reduce(acc, SumOp{}, A(0), scratch);
    if (threadIdx.x == 0) out[row] = from_acc<T>(acc * scale);
  }
}

/// inner > 1: tiles of column_tiles(); thread (x, y) sums rows y, y + by, ... of its column.
template <typename T>
__global__ void __launch_bounds__(kColumnMaxThreads)
    reduce_columns_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t outer,
                          int64_t length, int64_t inner, int64_t tiles_per_outer, acc_t<T> scale) {
  using A = acc_t<T>;
  __shared__ A partial[kColumnMaxThreads];
  for_each_column_tile(outer, tiles_per_outer, [&](int64_t o, int64_t i) {
    A acc = 0;
    if (i < inner) {
      const T* p = in + o * length * inner + i;
#pragma unroll 8
      for (int64_t r = threadIdx.y; r < length; r += blockDim.y) acc += to_acc(p[r * inner]);
    }
    acc = column_reduce(acc, SumOp{}, partial);
    if (threadIdx.y == 0 && i < inner) out[o * inner + i] = from_acc<T>(acc * scale);
  });
}

/// The scale in the accumulator's type. For double, a float scale equal to float(1/reduce) is
/// taken as the exact double 1/reduce, so a double mean keeps double precision.
template <typename T>
inline acc_t<T> accumulator_scale(float scale, int64_t reduce) {
  if constexpr (std::is_same_v<T, double>) {
    const double exact = 1.0 / static_cast<double>(reduce);
    return reduce > 0 && scale == static_cast<float>(exact) ? exact : static_cast<double>(scale);
  } else {
    return scale;
  }
}

template <typename T, int kWidth, int kVec = 1>
inline void launch_rows_group(const T* in, T* out, int64_t rows, int64_t length, acc_t<T> scale,
                              cudaStream_t stream) {
  constexpr int64_t kRowsPerBlock = kReduceGroupThreads / kWidth;
  reduce_rows_group_kernel<T, kWidth, kVec>
      <<<grid_size(rows, kRowsPerBlock), kReduceGroupThreads, 0, stream>>>(in, out, rows, length,
                                                                           scale);
}

template <typename T, int kThreads>
inline void launch_rows_block(const T* in, T* out, int64_t rows, int64_t length, acc_t<T> scale,
                              cudaStream_t stream) {
  if (packs_fit<T>(kPack16<T>, length, in, in)) {
    reduce_rows_block_kernel<T, kThreads, kPack16<T>>
        <<<grid_size(rows, 1), kThreads, 0, stream>>>(in, out, rows, length, scale);
  } else {
    reduce_rows_block_kernel<T, kThreads, 1>
        <<<grid_size(rows, 1), kThreads, 0, stream>>>(in, out, rows, length, scale);
  }
}

}  // namespace detail

/// out[o, i] = scale * sum_r in[o, r, i] for in contiguous [outer, reduce, inner] and out
/// contiguous [outer, inner]. reduce == 0 gives scale * 0.
template <typename T>
inline cudaError_t reduce_sum(const T* in, T* out, int64_t outer, int64_t reduce, int64_t inner,
                              float scale, cudaStream_t stream) {
  static_assert(is_float_type_v<T>, "reduce_sum: float, double, __half or __nv_bfloat16");
  using namespace detail;
  if (outer < 0 || reduce < 0 || inner < 0) return cudaErrorInvalidValue;
  if (outer == 0 || inner == 0) return cudaSuccess;
  if (out == nullptr || (reduce > 0 && in == nullptr)) return cudaErrorInvalidValue;
  const acc_t<T> s = accumulator_scale<T>(scale, reduce);
  if (inner == 1) {
    if (reduce <= kReduceWarpMaxLength) {
      // clang-format off
      switch (pow2_at_least(reduce, 32)) {
        case 1: launch_rows_group<T, 1>(in, out, outer, reduce, s, stream); break;
        case 2: launch_rows_group<T, 2>(in, out, outer, reduce, s, stream); break;
        case 4: launch_rows_group<T, 4>(in, out, outer, reduce, s, stream); break;
        case 8: launch_rows_group<T, 8>(in, out, outer, reduce, s, stream); break;
        case 16: launch_rows_group<T, 16>(in, out, outer, reduce, s, stream); break;
        default:  // warp-wide groups read packs once every lane gets at least one
          if (reduce >= 32 * kPack16<T> && packs_fit<T>(kPack16<T>, reduce, in, in)) {
            launch_rows_group<T, 32, kPack16<T>>(in, out, outer, reduce, s, stream);
          } else {
            launch_rows_group<T, 32>(in, out, outer, reduce, s, stream);
          }
          break;
      }
      // clang-format on
    } else if (outer >= 2 * 132) {  // enough rows to fill the GPU with mid-sized blocks
      launch_rows_block<T, 512>(in, out, outer, reduce, s, stream);
    } else {
      launch_rows_block<T, 1024>(in, out, outer, reduce, s, stream);
    }
    return cudaGetLastError();
  }
  const ColumnTiles tiles = column_tiles(outer, reduce, inner, static_cast<int>(sizeof(T)));
  reduce_columns_kernel<T><<<grid_size(outer * tiles.tiles_per_outer, 1), tiles.block, 0, stream>>>(
      in, out, outer, reduce, inner, tiles.tiles_per_outer, s);
  return cudaGetLastError();
}

}  // namespace inferno::kernels
