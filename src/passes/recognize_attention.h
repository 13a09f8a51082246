// recognize-attention: attention written out as matrix products and a softmax becomes one
// attention node, which codegen runs as a flash kernel that never stores the [Sq, Skv] scores.
//
// Requires: a verified, canonical graph after fold-constants and simplify (matmul and bmm are
// gemm, a transposed k is the gemm's trans_b, a sliced constant mask buffer is one constant).
// Guarantees: no gemm O = P @ V (trans_b false, alpha 1, no addends, no activation) remains whose
// P is read only by it and is, with every value of one floating dtype:
//   P = softmax(Z) {dim = last}, or cast(softmax(cast(Z, f32)), dtype of Z) (the kernel
//       accumulates in f32 anyway), either possibly inside torch 2's SDPA math form
//       where(not(any(Z != -inf, -1)), 0, softmax(Z)), which zeroes rows as the op does;
//   Z = the scores S, with masks applied in any order (at most one of each kind):
//       add(S, M) / add(M, S)         M of S's dtype, broadcasting to S without changing its type
//                                     -> an additive mask
//       where(c, S, f)                c bool, f a constant fill of one value, -inf or masking
//                                     (<= -1e9, or f16's lowest) -> bool mask c (true keeps)
//       where(c, f, S)                (masked_fill(c, f)) -> bool mask not(c)
//     a bool mask that is a constant exactly [.., Sq, Skv] lower-triangular (j <= i, leading
//     dims 1; GPT-2's sliced tril buffer, nanoGPT's `bias == 0` folded) becomes causal=true, and
//     so does an additive constant that is 0 on and below the diagonal and -inf (or masking)
//     above (nn.Transformer's square subsequent mask); a bool and an additive mask together are
//     accepted only when the bool one is causal;
//   S = scale factors (mul or div by a constant of one finite nonzero value, keeping S's type;
//     outside an additive mask only when inside no additive mask) around
//     gemm(Q, K[, M]) {trans_b, any alpha; M (baddbmm's addend) an additive mask when beta is 1
//     and no scale factor is outside} or gemm(Q, permute(X, dims)[, M]) where K is X permuted by
//     dims with its last two swapped (a transpose: K = X; otherwise, as GPT-2's one-step permute of
//     [B, S, H, D] to [B, H, D, S], the pass builds that permute), Q and K each possibly scaled
//     the same way first (nn.MultiheadAttention scales q, SDPA's math form both);
//   the scale attribute is the product of every factor, alpha included.
// Ranks: 4-D [B, H, S, D] operands directly; 3-D products over [B * H, S, D] whose operands are
// reshapes of 4-D values (torch.export's core-ATen expand/view/bmm/view form) are read through
// the reshapes (or, where canonicalize merged the model's views away, viewed as [B, H, S, D] by a
// new reshape); genuinely 3-D operands (nn.MultiheadAttention's bmm over [B * H, S, D]) become
// [1, B * H, S, D] by a reshape and the result is reshaped back.
// GQA: K and V (4-D) both reshape(expand(reshape(k [B, Hkv, S, D] -> [B, Hkv, 1, S, D]) -> [B,
// Hkv, n, S, D]) -> [B, Hkv * n, S, D]) with one n (Llama's repeat_kv and repeat_interleave on dim
// 1; in the core-ATen form V's two reshapes are one, to [B * Hkv * n, S, D]) read k and v with
// kv_groups = n. A k or v repeated alone stays repeated (kv_groups 1).
// Left alone: what codegen's attention cannot run (head dims above 256, more than 65535 batches
// or query heads), a constant mask that leaves some query row without a key (the written-out form
// gives NaN or a mean there, the op zeros), a softmax over another dim, a fill that does not mask
// (e.g. 0 or -100), a mask polarity the shapes cannot tell, two non-causal masks, an additive mask
// scaled after it was added, operands whose batch dims broadcast, a P read by anything else
// (need_weights). Rewritten nodes keep O's value; the scores and probabilities are left for dce.
// The pass finishes with canonicalize's rules, so the reshapes it adds merge with the model's.
// Numerics: the attention op computes the scores, softmax and product in one step (double on the
// reference, f32 accumulation on the GPU) where the written-out form rounded each op. A query
// row that sees no key at all gives zeros, where the written-out form gives NaN (-inf fills) or
// the mean of v over every key (finite fills): the one behaviour that differs, and only for masks
// computed at run time (a padding mask that hides every key of a sequence).
#pragma once

#include "passes/pass.h"

namespace inferno::passes {

Status recognize_attention(ir::Graph& graph, const PassOptions& options);

}  // namespace inferno::passes
