// kernels/norm.cuh: layer_norm, rms_norm and group_norm over the rows of a contiguous tensor. A
// row is what one mean and variance cover: the last dims of x (layer_norm, rms_norm), or one group
// of channels of one image, contiguous in [N, C, spatial] (group_norm). Every element becomes
// (x - mean) / sqrt(var + eps) * weight + bias with the biased variance, as PyTorch, weight and
// bias optional (null), per element of the row (layer_norm) or per channel (group_norm).
// rms_norm takes the same paths as layer_norm (kRms) with no mean and no bias:
// x / sqrt(mean(x^2) + eps) * weight, its sum of squares over x itself (no shift, no cancellation).
//
// Accumulation in float (double for double), numerically stable for rows far from zero (1000 +- 1):
//  - the sums are of x - x0, x0 the row's first element (a shift that is exact for values within
//    a factor of two of x0), so the mean of such a row keeps the digits a float sum of values
//    around 1000 would round away;
//  - the variance is two-pass, the squared deviations from the mean, over values kept in
//    registers or shared memory (E[x^2] - E[x]^2 would cancel away every digit).
//  - layer_norm, rows of at most 1024: a group of W lanes per row (W = length rounded up to a
//    power of two, at most 32; several short rows share a warp), each lane keeping its ceil(length
//    / 32) values in registers (a compile-time count), so x is read once; sums are xor
//    butterflies over the group. Packs of up to 16 bytes when the length and pointers allow.
//  - longer rows, and every group_norm: a block per row. When the row fits in 44 KB of shared
//    memory it is read once into it (each thread reads back only what it wrote); otherwise x is
//    read again for the deviations and for the writes.
// Sums are added in an order fixed by the shape (and the pointers' alignment), so results are
// bitwise reproducible.
#pragma once

#include "common.cuh"

