// kernels/attention.cuh: attention(q, k, v, mask?) = softmax(scale * q @ k^T + mask) @ v per batch
// and query head, without ever storing the scores: q [B, Hq, Sq, D], k [B, Hkv, Skv, D],
// v [B, Hkv, Skv, Dv], out [B, Hq, Sq, Dv]; query head h reads kv head h / (Hq / Hkv)
// (grouped-query attention). Each tensor is addressed through its batch, head and sequence strides
// (its last dim contiguous), so views such as a fused QKV projection's output slices are read in
// place. causal: query i sees keys j <= i (top-left aligned). The mask (none, bool: true keeps the
// key, or additive: added to the scaled score) is read through four strides, 0 where it broadcasts.
// A query row that sees no key (every key masked, or every score -inf) gives zeros.
//
// A few query rows (an LLM's decode step) take attention_decode.cuh's kernel instead. Otherwise
// both kernels below follow the flash-attention scheme: a block owns a tile of query rows of one
// (batch, head) and streams the key and value tiles through shared memory, keeping per row a
// running max m and sum l of exp(s - m) in float (double for f64) and rescaling its output
// accumulator whenever m grows; the output is divided by l once at the end. Scores are kept in the
// log2 domain (the scale is multiplied by log2(e) once and the additive mask by log2(e) as it is
// read), so each exponential is one exp2. With causal masking a block stops at the key tile holding
// its last row's diagonal (the blocks with the most key tiles are launched first), and the
// per-element masking runs only on tiles that need it.
//
//  - f16 / bf16 on sm_80+ (attention_mma_kernel): 4 warps, each owning 16 query rows of a 64-row
//    tile; key tiles of 64 (32 for head dims above 128). Q @ K^T and P @ V run on tensor cores
//    (mma.sync m16n8k16, f32 accumulation), fragments loaded with ldmatrix (.trans for V); the
//    scores stay in the accumulator registers, where the softmax is applied and rounded to T as
//    the A operand of P @ V. Q's fragments live in registers for the whole loop. K and V tiles come
//    in by cp.async into two buffers: tile t + 1 is in flight while tile t is computed. Shared
//    memory: (64 + 4 * key tile) rows of (head + 8) elements (the 16-byte pad puts the 8 rows of
//    every ldmatrix on distinct banks): 45 KB for head 64, 85 KB for 128, 99 KB for 256.
//  - f32 and f64 (and f16 / bf16 on GPUs before sm_80): attention_simt_kernel, 128 threads on a
//    32-row query tile and 32-key tiles, in the accumulator type on the FMA units (no TF32): four
//    threads per query row, each with 8 of the tile's scores and head / 4 of the row's outputs in
//    registers; Q, one K-or-V tile and the probabilities in shared memory.
// The head dims are padded to a compile-time kHead (attention_head_tile: 32, 64, 128 or 256) with
// zeros, which add nothing to the dot products; padded output columns are never stored.
//
// Sums run in an order fixed by the shapes, so results are bitwise reproducible run to run.
#pragma once

#include "attention_decode.cuh"
#include "attention_params.cuh"

namespace inferno::kernels {

namespace detail {

// ---- tensor cores (f16 / bf16, sm_80+) ----------------------------------------------------------

template <int kHead>
struct AttentionMmaTile {
  static constexpr int kM = 64;                      ///< query rows: 4 warps of 16
  static constexpr int kN = kHead <= 128 ? 64 : 32;  ///< keys per tile
  static constexpr int kThreads = 128;
  static constexpr int kStride = kHead + 8;  ///< shared row, in elements
  static constexpr int kSmemBytes = (kM + 4 * kN) * kStride * 2;
};

__device__ __forceinline__ void attn_cp_async16(void* dst, const void* src, int src_bytes) {
  const auto s = static_cast<uint32_t>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src),
               "r"(src_bytes));
}
__device__ __forceinline__ void attn_cp_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int kPending>
__device__ __forceinline__ void attn_cp_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

