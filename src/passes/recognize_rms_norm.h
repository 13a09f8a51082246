// recognize-rms-norm: RMSNorm written out in elementwise ops and a mean (Llama's LlamaRMSNorm,
// T5's LayerNorm) becomes one rms_norm node over the last dim: one kernel that reads the row
// once, instead of five or six elementwise kernels and a reduction.
//
// Requires: a verified graph; after fold-constants (eps and the exponent are single constants).
// Guarantees, in one forward walk (each rule sees the result of the ones before it):
//   1. n = mul(X, r) or mul(r, X) with r = rsqrt(v), reciprocal(sqrt(v)) or div(1, sqrt(v)), or
//      n = div(X, sqrt(v)), where v = add(m, eps) (either order), m = mean(s) {dims=[last],
//      keepdim=true} and s = pow(X, 2) or mul(X, X), of one floating type, eps a constant of one
//      value, finite and >= 0                          -> n = rms_norm(X) {normalized_dims=1, eps}
//   2. cast(y, t) with y = rms_norm(cast(x, u)) without weight, read only there, x of dtype t and
//      u a floating dtype at least as wide (f16/bf16 -> f32, any -> f64)   -> rms_norm(x)
//      (Llama's `hidden_states.to(torch.float32)` ... `.to(input_dtype)`: the rms_norm kernel
//      accumulates in f32 for f16 and bf16, as the written-out f32 arithmetic did)
//   3. mul(y, w) or mul(w, y) with y = rms_norm(X) without weight, read only there, and w of X's
//      dtype broadcasting along the last dim only ([D], or [1, ..., 1, D]) without changing the
//      result's type                              -> rms_norm(X, w) (w reshaped to [D] if needed)
// Each rewritten node keeps its value (name and uses); what it no longer reads is left for dce.
// Numerics: rms_norm computes each element in one step (double on the reference, f32 or double
// on the GPU) where the written-out form rounded each op: within fp32 tolerances for f32. With
// rule 2, f16/bf16 results are rounded once from f32 where the model rounded to f32 and then to
// f16 (a tie can come out one ulp apart); an f16 model that squares in f16 can overflow x^2 (|x|
// above 256) where rms_norm does not.
#pragma once

#include "passes/pass.h"

namespace inferno::passes {

Status recognize_rms_norm(ir::Graph& graph, const PassOptions& options);

}  // namespace inferno::passes
