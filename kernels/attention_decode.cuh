// kernels/attention_decode.cuh: attention for a few query rows (an LLM's decode step: one new
// token against its KV cache), where the tiled kernels of attention.cuh leave the GPU idle: their
// 32- or 64-row query tile holds one row, and one block per (batch, head) streams every key.
//
// One block of 4 warps per (query row, head, batch, key split). A warp takes 32 keys at a time,
// one per lane: the lane checks its key's mask first (a bool mask costs one byte per key), and a
// group of 32 keys none of which is live (beyond the causal diagonal, masked, or past skv) is
// skipped without reading K or V. So a decode step over a static cache of N positions reads only
// the positions its mask keeps (the current length), not N. A live lane takes the dot product of
// its key row with q (kept in shared memory, pre-scaled into the log2 domain), the warp updates
// its running max and sum (online softmax, in float; double for f64), and accumulates
// p_j * V[j] with each lane owning head / 32 output columns (column lane + 32 c: every load of a
// V row is coalesced). Probabilities stay in the accumulator type: P is not rounded to T before
// P @ V, unlike the tensor-core kernel.
//
// Splits: on sm_90 the key range is split over a cluster of up to 8 blocks when (rows x heads x
// batch) alone would leave most SMs idle (flash-decoding). Each block reduces its 4 warps'
// (max, sum, output) in shared memory; block 0 of the cluster reads the others' through
// distributed shared memory, combines them in rank order and stores the row: one kernel, no
// workspace, the same result for every run. Before sm_90 (or a binary not built for it) one block
// takes all keys. Grouped-query attention reads kv head h / groups in place (no repeated K/V).
#pragma once

#include "attention_params.cuh"

