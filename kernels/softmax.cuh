// kernels/softmax.cuh: softmax and log_softmax along the middle axis of a contiguous
// [outer, dim, inner] tensor, numerically stable: with m = max_j x_j (NaN propagates) and
// s = sum_j exp(x_j - m), softmax = exp(x - m) / s and log_softmax = (x - m) - log(s). Exponentials
// and sums are in float (double for double), with expf/logf rather than the fast intrinsics.
//
//  - inner == 1, dim <= 1024: a group of W lanes per row (W = dim rounded up to a power of two, at
//    most 32; several short rows share a warp). Each lane keeps its kPerLane = ceil(dim / 32)
//    values in registers (a compile-time size: 1, 2, 4, ..., 32), so the row is read once; max and
//    sum are xor butterflies over the group.
//  - inner == 1, longer rows: a block per row. When the row fits in 44 KB of shared memory it is
//    read once into it (each thread keeps the entries it reads); otherwise the first pass keeps a
//    running max and a sum rescaled to it (online softmax) and the write pass reads the row again.
//    Both row paths move packs of up to 16 bytes when dim and the pointers allow.
//  - inner > 1: a block covers bx consecutive columns of one o and splits dim over its by rows of
//    threads (column_tiles in common.cuh): max, a shared-memory tree, sum, a tree, then the writes.
// The order of every max and sum depends only on the shape (and on the pointers' alignment), so
// results are bitwise reproducible.
#pragma once

#include "common.cuh"

namespace inferno::kernels {
namespace detail {

constexpr int kSoftmaxWarpMaxDim = 1024;
constexpr int kSoftmaxGroupThreads = 256;
constexpr int kSoftmaxBlockThreads = 512;
constexpr int64_t kSoftmaxSharedBytes =
    44 * 1024;  // dynamic row cache; 48 KB in all without opt-in

/// softmax or log_softmax of one shifted value x - m, given s (and log s).
template <typename A>
__device__ __forceinline__ A softmax_value(A shifted, A s, A log_s, bool log) {
  return log ? shifted - log_s : acc_exp(shifted) / s;
}

/// For the row paths that keep the row (in registers or shared memory) between the passes:
/// returns exp(x - m) for the sum and keeps in x what the write pass needs, exp(x - m) for
/// softmax and x itself for log_softmax.
template <typename A>
__device__ __forceinline__ A exp_and_keep(A& x, A m, bool log) {
  const A ex = acc_exp(x - m);
  if (!log) x = ex;
  return ex;
}

/// The output from a value exp_and_keep kept.
template <typename A>
__device__ __forceinline__ A softmax_from_kept(A kept, A m, A s, A log_s, bool log) {
  return log ? (kept - m) - log_s : kept / s;
}

/// inner == 1, dim <= kWidth * kPerLane: a group of kWidth lanes per row, kPerLane values per lane
/// in registers, read and written in packs of kVec elements (pack c of lane `sub` holds elements
/// (c * kWidth + sub) * kVec + e; the launcher makes kVec divide dim).
template <typename T, int kWidth, int kPerLane, int kVec>
__global__ void __launch_bounds__(kSoftmaxGroupThreads)
    softmax_rows_group_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t rows, int dim,
                              bool log) {
  using A = acc_t<T>;
  constexpr int kPacks = kPerLane / kVec;
  for_each_group_row<kWidth>(rows, [&](int64_t row, int sub) {
    const bool valid = row < rows;
    A v[kPerLane];
    A m = -acc_infinity<A>();
#pragma unroll
    for (int c = 0; c < kPacks; ++c) {
      const int j = (c * kWidth + sub) * kVec;
      if (valid && j < dim) {
        const Pack<T, kVec> pack = load_pack<kVec>(in + row * dim + j);
#pragma unroll
        for (int e = 0; e < kVec; ++e) v[c * kVec + e] = to_acc(pack.v[e]);
      } else {
#pragma unroll
        for (int e = 0; e < kVec; ++e) v[c * kVec + e] = -acc_infinity<A>();
      }
#pragma unroll
      for (int e = 0; e < kVec; ++e) m = max_nan(m, v[c * kVec + e]);
    }
    m = warp_reduce<kWidth>(m, MaxOp{});
    A s = 0;
#pragma unroll
    for (int c = 0; c < kPacks; ++c) {
      if ((c * kWidth + sub) * kVec < dim) {
#pragma unroll
        for (int e = 0; e < kVec; ++e) s += exp_and_keep(v[c * kVec + e], m, log);
      }
    }
    s = warp_reduce<kWidth>(s, SumOp{});
    const A log_s = log ? acc_log(s) : A(0);
#pragma unroll
    for (int c = 0; c < kPacks; ++c) {
      const int j = (c * kWidth + sub) * kVec;
      if (valid && j < dim) {
        Pack<T, kVec> pack;
#pragma unroll
        for (int e = 0; e < kVec; ++e)
          pack.v[e] = from_acc<T>(softmax_from_kept(v[c * kVec + e], m, s, log_s, log));
        store_pack(out + row * dim + j, pack);
      }
    }
  });
}

/// inner == 1: a block per row, read in packs of kVec elements (kVec divides dim). kCached: the
/// row is staged in dynamic shared memory (dim values of the accumulator type) during the max
/// pass and read from there after. Otherwise the first pass keeps a running max and a sum rescaled
/// to it (online softmax), so the row is read twice instead of three times.
template <typename T, int kVec, bool kCached>
__global__ void __launch_bounds__(kSoftmaxBlockThreads)
    softmax_rows_block_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t rows,
                              int64_t dim, bool log) {
  using A = acc_t<T>;
  __shared__ A scratch[32];
  extern __shared__ unsigned char row_bytes[];  // dim values when kCached
  A* cache = reinterpret_cast<A*>(row_bytes);
  const A inf = acc_infinity<A>();
  const int64_t packs = dim / kVec;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* p = in + row * dim;
    T* q = out + row * dim;
    A m = -inf, s = 0;
    for (int64_t c = threadIdx.x; c < packs; c += blockDim.x) {
      const Pack<T, kVec> pack = load_pack<kVec>(p + c * kVec);
#pragma unroll
      for (int e = 0; e < kVec; ++e) {
        const A x = to_acc(pack.v[e]);
        if constexpr (kCached) {
          cache[c * kVec + e] = x;  // only this thread reads it back: no barrier needed
          m = max_nan(m, x);
        } else if (x > m) {
          s = s * acc_exp(m - x) + A(1);  // exp(-inf) = 0 while m is still -inf
          m = x;
        } else if (x != -inf) {
          s += acc_exp(x - m);  // NaN x makes s NaN, and so every output, as in the reference
        }
      }
    }
    if constexpr (kCached) {
      m = block_reduce(m, MaxOp{}, -inf, scratch);
      for (int64_t c = threadIdx.x; c < packs; c += blockDim.x) {
#pragma unroll
        for (int e = 0; e < kVec; ++e) s += exp_and_keep(cache[c * kVec + e], m, log);
      }
    } else {
      const A block_m = block_reduce(m, MaxOp{}, -inf, scratch);
      s = m == -inf ? A(0) : s * acc_exp(m - block_m);
      m = block_m;
    }
    s = block_reduce(s, SumOp{}, A(0), scratch);
    const A log_s = log ? acc_log(s) : A(0);
    for (int64_t c = threadIdx.x; c < packs; c += blockDim.x) {
      Pack<T, kVec> pack;
      if constexpr (kCached) {
#pragma unroll
        for (int e = 0; e < kVec; ++e)
          pack.v[e] = from_acc<T>(softmax_from_kept(cache[c * kVec + e], m, s, log_s, log));
      } else {
        pack = load_pack<kVec>(p + c * kVec);
#pragma unroll
        for (int e = 0; e < kVec; ++e)
          pack.v[e] = from_acc<T>(softmax_value(to_acc(pack.v[e]) - m, s, log_s, log));
      }
      store_pack(q + c * kVec, pack);
    }
  }
}