/// Four 8x8 tiles of 16-bit elements from shared memory in the mma fragment layout: lane l
/// addresses row l % 8 of tile l / 8. kTrans: each tile transposed (B fragments of a row-major
/// [k][n] tile).
template <bool kTrans, typename T>
__device__ __forceinline__ void attn_ldmatrix_x4(uint32_t (&r)[4], const T* row) {
  const auto address = static_cast<uint32_t>(__cvta_generic_to_shared(row));
  if constexpr (kTrans) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
  } else {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
  }
}

/// d += a * b for one m16n8k16 tile (f32 accumulators).
template <typename T>
__device__ __forceinline__ void attn_mma(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                         uint32_t b1) {
  if constexpr (std::is_same_v<T, __half>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}

/// Two floats rounded to T and packed as one 32-bit operand register (lo in the low half).
template <typename T>
__device__ __forceinline__ uint32_t attn_pack(float lo, float hi) {
  uint32_t bits;
  if constexpr (std::is_same_v<T, __half>) {
    const __half2 h = __floats2half2_rn(lo, hi);
    memcpy(&bits, &h, sizeof bits);
  } else {
    const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    memcpy(&bits, &h, sizeof bits);
  }
  return bits;
}

/// Starts loading rows [0, kRows) x columns [0, kHead) of a tile into shared memory (row stride
/// kStride): 16-byte cp.async chunks when p.vec (chunks past `rows` or `cols` are zero-filled),
/// otherwise element by element, synchronously. Every thread of the block calls it.
template <typename T, int kRows, int kHead, int kStride, int kThreads>
__device__ __forceinline__ void attn_load_tile(T* dst, const T* src, int64_t row_stride, int rows,
                                               int cols, bool vec) {
  constexpr int kChunksPerRow = kHead / 8;
  for (int c = threadIdx.x; c < kRows * kChunksPerRow; c += kThreads) {
    const int r = c / kChunksPerRow, col = (c % kChunksPerRow) * 8;
    T* to = dst + r * kStride + col;
    if (vec) {
      const bool in = r < rows && col < cols;
      attn_cp_async16(to, in ? src + r * row_stride + col : src, in ? 16 : 0);
    } else {
#pragma unroll
      for (int e = 0; e < 8; ++e) {
        to[e] = r < rows && col + e < cols ? src[r * row_stride + col + e] : from_float<T>(0.0f);
      }
    }
  }
}

template <typename T, int kHead>
__global__ void __launch_bounds__(AttentionMmaTile<kHead>::kThreads)
    attention_mma_kernel(const AttentionParams<T> p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using Tile = AttentionMmaTile<kHead>;
  constexpr int kM = Tile::kM, kN = Tile::kN, kS = Tile::kStride, kThreads = Tile::kThreads;
  extern __shared__ __align__(16) unsigned char attn_smem[];
  T* qs = reinterpret_cast<T*>(attn_smem);
  T* ks = qs + kM * kS;      // [2][kN][kS]
  T* vs = ks + 2 * kN * kS;  // [2][kN][kS]

  const int m0 = attn_query_tile(p.causal) * kM, h = static_cast<int>(blockIdx.y);
  const int b = static_cast<int>(blockIdx.z), hk = h / p.kv_groups;
  const int warp = static_cast<int>(threadIdx.x) >> 5, lane = static_cast<int>(threadIdx.x) & 31;
  const int gid = lane >> 2, tig = lane & 3;
  const T* q = p.q + b * p.ql.batch + h * p.ql.head + static_cast<int64_t>(m0) * p.ql.seq;
  const T* k = p.k + b * p.kl.batch + hk * p.kl.head;
  const T* v = p.v + b * p.vl.batch + hk * p.vl.head;
  // Keys this block sees: all, or (causal) up to its last row's diagonal.
  const int last_row = min(m0 + kM, p.sq) - 1;
  const int keys = p.causal ? min(p.skv, last_row + 1) : p.skv;
  const int tiles = (keys + kN - 1) / kN;
  const int row0 = m0 + warp * 16 + gid;  // this thread's rows: row0 and row0 + 8

  float o[kHead / 8][4];
#pragma unroll
  for (int n = 0; n < kHead / 8; ++n) o[n][0] = o[n][1] = o[n][2] = o[n][3] = 0.0f;
  float row_max[2] = {-acc_infinity<float>(), -acc_infinity<float>()};
  float row_sum[2] = {0.0f, 0.0f};  // this thread's columns only, summed over the quad at the end
  uint32_t qf[kHead / 16][4];

  auto load_kv = [&](int t, int buf) {
    const int n0 = t * kN;
    attn_load_tile<T, kN, kHead, kS, kThreads>(ks + buf * kN * kS, k + n0 * p.kl.seq, p.kl.seq,
                                               p.skv - n0, p.d, p.vec);
    attn_load_tile<T, kN, kHead, kS, kThreads>(vs + buf * kN * kS, v + n0 * p.vl.seq, p.vl.seq,
                                               p.skv - n0, p.dv, p.vec);
  };
  if (tiles > 0) {
    attn_load_tile<T, kM, kHead, kS, kThreads>(qs, q, p.ql.seq, p.sq - m0, p.d, p.vec);
    load_kv(0, 0);
  }
  attn_cp_commit();

  for (int t = 0; t < tiles; ++t) {
    const int buf = t & 1;
    if (t + 1 < tiles) load_kv(t + 1, buf ^ 1);
    attn_cp_commit();
    attn_cp_wait<1>();  // everything but tile t + 1 has landed
    __syncthreads();
    if (t == 0) {
      // Q's A fragments: lane l addresses row l % 16 at column kk * 16 + (l / 16) * 8.
#pragma unroll
      for (int kk = 0; kk < kHead / 16; ++kk)
        attn_ldmatrix_x4<false>(qf[kk],
                                qs + (warp * 16 + (lane & 15)) * kS + kk * 16 + (lane >> 4) * 8);
    }
    const T* kt = ks + buf * kN * kS;
    const T* vt = vs + buf * kN * kS;

    // S = Q K^T, 16 x kN per warp. K's rows are the B operand's columns (k contiguous): lane l
    // addresses key (l % 8) + (l / 16) * 8 at column kk * 16 + (l / 8 % 2) * 8.
    float s[kN / 8][4];
#pragma unroll
    for (int n = 0; n < kN / 8; ++n) s[n][0] = s[n][1] = s[n][2] = s[n][3] = 0.0f;
#pragma unroll
    for (int kk = 0; kk < kHead / 16; ++kk) {
#pragma unroll
      for (int n = 0; n < kN / 8; n += 2) {
        uint32_t kb[4];
        attn_ldmatrix_x4<false>(
            kb, kt + (n * 8 + (lane & 7) + (lane >> 4) * 8) * kS + kk * 16 + ((lane >> 3) & 1) * 8);
        attn_mma<T>(s[n], qf[kk], kb[0], kb[1]);
        attn_mma<T>(s[n + 1], qf[kk], kb[2], kb[3]);
      }
    }

    // Scale (log2 domain) and mask; element e of block n is row row0 + (e / 2) * 8, key
    // n0 + n * 8 + tig * 2 + e % 2.
    const int n0 = t * kN;
    const bool edge =
        n0 + kN > p.skv || p.mask.kind != 0 || (p.causal && n0 + kN - 1 > m0 + warp * 16);
#pragma unroll
    for (int n = 0; n < kN / 8; ++n) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        float x = s[n][e] * p.scale_log2;
        if (edge) x = attn_masked(x, b, h, row0 + (e >> 1) * 8, n0 + n * 8 + tig * 2 + (e & 1), p);
        s[n][e] = x;
      }
    }

    // Online softmax of the two rows (a row's kN scores are spread over the 4 lanes of a quad).
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float mx = -acc_infinity<float>();
#pragma unroll
      for (int n = 0; n < kN / 8; ++n) mx = fmaxf(mx, fmaxf(s[n][2 * r], s[n][2 * r + 1]));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      const float new_max = fmaxf(row_max[r], mx);
      const float base = new_max == -acc_infinity<float>() ? 0.0f : new_max;  // no key seen yet
      const float correction = attn_exp2(row_max[r] - base);
      row_max[r] = new_max;
      float sum = 0.0f;
#pragma unroll
      for (int n = 0; n < kN / 8; ++n) {
        s[n][2 * r] = attn_exp2(s[n][2 * r] - base);
        s[n][2 * r + 1] = attn_exp2(s[n][2 * r + 1] - base);
        sum += s[n][2 * r] + s[n][2 * r + 1];
      }
      row_sum[r] = row_sum[r] * correction + sum;
#pragma unroll
      for (int n = 0; n < kHead / 8; ++n) {
        o[n][2 * r] *= correction;
        o[n][2 * r + 1] *= correction;
      }
    }

    // O += P V. P's accumulator layout is the A fragment of k = keys; V's B fragments come from
    // its row-major [key][dim] tile transposed: lane l addresses key (l % 8) + (l / 8 % 2) * 8 at
    // column n * 8 + (l / 16) * 8.
