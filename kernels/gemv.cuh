// kernels/gemv.cuh: y[m, n] = act(alpha * sum_k x[m, k] W(k, n) + row[n] + full[m, n]) for a few
// rows of x (M <= 8, a compile-time kM): the decode-shaped GEMM of an LLM's one-token step.
//
// Why a kernel of its own: with M this small the product is a stream over the weight (each of its
// bytes is used kM times, x and y are kilobytes), so the floor is W's bytes / DRAM bandwidth.
// cuBLASLt's tiles are built for large M and reach a third of that or less on these shapes, and
// its epilogue cannot apply gelu/silu or add a second operand, which costs another launch.
//
// Two weight layouts, each read once, 16 bytes per load where the shape allows:
//  - gemv_nk, W stored [N, K] (linear's weight, row n contiguous): a group of kLanes lanes
//    (a power of two <= 32, gemv_nk_lanes; up to a block's 128 for a column of several warps)
//    per output column n walks the row in packs of kPack elements (lane `sub` takes packs sub,
//    sub + kLanes, ...), four loads in flight per lane (for rows longer than four packs a lane,
//    two or sixteen: gemv_nk_unroll), then an xor butterfly over the group (and for several
//    warps, their sums added in shared memory). 128-thread blocks, so N = 768 with a full warp per
//    column is 192 blocks, enough for the 132 SMs of an H100.
//  - gemv_kn, W stored [K, N] (addmm's and GPT-2 Conv1D's, columns contiguous): a block owns a
//    tile of kTx * kPack consecutive columns; its kTx threads across the tile each hold kPack
//    columns, the other kThreads / kTx rows of threads split K (row k taken by threads k mod
//    (kThreads / kTx)), four loads in flight each. The block's partial sums meet by an xor
//    butterfly within each warp, then across its warps in shared memory, in a fixed order. The
//    tile is as wide as 32 threads (512 bytes a row) when that still gives 132 blocks, and
//    narrows to 32 bytes a row (one DRAM sector) to make more: N = 768 f16 then gets 48 blocks
//    only (a K split over blocks would need a second pass or atomics, and the sums would no
//    longer be reproducible). Such blocks get 512 or 1024 threads instead of 256, so the 48 SMs
//    that hold one keep 32-64 KB of loads in flight each (about 2-3 MB over the chip, what
//    ~3 TB/s at ~0.7 us of latency needs); even so, N = 768 is the weakest shape.
//  - gemv_nk_norm: gemv_nk of layer_norm(x) or rms_norm(x), the rows normalized by each block in
//    shared memory first (norm_gemm, passes/fuse_norm_gemv.h), so the norm needs no launch.
//  - Pairs (a gated MLP's act(gate) * up, codegen/gemv_pairs.h): gemv_nk and gemv_nk_norm given
//    a Pair functor interleave W's two halves of rows over the columns (column 2j is row j,
//    column 2j + 1 row j + N/2), so each block holds both of an output's products; after the
//    epilogue rounds them they meet in shared memory and out[m, j] = pair(y[m, j], y[m, j + N/2])
//    ([M, N/2]). The elementwise kernel that would read the product and write the gated values
//    needs no launch.
// kPack = gemv_pack<T>(contiguous length): the largest power of two dividing the length with at
// most 16 bytes, so every row (and x's rows) starts aligned to the pack when the base pointers
// are 16-byte aligned (the caller guarantees it): odd lengths fall back to one element a load.
//
// Expected bandwidth (an estimate from the design, not yet measured): an H100 streams ~3.3 TB/s
// at ~0.7 us of DRAM latency, so ~2.3 MB of loads must be in flight over the chip (Little's law).
// nk on GPT-2's LM head (K = 768 f16): a warp per column has 96 16-byte loads in flight (1.5 KB),
// and the 128-thread blocks (32-67 registers a thread, no spills) let each SM hold 16 or more
// warps, 3 MB over 132 SMs: the weight streams at 80-90% of peak (2.6-3 TB/s), 77 MB in ~28 us
// against cuBLASLt's 68. kn with 132 or more tiles (GPT-2's QKV 768 x 2304 f16: 144 tiles of 16
// columns, 3.5 MB) likewise requests the whole weight at once: ~1.5-2 us with the launch, against
// 11.4 us. kn with fewer tiles (N = 768: 48) is bound by what those SMs can pull, the slowest shape
// per byte. x is read from L1 (kM * K values, reread by every column): kM times W's bytes of L1
// traffic, below the L1s' ~30 TB/s over the chip up to kM = 8. Weights under ~1 MB are bound by the
// launch and one DRAM latency instead.
//
// Dependent launch (dependent_launch.cuh): each thread issues its first turn of weight loads, then
// awaits the kernels before (which write x and the epilogue's operands), so the launch and the
// first DRAM round trip overlap the previous kernel's tail.
//
// L2 prefetch (l2_prefetch.cuh): each kernel may also be handed the next GEMV's weight (`next`);
// after its own first loads it asks L2 for its share of those bytes, so that the next GEMV's DRAM
// traffic overlaps this one's tail and the small kernels between them.
//
// Epilogue (GemvEpilogue): the f32 sum times alpha, plus row_coefficient * row[n] (a bias) and
// full_coefficient * full[m, n] (the output's own layout; it may be the output itself, read
// before the same thread writes it), then act (a device functor float -> float), rounded once
// into T. Accumulation is in float (exact f32 FMAs, so an f32 GEMV is more accurate than a TF32
// tensor-core GEMM), in an order fixed by the shape: results are bitwise reproducible.
#pragma once

