// kernels/attention_params.cuh: what the attention kernels share (attention.cuh and
// attention_decode.cuh): the operands' layouts and sizes, the mask, the kernel parameters, and the
// masked score of one query and key. attention.cuh's file comment says what they compute.
#pragma once

#include "common.cuh"

namespace inferno::kernels {

/// Element strides of a [B, H, S, E] operand whose last dim is contiguous.
struct AttentionLayout {
  int64_t batch, head, seq;
};

/// q [batch, heads, sq, d], k [batch, kv_heads, skv, d], v [batch, kv_heads, skv, dv].
struct AttentionDims {
  int64_t batch, heads, kv_heads, sq, skv, d, dv;
};

/// kind 0: no mask; 1: bool (a byte per element, nonzero keeps the key); 2: additive, of the
/// operands' type. Element (b, h, i, j) is at data + b * strides[0] + h * strides[1] +
/// i * strides[2] + j * strides[3] (0 for broadcast dims).
struct AttentionMask {
  const void* data;
  int kind;
  int64_t strides[4];
};

/// The padded head dim the kernels are instantiated for: the smallest of 32, 64, 128 and 256
/// holding both d and dv; 0 when they are larger.
constexpr int attention_head_tile(int64_t d, int64_t dv) {
  const int64_t h = d > dv ? d : dv;
  return h <= 32 ? 32 : h <= 64 ? 64 : h <= 128 ? 128 : h <= 256 ? 256 : 0;
}

namespace detail {

constexpr double kAttentionLog2e = 1.4426950408889634074;

template <typename T>
struct AttentionParams {
  const T* q;
  const T* k;
  const T* v;
  T* out;
  AttentionLayout ql, kl, vl, ol;
  AttentionMask mask;
  int sq, skv, d, dv, kv_groups;
  acc_t<T> scale_log2;  ///< scale * log2(e)
  bool causal;
  bool vec;  ///< 16-byte chunks tile every row of q, k and v (cp.async path)
};

__device__ __forceinline__ float attn_exp2(float x) { return exp2f(x); }
__device__ __forceinline__ double attn_exp2(double x) { return exp2(x); }

/// This block's query tile. Causal blocks run the last (longest) tiles first, so that the short
/// ones fill in behind them instead of leaving a long tail.
__device__ __forceinline__ int attn_query_tile(bool causal) {
  const int x = static_cast<int>(blockIdx.x);
  return causal ? static_cast<int>(gridDim.x) - 1 - x : x;
}

/// The score of query i and key j in the log2 domain (s: the scaled dot product), or -inf when
/// the key is out of range, after the diagonal, or masked out. Rows i >= sq (padding) read no mask.
template <typename T, typename A>
__device__ __forceinline__ A attn_masked(A s, int b, int h, int i, int j,
                                         const AttentionParams<T>& p) {
  if (j >= p.skv || (p.causal && j > i)) return -acc_infinity<A>();
  if (p.mask.kind != 0 && i < p.sq) {
    const int64_t at = b * p.mask.strides[0] + h * p.mask.strides[1] +
                       static_cast<int64_t>(i) * p.mask.strides[2] +
                       static_cast<int64_t>(j) * p.mask.strides[3];
    if (p.mask.kind == 1) {
      if (static_cast<const unsigned char*>(p.mask.data)[at] == 0) return -acc_infinity<A>();
    } else {
      s += to_acc(static_cast<const T*>(p.mask.data)[at]) * static_cast<A>(kAttentionLog2e);
    }
  }
  return s;
}

}  // namespace detail

}  // namespace inferno::kernels
