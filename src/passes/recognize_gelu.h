// recognize-gelu: GELU written out in elementwise ops becomes one gelu or gelu_tanh node, which
// fuse-epilogues then folds into the gemm before it (one cuBLASLt call and its in-place epilogue
// kernel instead of a chain of eight elementwise ops over the gemm's output).
//
// Requires: a verified graph; after fold-constants (the constants below are single constants).
// Guarantees: no mul whose result has x's floating type is, up to how its product is grouped,
//   0.5 * x * (1 + tanh(c1 * (x + c2 * x^3)))     (GPT-2's gelu_new; x^3 as pow(x, 3) or
//                                                  x * x * x)   -> gelu_tanh(x)
//   0.5 * x * (1 + erf(x / c3)), or * (1 / c3)    (BERT's original gelu) -> gelu(x)
// with c1 = sqrt(2 / pi), c2 = 0.044715, c3 = sqrt(2), 0.5 and 1 each a constant holding one
// value that equals the number up to two roundings of its dtype, and every mul and add in between
// of x's type (nothing broadcasts or promotes). The sums may be written either way round. The
// new node defines the outer mul's value (its name and uses stay); the ops it replaces are left
// for dce.
// Numerics: gelu_tanh and gelu are computed in one step (double on the reference, float on the
// GPU), where the written-out form rounded each of its eight ops to x's dtype: within fp32
// tolerances for f32, and more accurate in f16.
#pragma once

#include "passes/pass.h"

namespace inferno::passes {

Status recognize_gelu(ir::Graph& graph, const PassOptions& options);

}  // namespace inferno::passes