#include <type_traits>

#include "common.cuh"
#include "dependent_launch.cuh"
#include "l2_prefetch.cuh"

namespace inferno::kernels {

constexpr int kGemvNkThreads = 128;
// target::kGemvLimits.max_rows (src/target/target.h), the limit codegen and fuse-norm-gemv apply;
// a larger one there fails the static_asserts below at nvcc time.
constexpr int kGemvMaxRows = 8;
constexpr int kGemvUnroll = 4;  // weight loads in flight per thread
// gemv_nk's for rows longer than kGemvUnroll packs a lane (gemv_nk_unroll): with at least
// kGemvManyBlocks blocks, and with fewer.
constexpr int kGemvFewLoads = 2;
constexpr int kGemvManyLoads = 16;
// ... and for columns of several warps (gemv_nk_split_lanes).
constexpr int kGemvSplitLoads = 8;
// target::kGemvLimits.max_norm_staged_bytes: gemv_nk_norm's normalized rows of x, leaving room for
// its reduction scratch within the 48 KB of static shared memory a block may have.
constexpr int64_t kGemvNormStagedBytes = 44 * 1024;
constexpr int kGemvTargetBlocks = 132;
constexpr int64_t kGemvManyBlocks = 4 * kGemvTargetBlocks;  // see gemv_nk_unroll

/// What joins the sum before the activation; null pointers add nothing.
template <typename T>
struct GemvEpilogue {
  float alpha = 1.0f;
  const T* row = nullptr;  ///< [N]
  float row_coefficient = 1.0f;
  const T* full = nullptr;  ///< [M, N], contiguous; may be the output
  float full_coefficient = 1.0f;
};

/// The identity activation.
struct GemvNoActivation {
  __device__ __forceinline__ float operator()(float a) const { return a; }
};

/// No pairs: every column of W's product is an output column.
struct GemvNoPairs {};

/// W's row that gemv_nk's column `col` (of n) streams: the column itself, or with pairs, row j
/// for column 2j and row j + n/2 for column 2j + 1.
template <bool kPairs>
__host__ __device__ constexpr int64_t gemv_nk_row(int64_t col, int64_t n) {
  if constexpr (kPairs) {
    return col / 2 + (col % 2) * (n / 2);
  } else {
    (void)n;
    return col;
  }
}

/// Elements per load along a contiguous run of `length`: the largest power of two dividing it,
/// at most 16 bytes.
template <typename T>
__host__ __device__ constexpr int gemv_pack(int64_t length) {
  int pack = static_cast<int>(16 / sizeof(T));
  while (pack > 1 && length % pack != 0) pack /= 2;
  return pack;
}

/// gemv_nk's lanes per column: enough for K's packs, at most a warp.
template <typename T>
__host__ __device__ constexpr int gemv_nk_lanes(int64_t k) {
  const int64_t packs = k / gemv_pack<T>(k);
  int lanes = 1;
  while (lanes < 32 && lanes < packs) lanes *= 2;
  return lanes;
}

/// gemv_nk's blocks for n columns of `lanes` lanes each.
__host__ __device__ constexpr unsigned gemv_nk_grid(int64_t n, int lanes) {
  const int64_t columns = kGemvNkThreads / lanes;
  return static_cast<unsigned>((n + columns - 1) / columns);
}

template <typename T>
__host__ __device__ constexpr unsigned gemv_nk_blocks(int64_t n, int64_t k) {
  return gemv_nk_grid(n, gemv_nk_lanes<T>(k));
}

/// gemv_nk's weight loads in flight per lane for an [n, k] weight read with `lanes` lanes a
/// column: kGemvUnroll when a lane walks at most that many packs; for longer rows, few loads
/// (registers, so more warps fit an SM) when the columns give many blocks, and many loads when
/// they do not (the few warps must keep the DRAM busy alone); kGemvSplitLoads for columns of
/// several warps. Measured on an H100 (tools/bench/gemv_bench.cu, f16, dependent launches, share
/// of copy bandwidth with 2 / 4 / 8 / 16 loads), a warp a column: TinyLlama's gate/up (11264 x
/// 2048) 89 / 84 / 79 / 82%, LM head (32000 x 2048) 99 / 96 / 95 / 96%, down (2048 x 5632)
/// 67 / 56 / 55 / 66%, o (2048 x 2048) 63 / 51 / 59 / 66%; GPT-2's proj (768 x 3072)
/// 28 / 25 / 26 / 34%. Columns of several warps (gemv_nk_split_lanes): down at 128 lanes
/// 91 / 87 / 91 / 71%, o at 64 64 / 73 / 76 / 52%, GPT-2's proj at 64 44 / 45 / 62 / 48%.
template <typename T>
__host__ __device__ constexpr int gemv_nk_lanes_unroll(int64_t n, int64_t k, int lanes) {
  if (lanes > 32) return kGemvSplitLoads;
  const int64_t packs_per_lane = k / gemv_pack<T>(k) / lanes;
  if (packs_per_lane <= kGemvUnroll) return kGemvUnroll;
  return gemv_nk_grid(n, lanes) >= kGemvManyBlocks ? kGemvFewLoads : kGemvManyLoads;
}

template <typename T>
__host__ __device__ constexpr int gemv_nk_unroll(int64_t n, int64_t k) {
  return gemv_nk_lanes_unroll<T>(n, k, gemv_nk_lanes<T>(k));
}

/// gemv_nk_norm's loads in flight per lane: gemv_nk_unroll's, except that its few loads
/// (kGemvFewLoads, for long rows) become kGemvSplitLoads where the columns still fill less than
/// two waves of blocks (2 * kGemvManyBlocks). Why: a block's first turn of loads is all that is
/// in flight while it normalizes x, and with about one wave no other block's stream covers that
/// wait; eight loads put a 2048-element f16 row's whole share a lane in flight before the norm.
/// Measured on an H100 (gemv_bench, f16, one row, share of copy bandwidth at 2 / 4 / 8 / 16
/// loads), TinyLlama's q/k/v with the RMS norm (2560 x 2048, 640 blocks): 62 / 59 / 71 / 63% (and
/// 62 / 59 / 72 / 64% on another H100); gate/up (11264 x 2048, 2816 blocks) 88 / 81 / 81 / 83%
/// keeps 2. Norm GEMVs of fewer blocks keep gemv_nk_unroll's many loads (not measured apart).
template <typename T>
__host__ __device__ constexpr int gemv_nk_norm_unroll(int64_t n, int64_t k) {
  const int unroll = gemv_nk_unroll<T>(n, k);
  return unroll == kGemvFewLoads && gemv_nk_blocks<T>(n, k) < 2 * kGemvManyBlocks ? kGemvSplitLoads
                                                                                  : unroll;
}

/// gemv_nk's lanes a column for an [n, k] weight without a fused norm or pairs: gemv_nk_lanes,
/// doubled (a column of 2, then 4 warps, their sums meeting in shared memory) while the grid
/// stays under 2 * kGemvManyBlocks blocks and each lane keeps at least kGemvUnroll packs. Why: a
/// GEMV whose columns fill one wave of blocks is bound by the loads in flight, and splitting a
/// long row over more warps puts more of them in flight at once. Measured on an H100 (gemv_bench,
/// f16, one row, share of copy bandwidth, a warp a column at its loads -> the split at
/// kGemvSplitLoads): TinyLlama's down (2048 x 5632) 66% -> 91% (128 lanes), o (2048 x 2048)
/// 65% -> 76% (64), GPT-2's proj (768 x 3072) 36% -> 62% (64); shapes it leaves alone stay where
/// they were (gate/up, the LM head: many blocks; GPT-2's out: 3 packs a lane). Not for
/// gemv_nk_norm: each block normalizes x again, and TinyLlama's q/k/v (2560 x 2048) fell from
/// 72% to 63% at 64 lanes; nor for pairs (a block holds whole pairs).
template <typename T>
__host__ __device__ constexpr int gemv_nk_split_lanes(int64_t n, int64_t k) {
  const int64_t packs = k / gemv_pack<T>(k);
  int lanes = gemv_nk_lanes<T>(k);
  while (lanes >= 32 && lanes < kGemvNkThreads && gemv_nk_grid(n, lanes) < 2 * kGemvManyBlocks &&
         packs / (2 * lanes) >= kGemvUnroll) {
    lanes *= 2;
  }
  return lanes;
}

template <typename T>
__host__ __device__ constexpr unsigned gemv_nk_split_blocks(int64_t n, int64_t k) {
  return gemv_nk_grid(n, gemv_nk_split_lanes<T>(n, k));
}

template <typename T>
__host__ __device__ constexpr int gemv_nk_split_unroll(int64_t n, int64_t k) {
  return gemv_nk_lanes_unroll<T>(n, k, gemv_nk_split_lanes<T>(n, k));
}

/// gemv_kn's threads across a tile: 32, halved while that gives too few blocks, down to a
/// 32-byte row segment (one DRAM sector).
template <typename T>
__host__ __device__ constexpr int gemv_kn_tx(int64_t n) {
  const int pack = gemv_pack<T>(n);
  const int64_t packs = n / pack;
  const int64_t sector = 32 / (pack * static_cast<int64_t>(sizeof(T)));
  int tx = 32;
  while (tx > sector && (packs + tx - 1) / tx < kGemvTargetBlocks) tx /= 2;
  return tx;
}

template <typename T>
__host__ __device__ constexpr unsigned gemv_kn_blocks(int64_t n) {
  const int64_t tile = gemv_kn_tx<T>(n) * int64_t{gemv_pack<T>(n)};
  return static_cast<unsigned>((n + tile - 1) / tile);
}

/// gemv_kn's threads per block for `rows` rows of x: 256; when the tiles are fewer than the SMs,
/// as many as the registers allow (1024 at up to 64 a thread for 1 or 2 rows, else 512), so the
/// SMs that have a tile keep 4 times as many loads in flight.
template <typename T>
__host__ __device__ constexpr int gemv_kn_threads(int64_t n, int rows) {
  return gemv_kn_blocks<T>(n) >= kGemvTargetBlocks ? 256 : rows <= 2 ? 1024 : 512;
}

namespace detail {

template <int kBytes>
struct GemvRaw;
template <>
struct GemvRaw<2> {
  using type = unsigned short;
};
template <>
struct GemvRaw<4> {
  using type = unsigned int;
};
template <>
struct GemvRaw<8> {
  using type = uint2;
};
template <>
struct GemvRaw<16> {
  using type = uint4;
};

/// A pack of the weight, loaded with the streaming hint (read once: no point keeping it in L1).
template <int N, typename T>
__device__ __forceinline__ Pack<T, N> load_streaming(const T* p) {
  using Raw = typename GemvRaw<sizeof(T) * N>::type;
  const Raw raw = __ldcs(reinterpret_cast<const Raw*>(p));
  Pack<T, N> pack;
  memcpy(&pack, &raw, sizeof raw);
  return pack;
}

template <typename T, typename Act>
__device__ __forceinline__ T gemv_finish(float sum, int64_t m, int64_t col, int64_t n,
                                         const GemvEpilogue<T>& e, Act act) {
  float v = e.alpha * sum;
  if (e.row != nullptr) v += e.row_coefficient * to_float(e.row[col]);
  if (e.full != nullptr) v += e.full_coefficient * to_float(e.full[m * n + col]);
  return from_float<T>(act(v));
}

/// acc[m] += sum_e w[e] * x[m, at + e] over a pack of W's row.
template <typename T, int kM, int kPack>
__device__ __forceinline__ void gemv_dot(float (&acc)[kM], const Pack<T, kPack>& w,
                                         const T* __restrict__ x, int64_t k, int64_t at) {
#pragma unroll
  for (int m = 0; m < kM; ++m) {
    const Pack<T, kPack> xv = load_pack<kPack>(x + m * k + at);
#pragma unroll
    for (int e = 0; e < kPack; ++e) acc[m] = fmaf(to_float(w.v[e]), to_float(xv.v[e]), acc[m]);
  }
}

/// acc[m][e] += x[m, row] * w[e] over a pack of W's row `row`.
template <typename T, int kM, int kPack>
__device__ __forceinline__ void gemv_axpy(float (&acc)[kM][kPack], const Pack<T, kPack>& w,
                                          const T* __restrict__ x, int64_t k, int64_t row) {
#pragma unroll
  for (int m = 0; m < kM; ++m) {
    const float xm = to_float(x[m * k + row]);
#pragma unroll
    for (int e = 0; e < kPack; ++e) acc[m][e] = fmaf(xm, to_float(w.v[e]), acc[m][e]);
  }
}

}  // namespace detail

namespace detail {

/// One turn of gemv_nk's weight stream: kUnroll packs of W's row, `lanes` packs apart from
/// pack p, all issued before any is used (the last turn predicated).
template <typename T, int kPack, int kLanes, int kUnroll>
__device__ __forceinline__ void gemv_nk_load_turn(Pack<T, kPack> (&wv)[kUnroll],
                                                  const T* __restrict__ row, int64_t packs,
                                                  int64_t p) {
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    if (p + u * kLanes < packs) wv[u] = load_streaming<kPack>(row + (p + u * kLanes) * kPack);
  }
}

/// acc[m] = sum_k x[m, k] row[k] over lane `sub`'s packs, its first turn already in wv (issued
/// by the caller, which may do other work while those loads are in flight).
template <typename T, int kM, int kPack, int kLanes, int kUnroll>
__device__ __forceinline__ void gemv_nk_stream(float (&acc)[kM], Pack<T, kPack> (&wv)[kUnroll],
                                               const T* __restrict__ x, const T* __restrict__ row,
                                               int64_t k, int sub) {
  const int64_t packs = k / kPack;
  for (int64_t p = sub; p < packs; p += kUnroll * kLanes) {
    if (p != sub) gemv_nk_load_turn<T, kPack, kLanes, kUnroll>(wv, row, packs, p);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if (p + u * kLanes < packs)
        gemv_dot<T, kM, kPack>(acc, wv[u], x, k, (p + u * kLanes) * kPack);
    }
  }
}