/// inner > 1: tiles of column_tiles(); thread (x, y) takes rows y, y + by, ... of its column for
/// the max, the sum and the writes, with a shared-memory tree over y after the first two.
template <typename T>
__global__ void __launch_bounds__(kColumnMaxThreads)
    softmax_columns_kernel(const T* __restrict__ in, T* __restrict__ out, int64_t outer,
                           int64_t dim, int64_t inner, int64_t tiles_per_outer, bool log) {
  using A = acc_t<T>;
  __shared__ A partial[kColumnMaxThreads];
  for_each_column_tile(outer, tiles_per_outer, [&](int64_t o, int64_t i) {
    const bool valid = i < inner;
    const int64_t base = o * dim * inner + i;
    A m = -acc_infinity<A>();
    if (valid) {
#pragma unroll 4
      for (int64_t j = threadIdx.y; j < dim; j += blockDim.y)
        m = max_nan(m, to_acc(in[base + j * inner]));
    }
    m = column_reduce(m, MaxOp{}, partial);
    A s = 0;
    if (valid) {
#pragma unroll 4
      for (int64_t j = threadIdx.y; j < dim; j += blockDim.y)
        s += acc_exp(to_acc(in[base + j * inner]) - m);
    }
    s = column_reduce(s, SumOp{}, partial);
    const A log_s = log ? acc_log(s) : A(0);
    if (valid) {
#pragma unroll 4
      for (int64_t j = threadIdx.y; j < dim; j += blockDim.y) {
        out[base + j * inner] =
            from_acc<T>(softmax_value(to_acc(in[base + j * inner]) - m, s, log_s, log));
      }
    }
  });
}