namespace inferno::kernels {

/// Query rows up to which attention() takes this kernel (per batch and head).
inline constexpr int kAttentionDecodeMaxRows = 4;

namespace detail {

struct AttentionDecodeTile {
  static constexpr int kWarps = 4, kThreads = 32 * kWarps;
  static constexpr int kGroup = 32;                  ///< keys a warp takes at once, one per lane
  static constexpr int kMaxSplits = 8;               ///< the portable cluster size
  static constexpr int kMinGroupsPerSplit = kWarps;  ///< a split keeps every warp busy
};

/// The dot product of q (shared, already scaled into the log2 domain) and key row `key` (d
/// elements), 16-byte loads when `vec`.
template <typename T, int kHead>
__device__ __forceinline__ acc_t<T> attn_decode_dot(const acc_t<T>* qs, const T* key, int d,
                                                    bool vec) {
  using A = acc_t<T>;
  A s = 0;
  if (vec) {
    constexpr int kPer = 16 / static_cast<int>(sizeof(T));
    for (int e = 0; e < d; e += kPer) {
      const uint4 chunk = *reinterpret_cast<const uint4*>(key + e);
      const T* x = reinterpret_cast<const T*>(&chunk);
#pragma unroll
      for (int c = 0; c < kPer; ++c) s += qs[e + c] * to_acc(x[c]);
    }
  } else {
    for (int e = 0; e < d; ++e) s += qs[e] * to_acc(key[e]);
  }
  return s;
}

/// One query row's partial result over some keys: running max m (log2 domain), sum l of
/// exp2(s - m), and the unnormalized output o.
template <typename A, int kHead>
struct AttentionDecodePartial {
  A m, l;
  A o[kHead];
};

template <typename T, int kHead>
__global__ void __launch_bounds__(AttentionDecodeTile::kThreads)
    attention_decode_kernel(const AttentionParams<T> p, bool vec) {
  using A = acc_t<T>;
  using Tile = AttentionDecodeTile;
  constexpr int kCols = kHead / 32;  // output columns lane + 32 c of each lane
  __shared__ A qs[kHead];
  __shared__ AttentionDecodePartial<A, kHead> warps[Tile::kWarps];
  __shared__ AttentionDecodePartial<A, kHead> block;  // read by the cluster's block 0

  const int h = static_cast<int>(blockIdx.y), hk = h / p.kv_groups;
  const int b = static_cast<int>(blockIdx.z) / p.sq, i = static_cast<int>(blockIdx.z) % p.sq;
  const int warp = static_cast<int>(threadIdx.x) >> 5, lane = static_cast<int>(threadIdx.x) & 31;
  const T* q = p.q + b * p.ql.batch + h * p.ql.head + static_cast<int64_t>(i) * p.ql.seq;
  const T* k = p.k + b * p.kl.batch + hk * p.kl.head;
  const T* v = p.v + b * p.vl.batch + hk * p.vl.head;
  for (int e = threadIdx.x; e < kHead; e += Tile::kThreads)
    qs[e] = e < p.d ? to_acc(q[e]) * p.scale_log2 : A(0);
  __syncthreads();

  // This block's groups of 32 keys: split gridDim.x of them, in order.
  const int keys = p.causal ? min(p.skv, i + 1) : p.skv;
  const int groups = (keys + Tile::kGroup - 1) / Tile::kGroup;
  const int splits = static_cast<int>(gridDim.x);
  const int per_split = (groups + splits - 1) / splits;
  const int g0 = static_cast<int>(blockIdx.x) * per_split, g1 = min(groups, g0 + per_split);

  A m = -acc_infinity<A>(), l = 0, o[kCols];
#pragma unroll
  for (int c = 0; c < kCols; ++c) o[c] = 0;
  const int64_t mask_row = p.mask.kind == 0 ? 0
                                            : b * p.mask.strides[0] + h * p.mask.strides[1] +
                                                  static_cast<int64_t>(i) * p.mask.strides[2];
  for (int g = g0 + warp; g < g1; g += Tile::kWarps) {
    const int j = g * Tile::kGroup + lane;
    bool live = j < keys;
    const int64_t mask_at = mask_row + static_cast<int64_t>(j) * p.mask.strides[3];
    if (live && p.mask.kind == 1)
      live = static_cast<const unsigned char*>(p.mask.data)[mask_at] != 0;
    if (!__any_sync(0xffffffffu, live)) continue;  // no live key: K and V are not read
    A s = -acc_infinity<A>();
    if (live) {
      s = attn_decode_dot<T, kHead>(qs, k + static_cast<int64_t>(j) * p.kl.seq, p.d, vec);
      if (p.mask.kind == 2)
        s += to_acc(static_cast<const T*>(p.mask.data)[mask_at]) * static_cast<A>(kAttentionLog2e);
    }
    const A group_max = warp_reduce<32>(s, [](A x, A y) { return x > y ? x : y; });
    const A new_max = m > group_max ? m : group_max;
    if (new_max == -acc_infinity<A>()) continue;  // every score -inf so far: nothing to add
    const A correction = attn_exp2(m - new_max);  // 0 while m is -inf
    const A e = attn_exp2(s - new_max);           // 0 for a dead key
    l = l * correction + warp_reduce<32>(e, [](A x, A y) { return x + y; });
    m = new_max;
#pragma unroll
    for (int c = 0; c < kCols; ++c) o[c] *= correction;
    const int last = min(Tile::kGroup, keys - g * Tile::kGroup);
    for (int jj = 0; jj < last; ++jj) {
      const A w = __shfl_sync(0xffffffffu, e, jj);
      if (w == A(0)) continue;  // the same branch in every lane: w is broadcast
      const T* row = v + static_cast<int64_t>(g * Tile::kGroup + jj) * p.vl.seq;
#pragma unroll
      for (int c = 0; c < kCols; ++c) {
        const int col = lane + 32 * c;
        if (col < p.dv) o[c] += w * to_acc(row[col]);
      }
    }
  }

  // The block's 4 warps, combined in warp order.
  if (lane == 0) {
    warps[warp].m = m;
    warps[warp].l = l;
  }
#pragma unroll
  for (int c = 0; c < kCols; ++c) warps[warp].o[lane + 32 * c] = o[c];
  __syncthreads();
  // Combines `count` partials (part(r) the r-th) at output column col, in order.
  auto combine = [](int count, auto part, int col, A& sum_out, A& value_out, A& max_out) {
    A mx = -acc_infinity<A>();
    for (int r = 0; r < count; ++r) mx = part(r)->m > mx ? part(r)->m : mx;
    A sum = 0, value = 0;
    if (mx != -acc_infinity<A>()) {
      for (int r = 0; r < count; ++r) {
        const A f = attn_exp2(part(r)->m - mx);
        sum += part(r)->l * f;
        value += part(r)->o[col] * f;
      }
    }
    max_out = mx;
    sum_out = sum;
    value_out = value;
  };
  using Partial = AttentionDecodePartial<A, kHead>;
  auto warp_part = [&](int w) -> const Partial* { return &warps[w]; };
  for (int col = threadIdx.x; col < kHead; col += Tile::kThreads) {
    A sum, value, mx;
    combine(Tile::kWarps, warp_part, col, sum, value, mx);
    block.o[col] = value;
    if (col == 0) {
      block.m = mx;
      block.l = sum;
    }
  }
  T* out = p.out + b * p.ol.batch + h * p.ol.head + static_cast<int64_t>(i) * p.ol.seq;
  auto store = [&](int col, A sum, A value) {
    if (col < p.dv) out[col] = from_acc<T>(sum == A(0) ? A(0) : value / sum);  // no key: zeros
  };
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (splits > 1) {
    // The cluster is the row's splits (x); block 0 combines them through distributed shared
    // memory (the cluster intrinsics, as conv_igemm_tiles.cuh uses them).
    __cluster_barrier_arrive();
    __cluster_barrier_wait();
    if (__clusterRelativeBlockRank() == 0) {
      auto rank_part = [&](int r) {
        return static_cast<const Partial*>(
            __cluster_map_shared_rank(&block, static_cast<unsigned>(r)));
      };
      for (int col = threadIdx.x; col < kHead; col += Tile::kThreads) {
        A sum, value, mx;
        combine(splits, rank_part, col, sum, value, mx);
        store(col, sum, value);
      }
    }
    __cluster_barrier_arrive();  // no block leaves while block 0 still reads its shared memory
    __cluster_barrier_wait();
    return;
  }
#endif
  __syncthreads();
  for (int col = threadIdx.x; col < kHead; col += Tile::kThreads) store(col, block.l, block.o[col]);
}

/// Splits of the key range for `rows` blocks of `skv` keys: enough to give each SM a block when
/// the rows alone leave most idle, at most a cluster of 8, each split at least one group per warp;
/// 1 before sm_90 or when the kernel's binary was not built for it.
inline int attention_decode_splits(int64_t rows, int skv, int binary_version) {
  using Tile = AttentionDecodeTile;
  int sms = 0, major = 0;
  if (!current_device_sms(sms, major)) return 1;
  if (major < 9 || binary_version < 90 || 2 * rows > sms) return 1;
  const int groups = (skv + Tile::kGroup - 1) / Tile::kGroup;
  int splits = static_cast<int>(sms / rows);
  splits = splits < Tile::kMaxSplits ? splits : Tile::kMaxSplits;
  const int most = groups / Tile::kMinGroupsPerSplit;
  splits = splits < most ? splits : most;
  return splits >= 2 ? splits : 1;
}

/// Launches the decode kernel for p (p.sq <= kAttentionDecodeMaxRows rows, batch * sq <= 65535).
template <typename T, int kHead>
inline cudaError_t attention_decode(const AttentionParams<T>& p, int64_t batch, int64_t heads,
                                    cudaStream_t stream) {
  constexpr auto kernel = attention_decode_kernel<T, kHead>;
  // 16-byte K rows: the base and every row start aligned, d a whole number of chunks.
  constexpr int kPer = 16 / static_cast<int>(sizeof(T));
  const bool vec = reinterpret_cast<uintptr_t>(p.k) % 16 == 0 && p.kl.batch % kPer == 0 &&
                   p.kl.head % kPer == 0 && p.kl.seq % kPer == 0 && p.d % kPer == 0;
  const int64_t rows = batch * heads * p.sq;
  const int splits = attention_decode_splits(rows, p.skv, binary_version<kernel>());
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(splits), static_cast<unsigned>(heads),
                        static_cast<unsigned>(batch * p.sq));
  config.blockDim = dim3(AttentionDecodeTile::kThreads);
  config.stream = stream;
  cudaLaunchAttribute cluster;
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = static_cast<unsigned>(splits);
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  config.attrs = &cluster;
  config.numAttrs = splits > 1 ? 1 : 0;
  return cudaLaunchKernelEx(&config, kernel, p, vec);
}

}  // namespace detail

}  // namespace inferno::kernels