#pragma unroll
    for (int kk = 0; kk < kN / 16; ++kk) {
      const uint32_t pa[4] = {attn_pack<T>(s[2 * kk][0], s[2 * kk][1]),
                              attn_pack<T>(s[2 * kk][2], s[2 * kk][3]),
                              attn_pack<T>(s[2 * kk + 1][0], s[2 * kk + 1][1]),
                              attn_pack<T>(s[2 * kk + 1][2], s[2 * kk + 1][3])};
#pragma unroll
      for (int n = 0; n < kHead / 8; n += 2) {
        uint32_t vb[4];
        attn_ldmatrix_x4<true>(
            vb, vt + (kk * 16 + (lane & 7) + ((lane >> 3) & 1) * 8) * kS + n * 8 + (lane >> 4) * 8);
        attn_mma<T>(o[n], pa, vb[0], vb[1]);
        attn_mma<T>(o[n + 1], pa, vb[2], vb[3]);
      }
    }
    __syncthreads();  // the next iteration loads tile t + 2 into this buffer
  }
  attn_cp_wait<0>();

#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float sum = row_sum[r];
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    sum += __shfl_xor_sync(0xffffffffu, sum, 2);
    const float inv = sum == 0.0f ? 0.0f : 1.0f / sum;  // no key seen: zeros
    const int row = row0 + r * 8;
    if (row >= p.sq) continue;
    T* dst = p.out + b * p.ol.batch + h * p.ol.head + static_cast<int64_t>(row) * p.ol.seq;