/// acc[m] summed over each column's kLanes lanes, into every one of them: an xor butterfly within
/// the warp, and for a column of several warps (kLanes 64 or 128) their sums added in shared
/// memory, in warp order. Every thread of the block reaches it (whole warps; a barrier when a
/// column spans warps).
template <int kM, int kLanes>
__device__ __forceinline__ void gemv_nk_column_sums(float (&acc)[kM]) {
  constexpr int kWarpLanes = kLanes < 32 ? kLanes : 32;
#pragma unroll
  for (int m = 0; m < kM; ++m) acc[m] = warp_reduce<kWarpLanes>(acc[m], SumOp{});
  if constexpr (kLanes > 32) {
    constexpr int kWarps = kLanes / 32;  // a column's warps
    __shared__ float partial[kGemvNkThreads / 32][kM];
    const int warp = static_cast<int>(threadIdx.x) / 32;
    if ((threadIdx.x & 31) == 0) {
#pragma unroll
      for (int m = 0; m < kM; ++m) partial[warp][m] = acc[m];
    }
    __syncthreads();
    const int first = warp / kWarps * kWarps;
#pragma unroll
    for (int m = 0; m < kM; ++m) {
      float sum = partial[first][m];
#pragma unroll
      for (int w = 1; w < kWarps; ++w) sum += partial[first + w][m];
      acc[m] = sum;
    }
  }
}