namespace inferno::kernels {
namespace detail {

constexpr int kNormWarpMaxLength = 1024;
constexpr int kNormGroupThreads = 256;
constexpr int kNormBlockThreads = 512;
constexpr int64_t kNormSharedBytes = 44 * 1024;  // dynamic row cache; 48 KB in all without opt-in

/// 1 / sqrt(v) with the correctly rounded sqrt and division (not the approximate rsqrtf).
__device__ __forceinline__ float inv_sqrt(float v) { return 1.0f / sqrtf(v); }
__device__ __forceinline__ double inv_sqrt(double v) { return 1.0 / sqrt(v); }

/// layer_norm, length <= kWidth * kPerLane: a group of kWidth lanes per row, kPerLane values per
/// lane in registers, moved in packs of kVec elements (pack c of lane `sub` holds elements
/// (c * kWidth + sub) * kVec + e; the launcher makes kVec divide the length and align every
/// pointer). kRms: rms_norm (no mean, no bias).
template <typename T, int kWidth, int kPerLane, int kVec, bool kRms>
__global__ void __launch_bounds__(kNormGroupThreads)
    layer_norm_group_kernel(const T* __restrict__ in, const T* __restrict__ weight,
                            const T* __restrict__ bias, T* __restrict__ out, int64_t rows,
                            int length, acc_t<T> eps) {
  using A = acc_t<T>;
  constexpr int kPacks = kPerLane / kVec;
  for_each_group_row<kWidth>(rows, [&](int64_t row, int sub) {
    const bool valid = row < rows;
    A v[kPerLane];
#pragma unroll
    for (int c = 0; c < kPacks; ++c) {
      const int j = (c * kWidth + sub) * kVec;
      if (valid && j < length) {
        const Pack<T, kVec> pack = load_pack<kVec>(in + row * length + j);
#pragma unroll
        for (int e = 0; e < kVec; ++e) v[c * kVec + e] = to_acc(pack.v[e]);
      } else {
#pragma unroll
        for (int e = 0; e < kVec; ++e) v[c * kVec + e] = A(0);
      }
    }
    A mean = 0;  // rms_norm: none, and v stays x
    if constexpr (!kRms) {
      // From here on v holds x - x0; x0 is v[0] of the group's first lane (element 0).
      const A pivot = __shfl_sync(0xffffffffu, v[0], 0, kWidth);
      A sum = 0;
#pragma unroll
      for (int c = 0; c < kPacks; ++c) {
        if ((c * kWidth + sub) * kVec < length) {
#pragma unroll
          for (int e = 0; e < kVec; ++e) {
            v[c * kVec + e] -= pivot;
            sum += v[c * kVec + e];
          }
        }
      }
      mean = warp_reduce<kWidth>(sum, SumOp{}) / static_cast<A>(length);  // of x - x0
    }
    A squares = 0;
#pragma unroll
    for (int c = 0; c < kPacks; ++c) {
      if ((c * kWidth + sub) * kVec < length) {
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          const A d = v[c * kVec + e] - mean;
          squares += d * d;
        }
      }
    }
    const A inv_std =
        inv_sqrt(warp_reduce<kWidth>(squares, SumOp{}) / static_cast<A>(length) + eps);
#pragma unroll
    for (int c = 0; c < kPacks; ++c) {
      const int j = (c * kWidth + sub) * kVec;
      if (!valid || j >= length) continue;
      const Pack<T, kVec> w = weight != nullptr ? load_pack<kVec>(weight + j) : Pack<T, kVec>{};
      const Pack<T, kVec> b = bias != nullptr ? load_pack<kVec>(bias + j) : Pack<T, kVec>{};
      Pack<T, kVec> y;
#pragma unroll
      for (int e = 0; e < kVec; ++e) {
        A r = (v[c * kVec + e] - mean) * inv_std;
        if (weight != nullptr) r *= to_acc(w.v[e]);
        if (bias != nullptr) r += to_acc(b.v[e]);
        y.v[e] = from_acc<T>(r);
      }
      store_pack(out + row * length + j, y);
    }
  });
}

/// A block per row of `length` elements, moved in packs of kVec (kVec divides the length, and for
/// group_norm `spatial`, so a pack never spans two channels). kCached: the row is staged in
/// dynamic shared memory (length values of the accumulator type) by the first pass. kGrouped:
/// group_norm, whose element j of row r takes the parameters of channel
/// (r % groups) * channels_per_group + j / spatial; otherwise layer_norm's, of element j. kRms:
/// rms_norm (layer_norm's parameters, no mean, no shift by x0).
template <typename T, int kVec, bool kCached, bool kGrouped, bool kRms = false>
__global__ void __launch_bounds__(kNormBlockThreads)
    norm_rows_block_kernel(const T* __restrict__ in, const T* __restrict__ weight,
                           const T* __restrict__ bias, T* __restrict__ out, int64_t rows,
                           int64_t length, acc_t<T> eps, int64_t groups, int64_t channels_per_group,
                           int64_t spatial) {
  using A = acc_t<T>;
  __shared__ A scratch[32];
  extern __shared__ unsigned char row_bytes[];  // length values when kCached
  A* cache = reinterpret_cast<A*>(row_bytes);
  const int64_t packs = length / kVec;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* p = in + row * length;
    T* q = out + row * length;
    const A pivot = kRms ? A(0) : to_acc(p[0]);  // x0: every value below is x - x0
    // The pack's values x - x0: from the cache, or from x again.
    auto values = [&](int64_t c, A(&x)[kVec]) {
      if constexpr (kCached) {
#pragma unroll
        for (int e = 0; e < kVec; ++e) x[e] = cache[c * kVec + e];
      } else {
        const Pack<T, kVec> pack = load_pack<kVec>(p + c * kVec);
#pragma unroll
        for (int e = 0; e < kVec; ++e) x[e] = to_acc(pack.v[e]) - pivot;
      }
    };
    A sum = 0;
    if constexpr (kCached || !kRms) {
      for (int64_t c = threadIdx.x; c < packs; c += blockDim.x) {
        const Pack<T, kVec> pack = load_pack<kVec>(p + c * kVec);
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          const A x = to_acc(pack.v[e]) - pivot;
          if constexpr (kCached) cache[c * kVec + e] = x;  // read back by this thread only
          sum += x;
        }
      }
    }
    A mean = 0;  // of x - x0; none for rms_norm
    if constexpr (!kRms) mean = block_reduce(sum, SumOp{}, A(0), scratch) / static_cast<A>(length);
    static_cast<void>(sum);  // only the cache was wanted (rms_norm)
    A squares = 0;
    for (int64_t c = threadIdx.x; c < packs; c += blockDim.x) {
      A x[kVec];
      values(c, x);
#pragma unroll
      for (int e = 0; e < kVec; ++e) {
        const A d = x[e] - mean;
        squares += d * d;
      }
    }
    const A inv_std =
        inv_sqrt(block_reduce(squares, SumOp{}, A(0), scratch) / static_cast<A>(length) + eps);
    const int64_t first_channel = kGrouped ? (row % groups) * channels_per_group : 0;
    for (int64_t c = threadIdx.x; c < packs; c += blockDim.x) {
      A x[kVec], w[kVec], b[kVec];
      values(c, x);
      const int64_t j = c * kVec;
      if constexpr (kGrouped) {
        const int64_t channel = first_channel + j / spatial;
        const A wc = weight != nullptr ? to_acc(weight[channel]) : A(1);
        const A bc = bias != nullptr ? to_acc(bias[channel]) : A(0);
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          w[e] = wc;
          b[e] = bc;
        }
      } else {
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          w[e] = A(1);
          b[e] = A(0);
        }
        if (weight != nullptr) {
          const Pack<T, kVec> pack = load_pack<kVec>(weight + j);
#pragma unroll
          for (int e = 0; e < kVec; ++e) w[e] = to_acc(pack.v[e]);
        }
        if (bias != nullptr) {
          const Pack<T, kVec> pack = load_pack<kVec>(bias + j);
#pragma unroll
          for (int e = 0; e < kVec; ++e) b[e] = to_acc(pack.v[e]);
        }
      }
      Pack<T, kVec> y;
