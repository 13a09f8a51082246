// kernels/common.cuh: what every hand-written kernel shares. Element conversions between the four
// floating types, the accumulator type (float for f32/f16/bf16, double for f64), the launch-size
// helper for grid-stride loops, and deterministic warp and block reductions.
//
// Conventions of every launcher in kernels/: `inline cudaError_t name<T>(..., cudaStream_t)`
// enqueues on `stream` and returns cudaGetLastError(); it never allocates, synchronizes or touches
// the default stream, so it may be called while a CUDA graph is being captured. Arguments that make
// no sense (negative sizes, rank out of range) return cudaErrorInvalidValue without launching;
// empty work returns cudaSuccess without launching. Grid sizes depend only on the shapes, and every
// reduction adds in a fixed order, so results are bitwise reproducible run to run.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace inferno::kernels {

/// The most dims a strided kernel takes (after the host has dropped size-1 dims and merged
/// contiguous ones, fewer are left).
constexpr int kMaxRank = 8;

/// Per-dim extents or strides, passed to kernels by value (no device memory).
struct Strides {
  int64_t v[kMaxRank];
};

/// Blocks a grid-stride kernel is launched with at most: 32 per SM of an H200 (132 SMs).
constexpr int kMaxBlocks = 132 * 32;

/// Blocks for `items` work items at `items_per_block` each, between 1 and kMaxBlocks.
inline unsigned grid_size(int64_t items, int64_t items_per_block) {
  const int64_t blocks = items_per_block > 0 ? (items + items_per_block - 1) / items_per_block : 1;
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks > kMaxBlocks ? kMaxBlocks : blocks);
}

/// The smallest power of two >= min(x, cap); `cap` must be a power of two.
inline int64_t pow2_at_least(int64_t x, int64_t cap) {
  int64_t p = 1;
  while (p < x && p < cap) p *= 2;
  return p;
}

template <typename T>
inline constexpr bool is_float_type_v =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, __half> ||
    std::is_same_v<T, __nv_bfloat16>;

/// The type sums and exponentials are computed in: double for double, float otherwise.
template <typename T>
using acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

/// T -> float (double narrows by rounding; integers and bool convert as C++ does).
template <typename T>
__host__ __device__ __forceinline__ float to_float(T v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(v);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(v);
  } else {
    return static_cast<float>(v);
  }
}

/// float -> T, rounding to nearest even for f16 and bf16.
template <typename T>
__host__ __device__ __forceinline__ T from_float(float v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __float2half_rn(v);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16_rn(v);
  } else {
    return static_cast<T>(v);
  }
}

/// T -> double (exact for the four floating types).
template <typename T>
__host__ __device__ __forceinline__ double to_double(T v) {
  if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>) {
    return static_cast<double>(to_float(v));
  } else {
    return static_cast<double>(v);
  }
}