/// The sums over each column's kLanes lanes (gemv_nk_column_sums), then lane sub stores rows sub,
/// sub + kLanes, ... of its column.
template <typename T, int kM, int kLanes, typename Act>
__device__ __forceinline__ void gemv_nk_store(float (&acc)[kM], int64_t col, int64_t n, int sub,
                                              T* out, const GemvEpilogue<T>& epilogue, Act act) {
  gemv_nk_column_sums<kM, kLanes>(acc);
  if (col < n) {
#pragma unroll
    for (int m = 0; m < kM; ++m) {
      if (m % kLanes == sub) out[m * n + col] = gemv_finish(acc[m], m, col, n, epilogue, act);
    }
  }
}

/// gemv_nk_store with pairs: each column's value rounded by the epilogue (at its row of W: the
/// bias and residual are the product's), shared with the block, then the even column's lanes
/// store pair(first half's, second half's) at out[m, col / 2] ([kM, n / 2]). Every thread of the
/// block reaches it (a barrier); n is even and a block's columns start even, so a column's
/// partner is the next one in the block.
template <typename T, int kM, int kLanes, typename Act, typename Pair>
__device__ __forceinline__ void gemv_nk_store_pairs(float (&acc)[kM], int64_t col, int64_t n,
                                                    int sub, T* out,
                                                    const GemvEpilogue<T>& epilogue, Act act,
                                                    Pair pair) {
  constexpr int kColumns = kGemvNkThreads / kLanes;
  static_assert(kColumns % 2 == 0, "a block holds whole pairs");
  __shared__ T rounded[kColumns][kM];
  gemv_nk_column_sums<kM, kLanes>(acc);
  const int local = static_cast<int>(threadIdx.x) / kLanes;
  if (col < n) {
    const int64_t row = gemv_nk_row<true>(col, n);
#pragma unroll
    for (int m = 0; m < kM; ++m) {
      if (m % kLanes == sub) rounded[local][m] = gemv_finish(acc[m], m, row, n, epilogue, act);
    }
  }
  __syncthreads();
  if (col < n && col % 2 == 0) {
#pragma unroll
    for (int m = 0; m < kM; ++m) {
      if (m % kLanes == sub)
        out[m * (n / 2) + col / 2] = pair(rounded[local][m], rounded[local + 1][m]);
    }
  }
}