template <typename T, int kWidth, int kPerLane, int kVec = 1>
inline void launch_softmax_group(const T* in, T* out, int64_t rows, int64_t dim, bool log,
                                 cudaStream_t stream) {
  constexpr int64_t kRowsPerBlock = kSoftmaxGroupThreads / kWidth;
  softmax_rows_group_kernel<T, kWidth, kPerLane, kVec>
      <<<grid_size(rows, kRowsPerBlock), kSoftmaxGroupThreads, 0, stream>>>(
          in, out, rows, static_cast<int>(dim), log);
}

/// Warp-wide groups: packs of up to 16 bytes (at most kPerLane elements) when they fit.
template <typename T, int kPerLane>
inline void launch_softmax_warp(const T* in, T* out, int64_t rows, int64_t dim, bool log,
                                cudaStream_t stream) {
  constexpr int kVec = kPack16<T> < kPerLane ? kPack16<T> : kPerLane;
  if (packs_fit<T>(kVec, dim, in, out)) {
    launch_softmax_group<T, 32, kPerLane, kVec>(in, out, rows, dim, log, stream);
  } else {
    launch_softmax_group<T, 32, kPerLane>(in, out, rows, dim, log, stream);
  }
}

template <typename T, int kVec>
inline void launch_softmax_block(const T* in, T* out, int64_t rows, int64_t dim, bool log,
                                 cudaStream_t stream) {
  const unsigned blocks = grid_size(rows, 1);
  const int64_t cache_bytes = dim * static_cast<int64_t>(sizeof(acc_t<T>));
  if (cache_bytes <= kSoftmaxSharedBytes) {
    softmax_rows_block_kernel<T, kVec, true>
        <<<blocks, kSoftmaxBlockThreads, static_cast<size_t>(cache_bytes), stream>>>(in, out, rows,
                                                                                     dim, log);
  } else {
    softmax_rows_block_kernel<T, kVec, false>
        <<<blocks, kSoftmaxBlockThreads, 0, stream>>>(in, out, rows, dim, log);
  }
}

}  // namespace detail

/// softmax (log = false) or log_softmax (log = true) of contiguous [outer, dim, inner] along dim,
/// into out of the same shape.
template <typename T>
inline cudaError_t softmax(const T* in, T* out, int64_t outer, int64_t dim, int64_t inner, bool log,
                           cudaStream_t stream) {
  static_assert(is_float_type_v<T>, "softmax: float, double, __half or __nv_bfloat16");
  using namespace detail;
  if (outer < 0 || dim < 0 || inner < 0) return cudaErrorInvalidValue;
  if (outer == 0 || dim == 0 || inner == 0) return cudaSuccess;
  if (in == nullptr || out == nullptr) return cudaErrorInvalidValue;
  if (inner > 1) {
    const ColumnTiles tiles = column_tiles(outer, dim, inner, static_cast<int>(sizeof(T)));
    softmax_columns_kernel<T>
        <<<grid_size(outer * tiles.tiles_per_outer, 1), tiles.block, 0, stream>>>(
            in, out, outer, dim, inner, tiles.tiles_per_outer, log);
    return cudaGetLastError();
  }
  if (dim <= kSoftmaxWarpMaxDim) {
    // clang-format off
    switch (pow2_at_least(dim, 1024)) {
      case 1: launch_softmax_group<T, 1, 1>(in, out, outer, dim, log, stream); break;
      case 2: launch_softmax_group<T, 2, 1>(in, out, outer, dim, log, stream); break;
      case 4: launch_softmax_group<T, 4, 1>(in, out, outer, dim, log, stream); break;
      case 8: launch_softmax_group<T, 8, 1>(in, out, outer, dim, log, stream); break;
      case 16: launch_softmax_group<T, 16, 1>(in, out, outer, dim, log, stream); break;
      case 32: launch_softmax_group<T, 32, 1>(in, out, outer, dim, log, stream); break;
      case 64: launch_softmax_warp<T, 2>(in, out, outer, dim, log, stream); break;
      case 128: launch_softmax_warp<T, 4>(in, out, outer, dim, log, stream); break;
      case 256: launch_softmax_warp<T, 8>(in, out, outer, dim, log, stream); break;
      case 512: launch_softmax_warp<T, 16>(in, out, outer, dim, log, stream); break;
      default: launch_softmax_warp<T, 32>(in, out, outer, dim, log, stream); break;
    }
    // clang-format on
  } else if (packs_fit<T>(kPack16<T>, dim, in, out)) {
    launch_softmax_block<T, kPack16<T>>(in, out, outer, dim, log, stream);
  } else {
    launch_softmax_block<T, 1>(in, out, outer, dim, log, stream);
  }
  return cudaGetLastError();
}

}  // namespace inferno::kernels