/// double -> T. f16 and bf16 round through float (double -> float -> half), as the CPU reference
/// interpreter does, so the two agree bit for bit.
template <typename T>
__host__ __device__ __forceinline__ T from_double(double v) {
  if constexpr (std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>) {
    return from_float<T>(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

/// T -> its accumulator type, and back (rounding once).
template <typename T>
__host__ __device__ __forceinline__ acc_t<T> to_acc(T v) {
  if constexpr (std::is_same_v<T, double>) {
    return v;
  } else {
    return to_float(v);
  }
}
template <typename T>
__host__ __device__ __forceinline__ T from_acc(acc_t<T> v) {
  if constexpr (std::is_same_v<T, double>) {
    return v;
  } else {
    return from_float<T>(v);
  }
}

/// exp and log in the accumulator's precision (expf/logf, not the fast __expf).
__device__ __forceinline__ float acc_exp(float x) { return expf(x); }
__device__ __forceinline__ double acc_exp(double x) { return exp(x); }
__device__ __forceinline__ float acc_log(float x) { return logf(x); }
__device__ __forceinline__ double acc_log(double x) { return log(x); }

/// +infinity in A (no <limits> in device code).
template <typename A>
__device__ __forceinline__ A acc_infinity() {
  if constexpr (std::is_same_v<A, double>) {
    return __longlong_as_double(0x7ff0000000000000LL);
  } else {
    return __int_as_float(0x7f800000);
  }
}

/// max that propagates NaN (fmaxf drops it), as torch.max and the reference do.
template <typename A>
__device__ __forceinline__ A max_nan(A a, A b) {
  return (a > b || a != a) ? a : b;
}

struct SumOp {
  template <typename A>
  __device__ __forceinline__ A operator()(A a, A b) const {
    return a + b;
  }
};
struct MaxOp {
  template <typename A>
  __device__ __forceinline__ A operator()(A a, A b) const {
    return max_nan(a, b);
  }
};

/// N consecutive elements moved as one aligned vector access (N * sizeof(T) a power of two <= 16).
template <typename T, int N>
struct alignas(sizeof(T) * N) Pack {
  T v[N];
};

/// Elements of T in one 16-byte access.
template <typename T>
inline constexpr int kPack16 = static_cast<int>(16 / sizeof(T));

template <int N, typename T>
__device__ __forceinline__ Pack<T, N> load_pack(const T* p) {
  return *reinterpret_cast<const Pack<T, N>*>(p);
}
template <int N, typename T>
__device__ __forceinline__ void store_pack(T* p, const Pack<T, N>& pack) {
  *reinterpret_cast<Pack<T, N>*>(p) = pack;
}

/// Whether N-element packs of T tile rows of `length` elements starting at `a` and `b`: length a
/// multiple of N and both pointers aligned to the pack (then so is every row start).
template <typename T>
inline bool packs_fit(int n, int64_t length, const void* a, const void* b) {
  const auto bytes = static_cast<uintptr_t>(n) * sizeof(T);
  return length % n == 0 &&
         (reinterpret_cast<uintptr_t>(a) | reinterpret_cast<uintptr_t>(b)) % bytes == 0;
}

/// Reduces over groups of kWidth consecutive lanes (a power of two <= 32) by an xor butterfly;
/// every lane of a group ends with the group's result. All 32 lanes must be active. With a
/// commutative op every lane computes the same value bit for bit.
template <int kWidth, typename A, typename Op>
__device__ __forceinline__ A warp_reduce(A v, Op op) {
  static_assert(kWidth >= 1 && kWidth <= 32 && (kWidth & (kWidth - 1)) == 0,
                "width: power of two <= 32");
#pragma unroll
  for (int offset = kWidth / 2; offset > 0; offset /= 2)
    v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

/// Reduces over the whole block (blockDim.x a multiple of 32, blockDim.y == blockDim.z == 1) and
/// returns the result in every thread. Every thread must call it. `scratch` holds 32 values; the
/// leading barrier makes it safe to call again in a loop.
template <typename A, typename Op>
__device__ __forceinline__ A block_reduce(A v, Op op, A identity, A* scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = warp_reduce<32>(v, op);
  __syncthreads();
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < static_cast<int>(blockDim.x >> 5) ? scratch[lane] : identity;
  return warp_reduce<32>(v, op);  // each warp reduces the same values in the same order
}

/// The rows of a [rows, length] tensor taken by groups of kWidth consecutive lanes (a power of two
/// <= 32, so 32 / kWidth rows share a warp), warps striding over the grid. Calls body(row, sub) for
/// each turn of the calling lane: `sub` is its place in its group (lane % kWidth), and `row` may be
/// >= rows on the last turn. The loop bound is uniform over the warp, so every lane makes every
/// call and reaches the body's shuffles; the body checks `row < rows` itself.
template <int kWidth, typename Body>
__device__ __forceinline__ void for_each_group_row(int64_t rows, Body body) {
  static_assert(kWidth >= 1 && kWidth <= 32 && (kWidth & (kWidth - 1)) == 0,
                "width: power of two <= 32");
  constexpr int kRowsPerWarp = 32 / kWidth;
  const int lane = threadIdx.x & 31;
  const int64_t warps_per_block = blockDim.x >> 5;
  const int64_t warp = static_cast<int64_t>(blockIdx.x) * warps_per_block + (threadIdx.x >> 5);
  const int64_t step = static_cast<int64_t>(gridDim.x) * warps_per_block * kRowsPerWarp;
  for (int64_t first = warp * kRowsPerWarp; first < rows; first += step)
    body(first + lane / kWidth, lane % kWidth);
}

/// Column tiling of a contiguous [outer, length, inner] tensor (inner > 1) for kernels that reduce
/// over the middle axis: a block of (bx, by) threads covers bx consecutive columns of one o (bx
/// across inner, so reads are coalesced) and splits `length` over its by rows of threads; both are
/// powers of two. Too few tiles for the SMs get narrower (down to 32 bytes of a row); few tiles get
/// 1024-thread blocks, so the reduced axis is split more ways; many columns get one thread each
/// (by = 1); leftover threads widen bx when `length` is short.
struct ColumnTiles {
  dim3 block;
  int64_t tiles_per_outer;  ///< ceil(inner / bx); the grid covers outer * tiles_per_outer tiles
};
constexpr int kColumnMaxThreads = 1024;

inline ColumnTiles column_tiles(int64_t outer, int64_t length, int64_t inner, int elem_bytes) {
  constexpr int64_t kManyColumns = 132 * 512;  // enough columns to fill the GPU one thread each
  int64_t bx0 = pow2_at_least(inner, 32);
  // Too few tiles for the SMs: narrower tiles, down to one 32-byte sector of a row.
  while (bx0 * elem_bytes > 32 && outer * ((inner + bx0 - 1) / bx0) < 2 * 132) bx0 /= 2;
  const int64_t budget = outer * ((inner + bx0 - 1) / bx0) >= 1024 ? 256 : kColumnMaxThreads;
  const int64_t by = outer * inner >= kManyColumns ? 1 : pow2_at_least(length, budget / bx0);
  const int64_t bx = pow2_at_least(inner, budget / by);
  return {dim3(static_cast<unsigned>(bx), static_cast<unsigned>(by)), (inner + bx - 1) / bx};
}

/// Reduces v over threadIdx.y (a fixed pairwise tree in `partial`, blockDim.x * blockDim.y
/// values) and returns each column's result to all its threads. Every thread must call it.
template <typename A, typename Op>
__device__ __forceinline__ A column_reduce(A v, Op op, A* partial) {
  const int bx = blockDim.x, tx = threadIdx.x, ty = threadIdx.y;
  partial[ty * bx + tx] = v;
  __syncthreads();
  for (int half = blockDim.y / 2; half > 0; half /= 2) {
    if (ty < half)
      partial[ty * bx + tx] = op(partial[ty * bx + tx], partial[(ty + half) * bx + tx]);
    __syncthreads();
  }
  v = partial[tx];
  __syncthreads();  // partial may be rewritten right after
  return v;
}

/// The tiles of column_tiles() a block takes, striding over the grid. Calls body(o, i) for each: o
/// the outer index, i the calling thread's column, which may be >= inner in the last tile of an o.
/// Every thread of the block makes every call, so the body may reach column_reduce's barriers; it
/// checks `i < inner` itself.
template <typename Body>
__device__ __forceinline__ void for_each_column_tile(int64_t outer, int64_t tiles_per_outer,
                                                     Body body) {
  const int64_t tiles = outer * tiles_per_outer;
  for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int64_t o = tile / tiles_per_outer;
    body(o, (tile - o * tiles_per_outer) * blockDim.x + threadIdx.x);
  }
}

/// The current device's SM count and compute capability major; false (the error cleared) when
/// the runtime cannot say, so that callers take their plain path.
inline bool current_device_sms(int& sms, int& major) {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return true;
}

/// The arch `kernel`'s loaded binary was built for (90 for sm_90), asked once per kernel: 0 if
/// the query fails (its error is cleared: callers then take their pre-sm_90 path, e.g. no
/// cluster split).
template <auto kKernel>
inline int binary_version() {
  static const int version = [] {
    cudaFuncAttributes attributes;
    if (cudaFuncGetAttributes(&attributes, reinterpret_cast<const void*>(kKernel)) == cudaSuccess)
      return attributes.binaryVersion;
    (void)cudaGetLastError();
    return 0;
  }();
  return version;
}

}  // namespace inferno::kernels