/// The end of gemv_nk and gemv_nk_norm: the plain store, or the pairs'.
template <typename T, int kM, int kLanes, typename Act, typename Pair>
__device__ __forceinline__ void gemv_nk_finish(float (&acc)[kM], int64_t col, int64_t n, int sub,
                                               T* out, const GemvEpilogue<T>& epilogue, Act act,
                                               Pair pair) {
  if constexpr (std::is_same_v<Pair, GemvNoPairs>) {
    (void)pair;
    gemv_nk_store<T, kM, kLanes>(acc, col, n, sub, out, epilogue, act);
  } else {
    gemv_nk_store_pairs<T, kM, kLanes>(acc, col, n, sub, out, epilogue, act, pair);
  }
}

}  // namespace detail

/// W stored [N, K]. Launch with gemv_nk_blocks<T>(n, k) blocks of kGemvNkThreads threads, kPack
/// = gemv_pack<T>(k), kLanes = gemv_nk_lanes<T>(k), kUnroll = gemv_nk_unroll<T>(n, k). x is
/// [kM, K], out [kM, N].
template <typename T, int kM, int kPack, int kLanes, int kUnroll = kGemvUnroll, typename Act,
          typename Pair = GemvNoPairs>
__device__ __forceinline__ void gemv_nk(const T* __restrict__ x, const T* __restrict__ w, int64_t n,
                                        int64_t k, T* out, const GemvEpilogue<T>& epilogue, Act act,
                                        const L2Prefetch& next = {}, Pair pair = {}) {
  constexpr bool kPairs = !std::is_same_v<Pair, GemvNoPairs>;
  static_assert(kM >= 1 && kM <= kGemvMaxRows, "gemv: 1 to 8 rows");
  static_assert(kLanes >= 1 && kLanes <= kGemvNkThreads && (kLanes & (kLanes - 1)) == 0,
                "lanes: a power of two, at most a block");
  constexpr int kColumns = kGemvNkThreads / kLanes;
  const int sub = static_cast<int>(threadIdx.x) % kLanes;
  const int64_t col = static_cast<int64_t>(blockIdx.x) * kColumns + threadIdx.x / kLanes;
  float acc[kM];
#pragma unroll
  for (int m = 0; m < kM; ++m) acc[m] = 0.0f;
  const T* row = w + (col < n ? gemv_nk_row<kPairs>(col, n) : 0) * k;
  Pack<T, kPack> wv[kUnroll];
  if (col < n) detail::gemv_nk_load_turn<T, kPack, kLanes, kUnroll>(wv, row, k / kPack, sub);
  prefetch_l2_share(next);
  await_producers();  // the first weight loads are in flight; x is the kernel before's
  if (col < n) detail::gemv_nk_stream<T, kM, kPack, kLanes, kUnroll>(acc, wv, x, row, k, sub);
  detail::gemv_nk_finish<T, kM, kLanes>(acc, col, n, sub, out, epilogue, act, pair);
}