#pragma unroll
      for (int e = 0; e < kVec; ++e) {
        A r = (x[e] - mean) * inv_std;
        if (weight != nullptr) r *= w[e];
        if (bias != nullptr) r += b[e];
        y.v[e] = from_acc<T>(r);
      }
      store_pack(q + j, y);
    }
  }
}

template <typename T, bool kRms, int kWidth, int kPerLane, int kVec = 1>
inline void launch_layer_norm_group(const T* in, const T* weight, const T* bias, T* out,
                                    int64_t rows, int64_t length, acc_t<T> eps,
                                    cudaStream_t stream) {
  constexpr int64_t kRowsPerBlock = kNormGroupThreads / kWidth;
  layer_norm_group_kernel<T, kWidth, kPerLane, kVec, kRms>
      <<<grid_size(rows, kRowsPerBlock), kNormGroupThreads, 0, stream>>>(
          in, weight, bias, out, rows, static_cast<int>(length), eps);
}

/// Whether packs of n elements tile rows of `length` at every pointer (null ones aside).
template <typename T>
inline bool norm_packs_fit(int n, int64_t length, const T* in, const T* out, const T* weight,
                           const T* bias) {
  return packs_fit<T>(n, length, in, out) &&
         packs_fit<T>(n, length, weight != nullptr ? weight : in, bias != nullptr ? bias : in);
}

/// Warp-wide groups: packs of up to 16 bytes (at most kPerLane elements) when they fit.
template <typename T, bool kRms, int kPerLane>
inline void launch_layer_norm_warp(const T* in, const T* weight, const T* bias, T* out,
                                   int64_t rows, int64_t length, acc_t<T> eps,
                                   cudaStream_t stream) {
  constexpr int kVec = kPack16<T> < kPerLane ? kPack16<T> : kPerLane;
  if (norm_packs_fit<T>(kVec, length, in, out, weight, bias)) {
    launch_layer_norm_group<T, kRms, 32, kPerLane, kVec>(in, weight, bias, out, rows, length, eps,
                                                         stream);
  } else {
    launch_layer_norm_group<T, kRms, 32, kPerLane>(in, weight, bias, out, rows, length, eps,
                                                   stream);
  }
}

template <typename T, int kVec, bool kGrouped, bool kRms = false>
inline void launch_norm_block(const T* in, const T* weight, const T* bias, T* out, int64_t rows,
                              int64_t length, acc_t<T> eps, int64_t groups,
                              int64_t channels_per_group, int64_t spatial, cudaStream_t stream) {
  const unsigned blocks = grid_size(rows, 1);
  const int64_t cache_bytes = length * static_cast<int64_t>(sizeof(acc_t<T>));
  if (cache_bytes <= kNormSharedBytes) {
    norm_rows_block_kernel<T, kVec, true, kGrouped, kRms>
        <<<blocks, kNormBlockThreads, static_cast<size_t>(cache_bytes), stream>>>(
            in, weight, bias, out, rows, length, eps, groups, channels_per_group, spatial);
  } else {
    norm_rows_block_kernel<T, kVec, false, kGrouped, kRms>
        <<<blocks, kNormBlockThreads, 0, stream>>>(in, weight, bias, out, rows, length, eps, groups,
                                                   channels_per_group, spatial);
  }
}

