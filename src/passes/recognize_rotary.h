// recognize-rotary: the rotary position embedding written out as Hugging Face's
// apply_rotary_pos_emb (Llama, Qwen2, Phi-3, Mistral, ...) becomes one rotary node (ir/ops.def):
// one kernel per tensor instead of a neg, a cat and a fused multiply-add (three launches for q,
// three for k), reading x through its slices and permutes in place.
//
// Requires: a verified graph; after fold-constants and simplify (constants are single constants,
// identity slices and same-dtype casts are gone). Guarantees, in one forward walk:
//   1. add(mul(X, cos), mul(rotate_half(X), sin)), either operand order of each, where
//      rotate_half(X) = cat(neg(X2), X1) {dim = last}, neg(X2) also spelled mul(X2, -1) either
//      order, X1 = X[..., :h] and X2 = X[..., h:2h] as slice nodes of X (every other dim whole,
//      steps 1) with 2h = X's last dim; every product and the sum of X's type, cos and sin
//      accepted by rotary's shape rule                      -> rotary(X, cos, sin) {rotary_dim=2h}
//   2. cat(rotary(Xr, cos, sin) {rotary_dim=r}, P) {dim = last}, the rotary read only there, with
//      Xr = X[..., :r] (a slice of X, or X itself) and P = X[..., r:] (slices of X, every other
//      dim whole, steps 1; P may be empty) -> rotary(X, cos, sin) {rotary_dim=r} (Phi's partial
//      rotary, q_rot / q_pass)
// Anything else is left alone: another split of the last dim, GPT-J's interleaved pairs
// (x[..., ::2]), a rotate_half of another tensor than the one multiplied by cos, cos or sin
// that widen the product's type or shape. Each rewritten node keeps its value (name and uses);
// what it no longer reads is left for dce.
// Numerics: rotary rounds each element once from f32 (double on the reference) where the
// written-out form rounds x * cos, rotate_half(x) * sin and their sum to x's dtype: identical
// up to that rounding (for an f16 model, one f16 rounding instead of three).
#pragma once

#include "passes/pass.h"

namespace inferno::passes {

Status recognize_rotary(ir::Graph& graph, const PassOptions& options);

}  // namespace inferno::passes
