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
// p_j * V[j]: the group's 32 V rows are read in 16-byte chunks, kChunks lanes to a row (a row of
// 64 halves is 8 chunks, so one warp-wide load covers 4 rows), each lane summing its chunk's
// columns over its rows, folded across lanes once at the end; rows that are not 16-byte
// aligned are read a column per lane instead. Probabilities stay in the accumulator type: P is
// not rounded to T before P @ V, unlike the tensor-core kernel.
//
// Latency, not bandwidth, bounds a decode step's attention (a few hundred keys of 128 bytes per
// head): every load of a group, K's rows and V's chunks alike, is issued before the first is
// used, so a group costs about three DRAM round trips (mask, K and V, the softmax's shuffles),
// not one per key or per chunk.
//
// Splits: on sm_90 the key range is split over a cluster of up to 8 blocks when (rows x heads x
// batch) alone would leave most SMs idle (flash-decoding). Each block reduces its 4 warps'
// (max, sum, output) in shared memory; block 0 of the cluster reads the others' through
// distributed shared memory, combines them in rank order and stores the row: one kernel, no
// workspace, the same result for every run. Before sm_90 (or a binary not built for it) one block
// takes all keys. Grouped-query attention reads kv head h / groups in place (no repeated K/V).
//
// The step's own rows (AttentionDecodeUpdate, attention_step in attention.cuh): a decoder layer's
// rotary of q and of the new key, and the writes of the new key and value rows into the KV cache,
// may happen in this kernel's prologue instead of a launch of their own before it. Each block
// rotates q and the new key into shared memory (rounded to T, as the rotary kernel stores them),
// and reads the new row from there wherever its keys reach the new position; one block of each
// kv head (split 0 of its first query head) writes the rows into the caches for later steps. So
// no block reads a cache row another block of this launch writes.
//
// In a generated model's decode step (AttentionDecodeLaunch) the kernel may be launched with
// programmatic dependent launch (dependent_launch.cuh: it awaits the kernels before it reads
// what they write), so that the GEMV after it (the output projection) launches while it runs and
// streams its weight meanwhile. On unless INFERNO_ATTENTION_DEPENDENT=0 (see
// attention_decode_dependent_enabled).
#pragma once

#include "attention_params.cuh"
#include "dependent_launch.cuh"