namespace detail {

/// Sums v[m] over the block (kGemvNkThreads threads) for every row m in an order fixed by the
/// shape; every thread gets the sums. The leading barrier lets `scratch` be used again.
template <int kM>
__device__ __forceinline__ void gemv_block_sums(float (&v)[kM],
                                                float (&scratch)[kM][kGemvNkThreads / 32]) {
  constexpr int kWarps = kGemvNkThreads / 32;
  const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
#pragma unroll
  for (int m = 0; m < kM; ++m) v[m] = warp_reduce<32>(v[m], SumOp{});
  __syncthreads();
  if (lane == 0) {
#pragma unroll
    for (int m = 0; m < kM; ++m) scratch[m][warp] = v[m];
  }
  __syncthreads();
#pragma unroll
  for (int m = 0; m < kM; ++m) {
    float sum = scratch[m][0];
#pragma unroll
    for (int w = 1; w < kWarps; ++w) sum += scratch[m][w];
    v[m] = sum;
  }
}

/// staged[m, :] = norm(x[m, :]) rounded to T for x's kM rows of kK, by the whole block, with
/// kernels/norm.cuh's arithmetic (f32): layer_norm shifts by the row's first element x0, takes
/// the mean of x - x0 and then the mean of the squared deviations from it (two passes, over the
/// copy of x in `staged`), rms_norm the mean of x^2; then 1 / sqrtf(var + eps), and
/// (((x - x0) - mean) * inv_std) * weight + bias (rms_norm: x * inv_std * weight) per element.
/// Each thread rewrites the packs it copied, so only the last pass needs a barrier after it.
template <typename T, int kM, int kPack, int64_t kK, bool kRms>
__device__ __forceinline__ void gemv_normalize_rows(const T* __restrict__ x,
                                                    const T* __restrict__ weight,
                                                    const T* __restrict__ bias, float eps,
                                                    T* staged,
                                                    float (&scratch)[kM][kGemvNkThreads / 32]) {
  constexpr int64_t kPacks = kK / kPack;
  float pivot[kM], sum[kM];
#pragma unroll
  for (int m = 0; m < kM; ++m) {
    pivot[m] = kRms ? 0.0f : to_float(x[m * kK]);
    sum[m] = 0.0f;
  }
  for (int64_t c = threadIdx.x; c < kPacks; c += kGemvNkThreads) {
#pragma unroll
    for (int m = 0; m < kM; ++m) {
      const Pack<T, kPack> xv = load_pack<kPack>(x + m * kK + c * kPack);
      store_pack(staged + m * kK + c * kPack, xv);
#pragma unroll
      for (int e = 0; e < kPack; ++e) {
        const float v = to_float(xv.v[e]) - pivot[m];
        sum[m] += kRms ? v * v : v;
      }
    }
  }
  gemv_block_sums<kM>(sum, scratch);
  float mean[kM], inv_std[kM];
#pragma unroll
  for (int m = 0; m < kM; ++m) {
    mean[m] = kRms ? 0.0f : sum[m] / static_cast<float>(kK);
    inv_std[m] = 1.0f / sqrtf(sum[m] / static_cast<float>(kK) + eps);  // rms_norm's
  }
  if constexpr (!kRms) {
    float squares[kM];
#pragma unroll
    for (int m = 0; m < kM; ++m) squares[m] = 0.0f;
    for (int64_t c = threadIdx.x; c < kPacks; c += kGemvNkThreads) {
#pragma unroll
      for (int m = 0; m < kM; ++m) {
        const Pack<T, kPack> xv = load_pack<kPack>(staged + m * kK + c * kPack);
#pragma unroll
        for (int e = 0; e < kPack; ++e) {
          const float d = (to_float(xv.v[e]) - pivot[m]) - mean[m];
          squares[m] += d * d;
        }
      }
    }
    gemv_block_sums<kM>(squares, scratch);
#pragma unroll
    for (int m = 0; m < kM; ++m)
      inv_std[m] = 1.0f / sqrtf(squares[m] / static_cast<float>(kK) + eps);
  }
  for (int64_t c = threadIdx.x; c < kPacks; c += kGemvNkThreads) {
    const Pack<T, kPack> wp = load_pack<kPack>(weight + c * kPack);
    [[maybe_unused]] Pack<T, kPack> bp;  // rms_norm has no bias
    if constexpr (!kRms) bp = load_pack<kPack>(bias + c * kPack);
#pragma unroll
    for (int m = 0; m < kM; ++m) {
      T* at = staged + m * kK + c * kPack;
      const Pack<T, kPack> xv = load_pack<kPack>(at);
      Pack<T, kPack> y;
#pragma unroll
      for (int e = 0; e < kPack; ++e) {
        float r = ((to_float(xv.v[e]) - pivot[m]) - mean[m]) * inv_std[m];
        r *= to_float(wp.v[e]);
        if constexpr (!kRms) r += to_float(bp.v[e]);
        y.v[e] = from_float<T>(r);
      }
      store_pack(at, y);
    }
  }
  __syncthreads();
}

}  // namespace detail