/// layer_norm (or rms_norm, kRms) of contiguous [rows, length], by the row's length: a group of
/// lanes or a warp per row up to kNormWarpMaxLength, a block per row above.
template <typename T, bool kRms>
inline void launch_norm_rows(const T* in, const T* weight, const T* bias, T* out, int64_t rows,
                             int64_t length, acc_t<T> e, cudaStream_t stream) {
  if (length <= kNormWarpMaxLength) {
    // clang-format off
    switch (pow2_at_least(length, 1024)) {
      case 1: launch_layer_norm_group<T, kRms, 1, 1>(in, weight, bias, out, rows, length, e, stream); break;
      case 2: launch_layer_norm_group<T, kRms, 2, 1>(in, weight, bias, out, rows, length, e, stream); break;
      case 4: launch_layer_norm_group<T, kRms, 4, 1>(in, weight, bias, out, rows, length, e, stream); break;
      case 8: launch_layer_norm_group<T, kRms, 8, 1>(in, weight, bias, out, rows, length, e, stream); break;
      case 16: launch_layer_norm_group<T, kRms, 16, 1>(in, weight, bias, out, rows, length, e, stream); break;
      case 32: launch_layer_norm_group<T, kRms, 32, 1>(in, weight, bias, out, rows, length, e, stream); break;
      case 64: launch_layer_norm_warp<T, kRms, 2>(in, weight, bias, out, rows, length, e, stream); break;
      case 128: launch_layer_norm_warp<T, kRms, 4>(in, weight, bias, out, rows, length, e, stream); break;
      case 256: launch_layer_norm_warp<T, kRms, 8>(in, weight, bias, out, rows, length, e, stream); break;
      case 512: launch_layer_norm_warp<T, kRms, 16>(in, weight, bias, out, rows, length, e, stream); break;
      default: launch_layer_norm_warp<T, kRms, 32>(in, weight, bias, out, rows, length, e, stream); break;
    }
    // clang-format on
  } else if (norm_packs_fit<T>(kPack16<T>, length, in, out, weight, bias)) {
    launch_norm_block<T, kPack16<T>, false, kRms>(in, weight, bias, out, rows, length, e, 1, 1, 1,
                                                  stream);
  } else {
    launch_norm_block<T, 1, false, kRms>(in, weight, bias, out, rows, length, e, 1, 1, 1, stream);
  }
}

}  // namespace detail

/// layer_norm of contiguous [rows, length] over each row into `out` of the same shape; weight and
/// bias ([length]) may be null.
template <typename T>
inline cudaError_t layer_norm(const T* in, const T* weight, const T* bias, T* out, int64_t rows,
                              int64_t length, double eps, cudaStream_t stream) {
  static_assert(is_float_type_v<T>, "layer_norm: float, double, __half or __nv_bfloat16");
  if (rows < 0 || length < 0) return cudaErrorInvalidValue;
  if (rows == 0 || length == 0) return cudaSuccess;
  if (in == nullptr || out == nullptr) return cudaErrorInvalidValue;
  detail::launch_norm_rows<T, false>(in, weight, bias, out, rows, length,
                                     static_cast<acc_t<T>>(eps), stream);
  return cudaGetLastError();
}

/// rms_norm of contiguous [rows, length] over each row into `out` of the same shape; weight
/// ([length]) may be null.
template <typename T>
inline cudaError_t rms_norm(const T* in, const T* weight, T* out, int64_t rows, int64_t length,
                            double eps, cudaStream_t stream) {
  static_assert(is_float_type_v<T>, "rms_norm: float, double, __half or __nv_bfloat16");
  if (rows < 0 || length < 0) return cudaErrorInvalidValue;
  if (rows == 0 || length == 0) return cudaSuccess;
  if (in == nullptr || out == nullptr) return cudaErrorInvalidValue;
  detail::launch_norm_rows<T, true>(in, weight, nullptr, out, rows, length,
                                    static_cast<acc_t<T>>(eps), stream);
  return cudaGetLastError();
}

/// group_norm of contiguous [batch, channels, spatial] in `groups` groups of channels (groups
/// divides channels) into `out` of the same shape; weight and bias ([channels]) may be null.
template <typename T>
inline cudaError_t group_norm(const T* in, const T* weight, const T* bias, T* out, int64_t batch,
                              int64_t channels, int64_t spatial, int64_t groups, double eps,
                              cudaStream_t stream) {
  static_assert(is_float_type_v<T>, "group_norm: float, double, __half or __nv_bfloat16");
  using namespace detail;
  if (batch < 0 || channels < 0 || spatial < 0 || groups < 1 || channels % groups != 0)
    return cudaErrorInvalidValue;
  if (batch == 0 || channels == 0 || spatial == 0) return cudaSuccess;
  if (in == nullptr || out == nullptr) return cudaErrorInvalidValue;
  const auto e = static_cast<acc_t<T>>(eps);
  const int64_t channels_per_group = channels / groups, rows = batch * groups;
  const int64_t length = channels_per_group * spatial;
  // Packs must not span channels: they tile `spatial`, and so every row.
  if (packs_fit<T>(kPack16<T>, spatial, in, out)) {
    launch_norm_block<T, kPack16<T>, true>(in, weight, bias, out, rows, length, e, groups,
                                           channels_per_group, spatial, stream);
  } else {
    launch_norm_block<T, 1, true>(in, weight, bias, out, rows, length, e, groups,
                                  channels_per_group, spatial, stream);
  }
  return cudaGetLastError();
}

}  // namespace inferno::kernels