namespace inferno::kernels {

/// How a generated model launches the decode kernel: `dependent` when the session allows
/// dependent launches (taken only where attention_decode_dependent_enabled). Other attention
/// kernels ignore it.
struct AttentionDecodeLaunch {
  bool dependent = false;
  /// The key splits (cluster size) to take instead of attention_decode_splits' choice, 0: that
  /// choice. For benchmarks (tools/bench/attention_decode_bench.cu); honoured up to 8, and only
  /// where clusters are (sm_90 code on an sm_90 device), else one block takes all keys.
  int splits = 0;
};

/// The decode step's new key and value rows (one query row per batch, sq = 1) and the rotary
/// of q and of the key, done by the decode kernel before it attends (see the file comment). The
/// caches are the attention's k and v; position[0] is the new rows' place in them (negative
/// counts from the end, as index_copy's index; outside the cache: no row is written or
/// substituted). cosine and sine hold one row of rotary values per batch (batch stride
/// rotary_batch_stride, 0 when shared), for q and the key alike; q_rotary and k_rotary are the
/// rotated leading elements of each (0: none), halves rotated as rotate_half does.
template <typename T>
struct AttentionDecodeUpdate {
  const T* k_new = nullptr;
  AttentionLayout k_new_layout{};
  const T* v_new = nullptr;
  AttentionLayout v_new_layout{};
  const int64_t* position = nullptr;  ///< nullptr: no update, the kernel only attends
  const T* cosine = nullptr;
  const T* sine = nullptr;
  int64_t rotary_batch_stride = 0;
  int q_rotary = 0, k_rotary = 0;
};

/// Whether the decode kernel takes a dependent launch where the model allows one: yes unless
/// INFERNO_ATTENTION_DEPENDENT=0 is in the environment (read once), for comparisons. The GEMV after
/// it then launches early and streams its weight while the attention runs: 3.2% off TinyLlama's
/// decode step and 2.5% off GPT-2's on an H100, in one run against the normal launch
/// (docs/benchmarks.md, "The decode step with split GEMV columns").
inline bool attention_decode_dependent_enabled() {
  static const bool enabled = [] {
    const char* setting = std::getenv("INFERNO_ATTENTION_DEPENDENT");
    return setting == nullptr || std::strcmp(setting, "0") != 0;
  }();
  return enabled;
}

/// Query rows up to which attention() takes this kernel (per batch and head).
inline constexpr int kAttentionDecodeMaxRows = 4;

namespace detail {

struct AttentionDecodeTile {
  static constexpr int kWarps = 4, kThreads = 32 * kWarps;
  static constexpr int kGroup = 32;                  ///< keys a warp takes at once, one per lane
  static constexpr int kMaxSplits = 8;               ///< the portable cluster size
  static constexpr int kMinGroupsPerSplit = kWarps;  ///< a split keeps every warp busy
};

/// How a warp reads rows of kHead elements of T in 16-byte chunks. A K row is read by its own
/// lane (the lane's key); the group's 32 V rows are read kChunks lanes to a row, kRowsPerLoad
/// rows per warp-wide load, kLoads loads per lane (when kChunks <= 32).
template <typename T, int kHead>
struct AttentionDecodeRows {
  static constexpr int kPer = 16 / static_cast<int>(sizeof(T));  ///< elements per chunk
  static constexpr int kChunks = kHead / kPer;                   ///< chunks per row
  static constexpr bool kVectorV = kChunks <= 32;
  static constexpr int kRowsPerLoad = kVectorV ? 32 / kChunks : 1;
  static constexpr int kLoads = AttentionDecodeTile::kGroup / kRowsPerLoad;
  /// Loads staged in registers at once (16 bytes each): 64 registers at most.
  static constexpr int kBatch = 16;
  /// V's loads go out with K's, before the softmax needs them, when one batch holds them all.
  static constexpr bool kEarlyV = kLoads <= kBatch;
};

/// The dot product of q (shared, already scaled into the log2 domain) and key row `key` (d
/// elements). Every chunk's load of a batch is issued before the first FMA, so a lane waits for
/// one DRAM round trip per batch (one for d <= 128 in 16-bit types), not one per chunk.
template <typename T, int kHead>
__device__ __forceinline__ acc_t<T> attn_decode_dot(const acc_t<T>* qs, const T* key, int d,
                                                    bool vec) {
  using A = acc_t<T>;
  using Rows = AttentionDecodeRows<T, kHead>;
  constexpr int kPer = Rows::kPer;
  A s = 0;
  if (vec) {
#pragma unroll
    for (int c0 = 0; c0 < Rows::kChunks; c0 += Rows::kBatch) {
      uint4 raw[Rows::kBatch];
#pragma unroll
      for (int c = 0; c < Rows::kBatch; ++c) {
        const int e = (c0 + c) * kPer;
        raw[c] = c0 + c < Rows::kChunks && e < d ? *reinterpret_cast<const uint4*>(key + e)
                                                 : make_uint4(0, 0, 0, 0);
      }
#pragma unroll
      for (int c = 0; c < Rows::kBatch; ++c) {
        const T* x = reinterpret_cast<const T*>(&raw[c]);
        const int e = (c0 + c) * kPer;
#pragma unroll
        for (int u = 0; u < kPer; ++u)
          if (c0 + c < Rows::kChunks) s += qs[e + u] * to_acc(x[u]);  // qs is 0 past d
      }
    }
  } else {
#pragma unroll 8
    for (int e = 0; e < d; ++e) s += qs[e] * to_acc(key[e]);
  }
  return s;
}

/// Element e of row x after a rotary of its first r elements (r = 0: none) by one row of cosine
/// and sine, rounded to T: what the rotary kernel (codegen/emit_rotary.cpp) stores, computed the
/// same way (the partner of the first half negated).
template <typename T>
__device__ __forceinline__ T attn_decode_rotated(const T* x, int e, int r, const T* cosine,
                                                 const T* sine) {
  if (e >= r) return x[e];
  using A = acc_t<T>;
  const int h = r / 2;
  const A partner = e < h ? -to_acc(x[e + h]) : to_acc(x[e - h]);
  const A value = to_acc(x[e]) * to_acc(cosine[e]) + partner * to_acc(sine[e]);
  return from_acc<T>(value);
}

/// Loads `Rows::kBatch` of a group's V chunks from load r0 on: load r reads row
/// r * kRowsPerLoad + lane / kChunks of the group (starting at `rows`), chunk lane % kChunks,
/// only where `live` has the row's bit (a dead row's memory may lie past the cache). Row
/// `new_row` of the group (if any) is read from `new_v` (shared memory) instead.
template <typename T, int kHead>
__device__ __forceinline__ void attn_decode_load_v(
    uint4 (&raw)[AttentionDecodeRows<T, kHead>::kBatch], const T* rows, int64_t stride, int r0,
    unsigned live, int lane, int dv, int new_row, const T* new_v) {
  using Rows = AttentionDecodeRows<T, kHead>;
  const int sub = lane / Rows::kChunks, chunk = lane % Rows::kChunks;
#pragma unroll
  for (int r = 0; r < Rows::kBatch; ++r) {
    const int row = (r0 + r) * Rows::kRowsPerLoad + sub;
    const bool read = r0 + r < Rows::kLoads && ((live >> row) & 1u) != 0 && chunk * Rows::kPer < dv;
    const T* at = (row == new_row ? new_v : rows + row * stride) + chunk * Rows::kPer;
    raw[r] = read ? *reinterpret_cast<const uint4*>(at) : make_uint4(0, 0, 0, 0);
  }
}

/// ov[u] += p_row * V[row][chunk * kPer + u] over the batch's rows, p_row broadcast from the
/// row's lane (e holds each lane's key's probability).
template <typename T, int kHead>
__device__ __forceinline__ void attn_decode_add_v(
    acc_t<T> (&ov)[AttentionDecodeRows<T, kHead>::kPer],
    const uint4 (&raw)[AttentionDecodeRows<T, kHead>::kBatch], int r0, acc_t<T> e, int lane) {
  using A = acc_t<T>;
  using Rows = AttentionDecodeRows<T, kHead>;
  const int sub = lane / Rows::kChunks;
#pragma unroll
  for (int r = 0; r < Rows::kBatch; ++r) {
    if (r0 + r >= Rows::kLoads) break;
    const A w = __shfl_sync(0xffffffffu, e, (r0 + r) * Rows::kRowsPerLoad + sub);
    const T* x = reinterpret_cast<const T*>(&raw[r]);
#pragma unroll
    for (int u = 0; u < Rows::kPer; ++u) ov[u] += w != A(0) ? w * to_acc(x[u]) : A(0);
  }
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
    attention_decode_kernel(const AttentionParams<T> p, const AttentionDecodeUpdate<T> u,
                            bool vec_k, bool vec_v, bool dependent) {
  using A = acc_t<T>;
  using Tile = AttentionDecodeTile;
  using Rows = AttentionDecodeRows<T, kHead>;
  constexpr int kCols = kHead / 32;  // scalar V path: output columns lane + 32 c of each lane
  __shared__ A qs[kHead];
  __shared__ AttentionDecodePartial<A, kHead> warps[Tile::kWarps];
  __shared__ AttentionDecodePartial<A, kHead> block;  // read by the cluster's block 0
  __shared__ __align__(16) T new_k[kHead];            // the update's rows (AttentionDecodeUpdate)
  __shared__ __align__(16) T new_v[kHead];

  const int h = static_cast<int>(blockIdx.y), hk = h / p.kv_groups;
  const int b = static_cast<int>(blockIdx.z) / p.sq, i = static_cast<int>(blockIdx.z) % p.sq;
  const int warp = static_cast<int>(threadIdx.x) >> 5, lane = static_cast<int>(threadIdx.x) & 31;
  const T* q = p.q + b * p.ql.batch + h * p.ql.head + static_cast<int64_t>(i) * p.ql.seq;
  const T* k = p.k + b * p.kl.batch + hk * p.kl.head;
  const T* v = p.v + b * p.vl.batch + hk * p.vl.head;
  // A dependent launch waits for the kernels before (q, k, v and the mask are theirs), and its
  // wait lets the kernel after it launch. Launched normally it must not: that kernel would then
  // launch early all the same (the trigger is this kernel's, whatever its own launch).
  if (dependent) await_producers();
  // The update (sq = 1): q and the new key rotated, the new rows staged in shared memory, and the
  // row they replace (-1: none).
  int new_row = -1;
  const T* cosine = u.cosine + b * u.rotary_batch_stride;
  const T* sine = u.sine + b * u.rotary_batch_stride;
  if (u.position != nullptr) {
    int64_t row = u.position[0];
    if (row < 0) row += p.skv;
    new_row = row >= 0 && row < p.skv ? static_cast<int>(row) : -1;
    const T* k_new = u.k_new + b * u.k_new_layout.batch + hk * u.k_new_layout.head;
    const T* v_new = u.v_new + b * u.v_new_layout.batch + hk * u.v_new_layout.head;
    for (int e = threadIdx.x; e < kHead; e += Tile::kThreads) {
      new_k[e] = e < p.d ? attn_decode_rotated(k_new, e, u.k_rotary, cosine, sine) : from_acc<T>(0);
      new_v[e] = e < p.dv ? v_new[e] : from_acc<T>(0);
    }
  }
  for (int e = threadIdx.x; e < kHead; e += Tile::kThreads)
    qs[e] =
        e < p.d ? to_acc(attn_decode_rotated(q, e, u.q_rotary, cosine, sine)) * p.scale_log2 : A(0);
  __syncthreads();
  if (new_row >= 0 && blockIdx.x == 0 && h % p.kv_groups == 0) {
    // This kv head's writer: the rows go into the caches for the steps after this one. No block
    // of this launch reads them there (each reads new_k and new_v instead).
    T* k_row = const_cast<T*>(k) + static_cast<int64_t>(new_row) * p.kl.seq;
    T* v_row = const_cast<T*>(v) + static_cast<int64_t>(new_row) * p.vl.seq;
    for (int e = threadIdx.x; e < p.d; e += Tile::kThreads) k_row[e] = new_k[e];
    for (int e = threadIdx.x; e < p.dv; e += Tile::kThreads) v_row[e] = new_v[e];
  }

  // This block's groups of 32 keys: split gridDim.x of them, in order.
  const int keys = p.causal ? min(p.skv, i + 1) : p.skv;
  const int groups = (keys + Tile::kGroup - 1) / Tile::kGroup;
  const int splits = static_cast<int>(gridDim.x);
  const int per_split = (groups + splits - 1) / splits;
  const int g0 = static_cast<int>(blockIdx.x) * per_split, g1 = min(groups, g0 + per_split);

  // The running softmax state, and the output two ways: o (column lane + 32 c) when V's rows
  // are read a column per lane, ov (a partial sum over the lane's rows of its chunk's columns)
  // when they are read in 16-byte chunks.
  const bool chunked_v = Rows::kVectorV && vec_v;
  A m = -acc_infinity<A>(), l = 0, o[kCols], ov[Rows::kPer];
#pragma unroll
  for (int c = 0; c < kCols; ++c) o[c] = 0;
#pragma unroll
  for (int u = 0; u < Rows::kPer; ++u) ov[u] = 0;
  const int64_t mask_row = p.mask.kind == 0 ? 0
                                            : b * p.mask.strides[0] + h * p.mask.strides[1] +
                                                  static_cast<int64_t>(i) * p.mask.strides[2];
  for (int g = g0 + warp; g < g1; g += Tile::kWarps) {
    const int j = g * Tile::kGroup + lane;
    bool live = j < keys;
    const int64_t mask_at = mask_row + static_cast<int64_t>(j) * p.mask.strides[3];
    if (live && p.mask.kind == 1)
      live = static_cast<const unsigned char*>(p.mask.data)[mask_at] != 0;
    const unsigned live_bits = __ballot_sync(0xffffffffu, live);
    if (live_bits == 0) continue;  // no live key: K and V are not read
    const T* group_v = v + static_cast<int64_t>(g) * Tile::kGroup * p.vl.seq;
    const int group_new = new_row - g * Tile::kGroup;  // the new row's place in the group
    uint4 raw_v[Rows::kBatch];
    if constexpr (Rows::kEarlyV) {
      if (chunked_v)
        attn_decode_load_v<T, kHead>(raw_v, group_v, p.vl.seq, 0, live_bits, lane, p.dv, group_new,
                                     new_v);
    }
    A s = -acc_infinity<A>();
    if (live) {
      const T* key = j == new_row ? new_k : k + static_cast<int64_t>(j) * p.kl.seq;
      s = attn_decode_dot<T, kHead>(qs, key, p.d, vec_k);
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
    if (chunked_v) {
#pragma unroll
      for (int u = 0; u < Rows::kPer; ++u) ov[u] *= correction;
      if constexpr (Rows::kEarlyV) {
        attn_decode_add_v<T, kHead>(ov, raw_v, 0, e, lane);
      } else {
#pragma unroll
        for (int r0 = 0; r0 < Rows::kLoads; r0 += Rows::kBatch) {
          attn_decode_load_v<T, kHead>(raw_v, group_v, p.vl.seq, r0, live_bits, lane, p.dv,
                                       group_new, new_v);
          attn_decode_add_v<T, kHead>(ov, raw_v, r0, e, lane);
        }
      }
      continue;
    }
#pragma unroll
    for (int c = 0; c < kCols; ++c) o[c] *= correction;
      // One column per lane: the loads of 8 rows go out together (predicated, not branched on).
#pragma unroll 8
    for (int jj = 0; jj < Tile::kGroup; ++jj) {
      const A w = __shfl_sync(0xffffffffu, e, jj);
      const T* row = jj == group_new ? new_v : group_v + static_cast<int64_t>(jj) * p.vl.seq;
#pragma unroll
      for (int c = 0; c < kCols; ++c) {
        const int col = lane + 32 * c;
        if (w != A(0) && col < p.dv) o[c] += w * to_acc(row[col]);  // w != 0: a live key
      }
    }
  }
  if (chunked_v) {
    // Lanes kChunks apart hold partial sums of the same columns: fold them onto the first
    // kChunks lanes, then spread them into o's layout through the shared partial below.
#pragma unroll
    for (int u = 0; u < Rows::kPer; ++u) {
#pragma unroll
      for (int offset = Rows::kChunks; offset < 32; offset *= 2)
        ov[u] += __shfl_xor_sync(0xffffffffu, ov[u], offset);
    }
  }

  // The block's 4 warps, combined in warp order.
  if (lane == 0) {
    warps[warp].m = m;
    warps[warp].l = l;
  }
  if (chunked_v) {
    if (lane < Rows::kChunks) {
#pragma unroll
      for (int u = 0; u < Rows::kPer; ++u) warps[warp].o[lane * Rows::kPer + u] = ov[u];
    }
  } else {
#pragma unroll
    for (int c = 0; c < kCols; ++c) warps[warp].o[lane + 32 * c] = o[c];
  }
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
/// `forced` (> 0) instead where clusters are; 1 before sm_90 or when the kernel's binary was not
/// built for it.
inline int attention_decode_splits(int64_t rows, int skv, int binary_version, int forced = 0) {
  using Tile = AttentionDecodeTile;
  int sms = 0, major = 0;
  if (!current_device_sms(sms, major)) return 1;
  if (major < 9 || binary_version < 90) return 1;
  if (forced > 0) return forced < Tile::kMaxSplits ? forced : Tile::kMaxSplits;
  if (2 * rows > sms) return 1;
  const int groups = (skv + Tile::kGroup - 1) / Tile::kGroup;
  int splits = static_cast<int>(sms / rows);
  splits = splits < Tile::kMaxSplits ? splits : Tile::kMaxSplits;
  const int most = groups / Tile::kMinGroupsPerSplit;
  splits = splits < most ? splits : most;
  return splits >= 2 ? splits : 1;
}

/// Launches the decode kernel for p (p.sq <= kAttentionDecodeMaxRows rows, batch * sq <= 65535)
/// and the update u (p.sq = 1 when it has a position).
template <typename T, int kHead>
inline cudaError_t attention_decode(const AttentionParams<T>& p, int64_t batch, int64_t heads,
                                    cudaStream_t stream, const AttentionDecodeLaunch& launch,
                                    const AttentionDecodeUpdate<T>& u = {}) {
  constexpr auto kernel = attention_decode_kernel<T, kHead>;
  // 16-byte rows: the base and every row start aligned, the width a whole number of chunks.
  constexpr int kPer = AttentionDecodeRows<T, kHead>::kPer;
  auto chunked = [](const T* base, const AttentionLayout& l, int width) {
    return reinterpret_cast<uintptr_t>(base) % 16 == 0 && l.batch % kPer == 0 &&
           l.head % kPer == 0 && l.seq % kPer == 0 && width % kPer == 0;
  };
  const bool vec_k = chunked(p.k, p.kl, p.d), vec_v = chunked(p.v, p.vl, p.dv);
  const int64_t rows = batch * heads * p.sq;
  const int splits = attention_decode_splits(rows, p.skv, binary_version<kernel>(), launch.splits);
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(splits), static_cast<unsigned>(heads),
                        static_cast<unsigned>(batch * p.sq));
  config.blockDim = dim3(AttentionDecodeTile::kThreads);
  config.stream = stream;
  cudaLaunchAttribute attributes[2] = {};
  unsigned count = 0;
  if (splits > 1) {
    cudaLaunchAttribute& cluster = attributes[count++];
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = static_cast<unsigned>(splits);
    cluster.val.clusterDim.y = 1;
    cluster.val.clusterDim.z = 1;
  }
  const bool dependent = launch.dependent && attention_decode_dependent_enabled();
  if (dependent) {
    cudaLaunchAttribute& overlap = attributes[count++];
    overlap.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    overlap.val.programmaticStreamSerializationAllowed = 1;
  }
  config.attrs = attributes;
  config.numAttrs = count;
  return cudaLaunchKernelEx(&config, kernel, p, u, vec_k, vec_v, dependent);
}

}  // namespace detail

}  // namespace inferno::kernels