/// gemv_nk of norm(x): each of x's kM rows of kK elements normalized over the row, layer_norm
/// ((x - mean) / sqrt(var + eps) * weight + bias) or rms_norm (kRms: x / sqrt(mean(x^2) + eps) *
/// weight, no bias), rounded to T as the norm's own kernel stores it, then multiplied: the norm
/// and the product in one launch (launch it as gemv_nk, with k = kK).
///
/// Every block normalizes all kM rows into shared memory first (kM * kK * sizeof(T) bytes, at most
/// kGemvNormStagedBytes), then streams its columns of W against them. Why staged rather than
/// normalized on the fly in gemv_dot: each x element is read once per column of the block (4 to
/// 128 columns), and normalizing it there would repeat the arithmetic and the weight and bias
/// loads that often; staged, it is done once per block, and the dot products read shared memory
/// instead of L1. The rows come from L2 (x was just written, kilobytes): every block reads them
/// again, kM * kK * sizeof(T) bytes of L2 traffic a block, small beside its share of W.
/// The weight stream is gemv_nk's: its first turn of loads is issued before the norm, so their
/// DRAM latency overlaps the statistics.
template <typename T, int kM, int kPack, int kLanes, int64_t kK, bool kRms,
          int kUnroll = kGemvUnroll, typename Act, typename Pair = GemvNoPairs>
__device__ __forceinline__ void gemv_nk_norm(const T* __restrict__ x, const T* __restrict__ w,
                                             int64_t n, const T* __restrict__ weight,
                                             const T* __restrict__ bias, float eps, T* out,
                                             const GemvEpilogue<T>& epilogue, Act act,
                                             const L2Prefetch& next = {}, Pair pair = {}) {
  constexpr bool kPairs = !std::is_same_v<Pair, GemvNoPairs>;
  static_assert(kM >= 1 && kM <= kGemvMaxRows, "gemv: 1 to 8 rows");
  static_assert(kLanes >= 1 && kLanes <= kGemvNkThreads && (kLanes & (kLanes - 1)) == 0,
                "lanes: a power of two, at most a block");
  static_assert(kK >= 1 && kK % kPack == 0, "packs tile the rows");
  static_assert(kM * kK * static_cast<int64_t>(sizeof(T)) <= kGemvNormStagedBytes,
                "the normalized rows must fit shared memory");
  __shared__ alignas(16) unsigned char staged_bytes[kM * kK * sizeof(T)];
  __shared__ float scratch[kM][kGemvNkThreads / 32];
  T* staged = reinterpret_cast<T*>(staged_bytes);
  constexpr int kColumns = kGemvNkThreads / kLanes;
  const int sub = static_cast<int>(threadIdx.x) % kLanes;
  const int64_t col = static_cast<int64_t>(blockIdx.x) * kColumns + threadIdx.x / kLanes;
  const T* row = w + (col < n ? gemv_nk_row<kPairs>(col, n) : 0) * kK;
  Pack<T, kPack> wv[kUnroll];
  if (col < n) detail::gemv_nk_load_turn<T, kPack, kLanes, kUnroll>(wv, row, kK / kPack, sub);
  prefetch_l2_share(next);
  await_producers();
  detail::gemv_normalize_rows<T, kM, kPack, kK, kRms>(x, weight, bias, eps, staged, scratch);
  float acc[kM];
#pragma unroll
  for (int m = 0; m < kM; ++m) acc[m] = 0.0f;
  if (col < n) detail::gemv_nk_stream<T, kM, kPack, kLanes, kUnroll>(acc, wv, staged, row, kK, sub);
  detail::gemv_nk_finish<T, kM, kLanes>(acc, col, n, sub, out, epilogue, act, pair);
}

