// kernels/copy.cuh: strided_copy, the one gather behind transpose, permute, expand and plain
// copies.
//
// out is contiguous row-major of out_shape and out[i] = in[sum_d idx_d(i) * in_strides[d]]. The
// host first simplifies the view: it drops size-1 dims and merges neighbours that are contiguous
// in the input (stride[d] == stride[d+1] * shape[d+1]; broadcast dims, both stride 0, merge too).
// Then:
//  - one dim left with stride 1: a straight copy, in 16-byte words where both pointers allow,
//    the tail element by element;
//  - a transpose (the output's innermost dim strided in the input, another dim contiguous there,
//    both at least 16 long): 32x32 tiles staged through shared memory, so reads and writes are
//    both coalesced; any other dims index a batch of such transposes;
//  - otherwise one thread per output element (per word: when the innermost dim is contiguous and
//    its length, the other strides and the pointers allow, V elements move as one word of up to
//    16 bytes) divides its flat index by the dims, innermost first, to find its source. The index
//    math is 32-bit whenever the element count and every source offset fit, else 64-bit.
// Elements move as raw bytes, so one instantiation serves every dtype of a size and copies are
// exact (NaN payloads included). in and out must not overlap.
#pragma once

#include "common.cuh"

namespace inferno::kernels {
namespace detail {

/// A simplified view, innermost dim first.
template <typename Index>
struct CopyLayout {
  int rank;
  Index shape[kMaxRank];
  Index stride[kMaxRank];
};

/// The unsigned type of kBytes bytes that raw elements and words move as.
template <int kBytes>
using RawWord = std::conditional_t<
    kBytes == 1, uint8_t,
    std::conditional_t<
        kBytes == 2, uint16_t,
        std::conditional_t<kBytes == 4, uint32_t, std::conditional_t<kBytes == 8, uint2, uint4>>>>;

constexpr int kCopyThreads = 256;

template <typename Word, typename Index>
__global__ void __launch_bounds__(kCopyThreads)
    strided_copy_kernel(const Word* __restrict__ in, Word* __restrict__ out, Index n,
                        CopyLayout<Index> layout) {
  const Index step = static_cast<Index>(gridDim.x) * blockDim.x;
  for (Index i = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    Index rem = i, offset = 0;
#pragma unroll
    for (int d = 0; d < kMaxRank; ++d) {
      if (d + 1 == layout.rank) {  // the outermost dim needs no division
        offset += rem * layout.stride[d];
        break;
      }
      const Index q = rem / layout.shape[d];
      offset += (rem - q * layout.shape[d]) * layout.stride[d];
      rem = q;
    }
    out[i] = in[offset];
  }
}

/// A transposing view: the output's innermost dim A (n_a elements, input stride in_stride_a) is
/// not contiguous in the input, another dim B (n_b, input stride 1, output stride out_stride_b) is;
/// the remaining dims index the batch of 2-D transposes (innermost first).
struct TransposeLayout {
  int64_t n_a, n_b, in_stride_a, out_stride_b, tiles_a, tiles_b;
  int batch_rank;
  int64_t batch_shape[kMaxRank], batch_in[kMaxRank], batch_out[kMaxRank];
};

constexpr int kTile = 32;
constexpr int kTileRows = 8;  // blockDim = (kTile, kTileRows)
constexpr int kTileThreads = kTile * kTileRows;

/// One kTile x kTile tile per step: read along B (coalesced in the input) into shared memory,
/// write along A (coalesced in the output). The +1 column keeps the transposed reads off one bank.
template <typename Elem>
__global__ void __launch_bounds__(kTileThreads)
    transpose_tiles_kernel(const Elem* __restrict__ in, Elem* __restrict__ out, int64_t tiles,
                           TransposeLayout layout) {
  __shared__ Elem tile[kTile][kTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    int64_t rem = t / layout.tiles_a;
    const int64_t a0 = (t - rem * layout.tiles_a) * kTile;
    const int64_t q = rem / layout.tiles_b;
    const int64_t b0 = (rem - q * layout.tiles_b) * kTile;
    rem = q;
    int64_t in_base = 0, out_base = 0;
#pragma unroll
    for (int d = 0; d < kMaxRank; ++d) {
      if (d >= layout.batch_rank) break;
      const int64_t next = rem / layout.batch_shape[d];
      const int64_t index = rem - next * layout.batch_shape[d];
      in_base += index * layout.batch_in[d];
      out_base += index * layout.batch_out[d];
      rem = next;
    }
    const int64_t b = b0 + tx;
#pragma unroll
    for (int i = ty; i < kTile; i += kTileRows) {
      const int64_t a = a0 + i;
      if (a < layout.n_a && b < layout.n_b) tile[i][tx] = in[in_base + a * layout.in_stride_a + b];
    }
    __syncthreads();
    const int64_t a = a0 + tx;
#pragma unroll
    for (int i = ty; i < kTile; i += kTileRows) {
      const int64_t b_out = b0 + i;
      if (a < layout.n_a && b_out < layout.n_b)
        out[out_base + b_out * layout.out_stride_b + a] = tile[tx][i];
    }
    __syncthreads();  // the tile is refilled next step
  }
}

/// A straight copy of `n` elements of Elem, as words of Word (which `in` and `out` are aligned to)
/// and then the n % (sizeof(Word) / sizeof(Elem)) trailing elements.
template <typename Word, typename Elem>
__global__ void __launch_bounds__(kCopyThreads)
    contiguous_copy_kernel(const Elem* __restrict__ in, Elem* __restrict__ out, int64_t n) {
  constexpr int64_t kPerWord = sizeof(Word) / sizeof(Elem);
  const int64_t words = n / kPerWord;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const Word* in_words = reinterpret_cast<const Word*>(in);
  Word* out_words = reinterpret_cast<Word*>(out);
  for (int64_t i = first; i < words; i += step) out_words[i] = in_words[i];
  for (int64_t i = words * kPerWord + first; i < n; i += step) out[i] = in[i];
}

/// Largest word of up to 16 bytes, a multiple of kElem bytes, that every address is aligned to.
template <int kElem>
inline int word_bytes(uintptr_t addresses) {
  int bytes = 16;
  while (bytes > kElem && (addresses % static_cast<uintptr_t>(bytes)) != 0) bytes /= 2;
  return bytes;
}

template <int kElem>
inline cudaError_t launch_contiguous(const void* in, void* out, int64_t n, cudaStream_t stream) {
  using Elem = RawWord<kElem>;
  const auto* src = static_cast<const Elem*>(in);
  auto* dst = static_cast<Elem*>(out);
  const int bytes =
      word_bytes<kElem>(reinterpret_cast<uintptr_t>(in) | reinterpret_cast<uintptr_t>(out));
  const int64_t per_word = bytes / kElem;
  const unsigned blocks = grid_size((n + per_word - 1) / per_word, kCopyThreads);
  switch (bytes) {
    case 16:
      contiguous_copy_kernel<uint4><<<blocks, kCopyThreads, 0, stream>>>(src, dst, n);
      break;
    case 8:
      if constexpr (kElem <= 8)
        contiguous_copy_kernel<uint2><<<blocks, kCopyThreads, 0, stream>>>(src, dst, n);
      break;
    case 4:
      if constexpr (kElem <= 4)
        contiguous_copy_kernel<uint32_t><<<blocks, kCopyThreads, 0, stream>>>(src, dst, n);
      break;
    case 2:
      if constexpr (kElem <= 2)
        contiguous_copy_kernel<uint16_t><<<blocks, kCopyThreads, 0, stream>>>(src, dst, n);
      break;
    default:
      if constexpr (kElem <= 1)
        contiguous_copy_kernel<uint8_t><<<blocks, kCopyThreads, 0, stream>>>(src, dst, n);
      break;
  }
  return cudaGetLastError();
}

/// The gather over a simplified view whose counts are in units of kWord-byte words.
template <int kWord>
inline cudaError_t launch_strided(const void* in, void* out, int64_t n,
                                  const CopyLayout<int64_t>& layout, cudaStream_t stream) {
  using Word = RawWord<kWord>;
  const auto* src = static_cast<const Word*>(in);
  auto* dst = static_cast<Word*>(out);
  const unsigned blocks = grid_size(n, kCopyThreads);
  // 32-bit index math when the element count and every source offset (strides >= 0) fit.
  constexpr int64_t kLimit = int64_t{1} << 31;
  bool fits = n < kLimit;
  int64_t max_offset = 0;
  for (int d = 0; d < layout.rank && fits; ++d) {
    fits = layout.stride[d] >= 0 && layout.stride[d] < kLimit && layout.shape[d] < kLimit;
    if (fits) max_offset += (layout.shape[d] - 1) * layout.stride[d];
    fits = fits && max_offset < kLimit;
  }
  if (fits) {
    CopyLayout<uint32_t> narrow{layout.rank, {}, {}};
    for (int d = 0; d < layout.rank; ++d) {
      narrow.shape[d] = static_cast<uint32_t>(layout.shape[d]);
      narrow.stride[d] = static_cast<uint32_t>(layout.stride[d]);
    }
    strided_copy_kernel<Word, uint32_t>
        <<<blocks, kCopyThreads, 0, stream>>>(src, dst, static_cast<uint32_t>(n), narrow);
  } else {
    strided_copy_kernel<Word, int64_t><<<blocks, kCopyThreads, 0, stream>>>(src, dst, n, layout);
  }
  return cudaGetLastError();
}

/// Launches transpose_tiles_kernel when the simplified view transposes two dims of at least 16
/// elements each (A: the output's innermost, with a nonzero input stride; B: input stride 1).
/// Returns false, launching nothing, for any other view.
template <int kElem>
inline bool launch_transpose(const void* in, void* out, int64_t numel,
                             const CopyLayout<int64_t>& layout, cudaStream_t stream) {
  constexpr int64_t kMinSide = 16;
  if (layout.stride[0] == 0 || layout.stride[0] == 1 || layout.shape[0] < kMinSide) return false;
  int k = 1;
  while (k < layout.rank && layout.stride[k] != 1) ++k;
  if (k == layout.rank || layout.shape[k] < kMinSide) return false;
  TransposeLayout t{};
  t.n_a = layout.shape[0];
  t.n_b = layout.shape[k];
  t.in_stride_a = layout.stride[0];
  t.tiles_a = (t.n_a + kTile - 1) / kTile;
  t.tiles_b = (t.n_b + kTile - 1) / kTile;
  int64_t out_stride = 1;  // the output is contiguous: its strides are running products
  for (int d = 0; d < layout.rank; ++d) {
    if (d == k) {
      t.out_stride_b = out_stride;
    } else if (d > 0) {
      t.batch_shape[t.batch_rank] = layout.shape[d];
      t.batch_in[t.batch_rank] = layout.stride[d];
      t.batch_out[t.batch_rank] = out_stride;
      ++t.batch_rank;
    }
    out_stride *= layout.shape[d];
  }
  using Elem = RawWord<kElem>;
  const int64_t tiles = t.tiles_a * t.tiles_b * (numel / (t.n_a * t.n_b));
  transpose_tiles_kernel<Elem><<<grid_size(tiles, 1), dim3(kTile, kTileRows), 0, stream>>>(
      static_cast<const Elem*>(in), static_cast<Elem*>(out), tiles, t);
  return true;
}

template <int kElem>
inline cudaError_t strided_copy_bytes(const void* in, void* out, int rank, const int64_t* out_shape,
                                      const int64_t* in_strides, int64_t numel,
                                      cudaStream_t stream) {
  if (rank < 0 || rank > kMaxRank || numel < 0 ||
      (rank > 0 && (out_shape == nullptr || in_strides == nullptr))) {
    return cudaErrorInvalidValue;
  }
  int64_t count = 1;
  for (int d = 0; d < rank; ++d) {
    if (out_shape[d] < 0) return cudaErrorInvalidValue;
    if (out_shape[d] == 0) count = 0;
  }
  if (count != 0) {
    for (int d = 0; d < rank; ++d) {
      if (count > INT64_MAX / out_shape[d]) return cudaErrorInvalidValue;
      count *= out_shape[d];
    }
  }
  if (count != numel) return cudaErrorInvalidValue;
  if (numel == 0) return cudaSuccess;
  if (in == nullptr || out == nullptr) return cudaErrorInvalidValue;

  // Simplify, innermost first: drop size-1 dims, merge dims contiguous in the input.
  CopyLayout<int64_t> layout{0, {}, {}};
  for (int d = rank - 1; d >= 0; --d) {
    if (out_shape[d] == 1) continue;
    const int k = layout.rank;
    if (k > 0 && in_strides[d] == layout.stride[k - 1] * layout.shape[k - 1]) {
      layout.shape[k - 1] *= out_shape[d];
    } else {
      layout.shape[k] = out_shape[d];
      layout.stride[k] = in_strides[d];
      layout.rank = k + 1;
    }
  }
  if (layout.rank == 0 || (layout.rank == 1 && layout.stride[0] == 1))
    return launch_contiguous<kElem>(in, out, numel, stream);
  if (launch_transpose<kElem>(in, out, numel, layout, stream)) return cudaGetLastError();

  // Whole words along a contiguous innermost dim: V elements per word when V divides that dim's
  // length and every other stride, and both pointers are aligned to the word.
  int bytes =
      layout.stride[0] == 1
          ? word_bytes<kElem>(reinterpret_cast<uintptr_t>(in) | reinterpret_cast<uintptr_t>(out))
          : kElem;
  for (; bytes > kElem; bytes /= 2) {
    const int64_t v = bytes / kElem;
    bool divides = layout.shape[0] % v == 0;
    for (int d = 1; d < layout.rank; ++d) divides = divides && layout.stride[d] % v == 0;
    if (divides) break;
  }
  if (bytes > kElem) {
    const int64_t v = bytes / kElem;
    layout.shape[0] /= v;
    for (int d = 1; d < layout.rank; ++d) layout.stride[d] /= v;
    numel /= v;
  }
  switch (bytes) {
    case 16:
      return launch_strided<16>(in, out, numel, layout, stream);
    case 8:
      if constexpr (kElem <= 8) return launch_strided<8>(in, out, numel, layout, stream);
      break;
    case 4:
      if constexpr (kElem <= 4) return launch_strided<4>(in, out, numel, layout, stream);
      break;
    case 2:
      if constexpr (kElem <= 2) return launch_strided<2>(in, out, numel, layout, stream);
      break;
    default:
      break;
  }
  return launch_strided<kElem>(in, out, numel, layout, stream);
}

}  // namespace detail

/// out (contiguous, row-major, `out_shape`) = the view of `in` with `in_strides` (elements; 0 for a
/// broadcast dim). `out_shape` and `in_strides` are host arrays of `rank` (0..kMaxRank) entries;
/// `numel` must be their product.
template <typename T>
inline cudaError_t strided_copy(const T* in, T* out, int rank, const int64_t* out_shape,
                                const int64_t* in_strides, int64_t numel, cudaStream_t stream) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8,
                "element of 1, 2, 4 or 8 bytes");
  return detail::strided_copy_bytes<static_cast<int>(sizeof(T))>(in, out, rank, out_shape,
                                                                 in_strides, numel, stream);
}

}  // namespace inferno::kernels