#pragma unroll
    for (int n = 0; n < kHead / 8; ++n) {
      const int col = n * 8 + tig * 2;
      if (col < p.dv) dst[col] = from_float<T>(o[n][2 * r] * inv);
      if (col + 1 < p.dv) dst[col + 1] = from_float<T>(o[n][2 * r + 1] * inv);
    }
  }
#else
  static_cast<void>(p);  // never launched below sm_80: the launcher takes the SIMT kernel there
#endif
}

// ---- FMA units (f32, f64, and 16-bit types before sm_80) ----------------------------------------

template <typename T, int kHead>
struct AttentionSimtTile {
  using A = acc_t<T>;
  static constexpr int kM = 32, kN = 32, kThreads = 128;  // 4 threads per query row
  static constexpr int kStride = kHead + 1;  ///< Q and K/V rows (odd: rows on distinct banks)
  static constexpr int kPStride = kN + 1;
  static constexpr int kSmemBytes =
      static_cast<int>(((kM + kN) * kStride + kM * kPStride) * sizeof(A));
};

/// Rows [0, kRows) x columns [0, kHead) of a tile into shared memory as A, zeros past rows/cols.
template <typename T, int kRows, int kHead, int kStride, int kThreads>
__device__ __forceinline__ void attn_load_simt(acc_t<T>* dst, const T* src, int64_t row_stride,
                                               int rows, int cols) {
  for (int c = threadIdx.x; c < kRows * kHead; c += kThreads) {
    const int r = c / kHead, col = c % kHead;
    dst[r * kStride + col] = r < rows && col < cols ? to_acc(src[r * row_stride + col]) : 0;
  }
}