/// W stored [K, N]. Launch with gemv_kn_blocks<T>(n) blocks of kThreads = gemv_kn_threads<T>(n,
/// kM) threads, kPack = gemv_pack<T>(n), kTx = gemv_kn_tx<T>(n). x is [kM, K], out [kM, N].
template <typename T, int kM, int kPack, int kTx, int kThreads, typename Act>
__device__ __forceinline__ void gemv_kn(const T* __restrict__ x, const T* __restrict__ w, int64_t n,
                                        int64_t k, T* out, const GemvEpilogue<T>& epilogue, Act act,
                                        const L2Prefetch& next = {}) {
  static_assert(kM >= 1 && kM <= kGemvMaxRows, "gemv: 1 to 8 rows");
  static_assert(kTx >= 1 && kTx <= 32 && (kTx & (kTx - 1)) == 0, "tile threads: 2^i <= 32");
  static_assert(kThreads % 32 == 0 && kThreads >= kTx * kPack, "whole warps, one per column");
  constexpr int kRows = kThreads / kTx;  // rows of K one step of the block covers
  constexpr int kWarps = kThreads / 32;
  constexpr int kTile = kTx * kPack;
  __shared__ float partial[kWarps][kTile];
  const int tx = static_cast<int>(threadIdx.x) % kTx, ty = static_cast<int>(threadIdx.x) / kTx;
  const int64_t tile = static_cast<int64_t>(blockIdx.x) * kTile;
  const int64_t col = tile + int64_t{tx} * kPack;  // the first of this thread's kPack columns
  float acc[kM][kPack];
#pragma unroll
  for (int m = 0; m < kM; ++m) {
#pragma unroll
    for (int e = 0; e < kPack; ++e) acc[m][e] = 0.0f;
  }
  // Rows r, r + kRows, ... of W at this thread's columns, kGemvUnroll loads in flight.
  Pack<T, kPack> wv[kGemvUnroll];
  auto load_turn = [&](int64_t r) {
#pragma unroll
    for (int u = 0; u < kGemvUnroll; ++u) {
      if (r + u * kRows < k) wv[u] = detail::load_streaming<kPack>(w + (r + u * kRows) * n + col);
    }
  };
  const bool in = col < n;  // n is a multiple of kPack: the whole pack is in
  if (in) load_turn(ty);
  prefetch_l2_share(next);
  await_producers();  // the first weight loads are in flight; x is the kernel before's
  if (in) {
    for (int64_t r = ty; r < k; r += kGemvUnroll * kRows) {  // as gemv_nk's loop
      if (r != ty) load_turn(r);
#pragma unroll
      for (int u = 0; u < kGemvUnroll; ++u) {
        if (r + u * kRows < k) detail::gemv_axpy<T, kM, kPack>(acc, wv[u], x, k, r + u * kRows);
      }
    }
  }
  const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
#pragma unroll
  for (int m = 0; m < kM; ++m) {
    // Within a warp, lanes kTx apart hold the same columns: fold them onto lanes 0 .. kTx - 1.
#pragma unroll
    for (int e = 0; e < kPack; ++e) {
#pragma unroll
      for (int offset = kTx; offset < 32; offset *= 2)
        acc[m][e] += __shfl_xor_sync(0xffffffffu, acc[m][e], offset);
    }
    if (lane < kTx) {
#pragma unroll
      for (int e = 0; e < kPack; ++e) partial[warp][lane * kPack + e] = acc[m][e];
    }
    __syncthreads();
    const int64_t c = tile + threadIdx.x;
    if (static_cast<int>(threadIdx.x) < kTile && c < n) {
      float sum = partial[0][threadIdx.x];
#pragma unroll
      for (int w8 = 1; w8 < kWarps; ++w8) sum += partial[w8][threadIdx.x];
      out[m * n + c] = detail::gemv_finish(sum, m, c, n, epilogue, act);
    }
    __syncthreads();  // partial is rewritten for the next row
  }
}

}  // namespace inferno::kernels