template <typename T, int kHead>
__global__ void __launch_bounds__(AttentionSimtTile<T, kHead>::kThreads)
    attention_simt_kernel(const AttentionParams<T> p) {
  using Tile = AttentionSimtTile<T, kHead>;
  using A = acc_t<T>;
  constexpr int kM = Tile::kM, kN = Tile::kN, kS = Tile::kStride, kP = Tile::kPStride;
  constexpr int kThreads = Tile::kThreads, kKeys = kN / 4, kCols = kHead / 4;
  extern __shared__ __align__(16) unsigned char attn_smem[];
  A* qs = reinterpret_cast<A*>(attn_smem);
  A* kvs = qs + kM * kS;  // K, then V, of the current tile
  A* ps = kvs + kN * kS;  // [kM][kP] probabilities

  const int m0 = attn_query_tile(p.causal) * kM, h = static_cast<int>(blockIdx.y);
  const int b = static_cast<int>(blockIdx.z), hk = h / p.kv_groups;
  const int r = static_cast<int>(threadIdx.x) >> 2, sub = static_cast<int>(threadIdx.x) & 3;
  const int row = m0 + r;
  const T* q = p.q + b * p.ql.batch + h * p.ql.head + static_cast<int64_t>(m0) * p.ql.seq;
  const T* k = p.k + b * p.kl.batch + hk * p.kl.head;
  const T* v = p.v + b * p.vl.batch + hk * p.vl.head;
  const int last_row = min(m0 + kM, p.sq) - 1;
  const int keys = p.causal ? min(p.skv, last_row + 1) : p.skv;
  const int tiles = (keys + kN - 1) / kN;

  A o[kCols];  // columns sub + 4 * c of this thread's row
#pragma unroll
  for (int c = 0; c < kCols; ++c) o[c] = 0;
  A row_max = -acc_infinity<A>(), row_sum = 0;  // the same in all 4 threads of the row
  attn_load_simt<T, kM, kHead, kS, kThreads>(qs, q, p.ql.seq, p.sq - m0, p.d);

  for (int t = 0; t < tiles; ++t) {
    const int n0 = t * kN;
    __syncthreads();  // Q stored (t = 0); the previous tile's V and P read
    attn_load_simt<T, kN, kHead, kS, kThreads>(kvs, k + n0 * p.kl.seq, p.kl.seq, p.skv - n0, p.d);
    __syncthreads();
    // Scores of keys sub + 4 * j of the tile.
    A s[kKeys];
#pragma unroll
    for (int j = 0; j < kKeys; ++j) s[j] = 0;
    for (int e = 0; e < kHead; ++e) {
      const A x = qs[r * kS + e];
#pragma unroll
      for (int j = 0; j < kKeys; ++j) s[j] += x * kvs[(sub + 4 * j) * kS + e];
    }
    const bool edge = n0 + kN > p.skv || p.mask.kind != 0 || (p.causal && n0 + kN - 1 > m0);
    A mx = -acc_infinity<A>();
#pragma unroll
    for (int j = 0; j < kKeys; ++j) {
      s[j] *= p.scale_log2;
      if (edge) s[j] = attn_masked(s[j], b, h, row, n0 + sub + 4 * j, p);
      mx = s[j] > mx ? s[j] : mx;
    }
    mx = max(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
    mx = max(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
    const A new_max = max(row_max, mx);
    const A base = new_max == -acc_infinity<A>() ? A(0) : new_max;
    const A correction = attn_exp2(row_max - base);
    row_max = new_max;
    A sum = 0;
#pragma unroll
    for (int j = 0; j < kKeys; ++j) {
      const A e = attn_exp2(s[j] - base);
      ps[r * kP + sub + 4 * j] = e;
      sum += e;
    }
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    sum += __shfl_xor_sync(0xffffffffu, sum, 2);
    row_sum = row_sum * correction + sum;
#pragma unroll
    for (int c = 0; c < kCols; ++c) o[c] *= correction;
    __syncthreads();  // K read, P written
    attn_load_simt<T, kN, kHead, kS, kThreads>(kvs, v + n0 * p.vl.seq, p.vl.seq, p.skv - n0, p.dv);
    __syncthreads();
    for (int j = 0; j < kN; ++j) {
      const A w = ps[r * kP + j];
#pragma unroll
      for (int c = 0; c < kCols; ++c) o[c] += w * kvs[j * kS + sub + 4 * c];
    }
  }
  if (row >= p.sq) return;
  const A inv = row_sum == 0 ? A(0) : A(1) / row_sum;  // no key seen: zeros
  T* dst = p.out + b * p.ol.batch + h * p.ol.head + static_cast<int64_t>(row) * p.ol.seq;
#pragma unroll
  for (int c = 0; c < kCols; ++c) {
    const int col = sub + 4 * c;
    if (col < p.dv) dst[col] = from_acc<T>(o[c] * inv);
  }
}

/// Launches `kernel` with `smem` bytes of dynamic shared memory, opting in above 48 KB.
template <typename T>
inline cudaError_t attn_launch(void (*kernel)(AttentionParams<T>), dim3 grid, int threads, int smem,
                               const AttentionParams<T>& p, cudaStream_t stream) {
  if (smem > 48 * 1024) {
    const cudaError_t e =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (e != cudaSuccess) return e;
  }
  kernel<<<grid, threads, static_cast<size_t>(smem), stream>>>(p);
  return cudaGetLastError();
}

inline bool attn_fits_int(int64_t v) { return v >= 0 && v <= 0x7fffffff; }

/// The checks both entry points below make, and the kernel parameters: cudaErrorInvalidValue for
/// sizes the kernels cannot take (attention's comment), cudaSuccess with `empty` set when there
/// is nothing to compute.
template <typename T, int kHead>
inline cudaError_t attention_params(const T* q, const T* k, const T* v, T* out,
                                    const AttentionDims& n, AttentionLayout q_layout,
                                    AttentionLayout k_layout, AttentionLayout v_layout,
                                    AttentionLayout out_layout, AttentionMask mask, double scale,
                                    bool causal, AttentionParams<T>& p, bool& empty) {
  static_assert(is_float_type_v<T>, "attention: float, double, __half or __nv_bfloat16");
  static_assert(kHead == 32 || kHead == 64 || kHead == 128 || kHead == 256,
                "attention: kHead is 32, 64, 128 or 256");
  empty = false;
  if (n.batch < 0 || n.heads < 0 || n.kv_heads < 0 || n.sq < 0 || n.skv < 0 || n.d < 0 ||
      n.dv < 0 || n.d > kHead || n.dv > kHead || n.batch > 65535 || n.heads > 65535 ||
      !attn_fits_int(n.sq) || !attn_fits_int(n.skv) || mask.kind < 0 || mask.kind > 2)
    return cudaErrorInvalidValue;
  empty = n.batch == 0 || n.heads == 0 || n.sq == 0 || n.dv == 0;
  if (empty) return cudaSuccess;
  if (n.kv_heads < 1 || n.heads % n.kv_heads != 0) return cudaErrorInvalidValue;
  if (q == nullptr || k == nullptr || v == nullptr || out == nullptr ||
      (mask.kind != 0 && mask.data == nullptr))
    return cudaErrorInvalidValue;
  p = AttentionParams<T>{q,
                         k,
                         v,
                         out,
                         q_layout,
                         k_layout,
                         v_layout,
                         out_layout,
                         mask,
                         static_cast<int>(n.sq),
                         static_cast<int>(n.skv),
                         static_cast<int>(n.d),
                         static_cast<int>(n.dv),
                         static_cast<int>(n.heads / n.kv_heads),
                         static_cast<acc_t<T>>(scale * kAttentionLog2e),
                         causal,
                         false};
  return cudaSuccess;
}

}  // namespace detail

/// attention of q, k and v (layouts in elements, last dims contiguous) into out, for head dims
/// d, dv <= kHead (attention_head_tile gives the right one: kHead is a template parameter so that
/// a model instantiates only the tile it uses). scale multiplies q @ k^T; causal and mask as the
/// file comment says. Returns cudaErrorInvalidValue for sizes it cannot take (negative, d or dv
/// above kHead, heads not a multiple of kv_heads, more than 65535 heads or batches, sequences of
/// 2^31 or more); a shared-memory opt-in the GPU refuses (f64 with kHead 256 before sm_90)
/// returns that error. `decode` applies to the decode kernel only (attention_decode.cuh).
template <typename T, int kHead>
inline cudaError_t attention(const T* q, const T* k, const T* v, T* out, AttentionDims dims,
                             AttentionLayout q_layout, AttentionLayout k_layout,
                             AttentionLayout v_layout, AttentionLayout out_layout,
                             AttentionMask mask, double scale, bool causal, cudaStream_t stream,
                             const AttentionDecodeLaunch& decode = {}) {
  using namespace detail;
  const AttentionDims& n = dims;
  AttentionParams<T> p{};
  bool empty = false;
  const cudaError_t checked = attention_params<T, kHead>(
      q, k, v, out, n, q_layout, k_layout, v_layout, out_layout, mask, scale, causal, p, empty);
  if (checked != cudaSuccess || empty) return checked;
  if (n.sq <= kAttentionDecodeMaxRows && n.batch * n.sq <= 65535)
    return attention_decode<T, kHead>(p, n.batch, n.heads, stream, decode);
  if constexpr (sizeof(T) == 2) {
    int device = 0, major = 0;
    cudaError_t e = cudaGetDevice(&device);
    if (e == cudaSuccess)
      e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    if (e != cudaSuccess) return e;
    if (major >= 8) {
      // 16-byte chunks need every row start 16-byte aligned and d, dv multiples of 8.
      auto aligned = [](const T* base, const AttentionLayout& l) {
        return reinterpret_cast<uintptr_t>(base) % 16 == 0 && l.batch % 8 == 0 && l.head % 8 == 0 &&
               l.seq % 8 == 0;
      };
      p.vec = n.d % 8 == 0 && n.dv % 8 == 0 && aligned(q, q_layout) && aligned(k, k_layout) &&
              aligned(v, v_layout);
      using Tile = AttentionMmaTile<kHead>;
      const dim3 grid(static_cast<unsigned>((n.sq + Tile::kM - 1) / Tile::kM),
                      static_cast<unsigned>(n.heads), static_cast<unsigned>(n.batch));
      return attn_launch<T>(attention_mma_kernel<T, kHead>, grid, Tile::kThreads, Tile::kSmemBytes,
                            p, stream);
    }
  }
  using Tile = AttentionSimtTile<T, kHead>;
  const dim3 grid(static_cast<unsigned>((n.sq + Tile::kM - 1) / Tile::kM),
                  static_cast<unsigned>(n.heads), static_cast<unsigned>(n.batch));
  return attn_launch<T>(attention_simt_kernel<T, kHead>, grid, Tile::kThreads, Tile::kSmemBytes, p,
                        stream);
}

/// A decode step's attention with its update (AttentionDecodeUpdate, attention_decode.cuh): q
/// (one row per batch and head, before its rotary), the caches k_cache and v_cache (written at
/// update.position, then attended to), the rest as attention's. One launch of the decode kernel.
/// cudaErrorInvalidValue as attention's, and for sq != 1, a missing position or new row, rotary
/// dims that are odd or above d, or a rotary without its cosine and sine.
template <typename T, int kHead>
inline cudaError_t attention_step(const T* q, T* k_cache, T* v_cache, T* out, AttentionDims dims,
                                  AttentionLayout q_layout, AttentionLayout k_layout,
                                  AttentionLayout v_layout, AttentionLayout out_layout,
                                  AttentionMask mask, double scale,
                                  const AttentionDecodeUpdate<T>& update, cudaStream_t stream,
                                  const AttentionDecodeLaunch& decode) {
  using namespace detail;
  const AttentionDims& n = dims;
  AttentionParams<T> p{};
  bool empty = false;
  const cudaError_t checked =
      attention_params<T, kHead>(q, k_cache, v_cache, out, n, q_layout, k_layout, v_layout,
                                 out_layout, mask, scale, false, p, empty);
  if (checked != cudaSuccess) return checked;
  const auto rotary_ok = [&](int r) { return r >= 0 && r % 2 == 0 && r <= n.d; };
  if (n.sq != 1 || update.position == nullptr || update.k_new == nullptr ||
      update.v_new == nullptr || !rotary_ok(update.q_rotary) || !rotary_ok(update.k_rotary) ||
      ((update.q_rotary > 0 || update.k_rotary > 0) &&
       (update.cosine == nullptr || update.sine == nullptr)))
    return cudaErrorInvalidValue;
  if (empty) return cudaSuccess;
  return attention_decode<T, kHead>(p, n.batch, n.heads, stream, decode, update);
}

}  // namespace inferno::kernels
