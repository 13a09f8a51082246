// BatchNorm folding: a conv2d or gemm followed by an inference BatchNorm, which the frontends
// lower to mul(y, scale) then add(_, shift) with per-channel constants (fold-constants computes
// them), becomes one conv2d or gemm with scaled weights and a shifted bias:
//   w' = w * scale (per output channel), b' = b * scale + shift.
// More generally, the whole chain of muls and adds by per-channel constants after P (a bias add,
// a scale after the BatchNorm) folds, each link being its predecessor's only use.
//
// Requires: a verified graph after fold-constants (the scale and shift are constants).
// Guarantees: no conv2d (any groups, any layout) or gemm P with
//   - activation "none", no residual or gate (conv2d), no d and beta 1 or no c (gemm),
//   - constant weights (conv2d's w, gemm's 2-D b) and a constant bias (if any; a gemm's c
//     broadcasting along the channels only),
//   - an output with one use, by mul or add (either operand order), and not a graph output,
//   - the other operand a constant of P's dtype, finite, broadcasting along the output channels
//     only ([O, 1, 1] or [1, O, 1, 1] for nchw, [O] for nhwc and gemm, or one element), the
//     result of P's type (no promotion, no broadcasting)
// remains: the chain is folded into P, which then defines the last folded node's output. Where
// any condition fails the mul and add stay (they fuse as elementwise ops later).
// Numerics: the folded weights and bias are computed in double and rounded once to the dtype;
// the result rounds once where the graph rounded after the conv and after each mul and add (fp32
// tolerances on the reference interpreter).
#pragma once

#include "passes/pass.h"

namespace inferno::passes {

Status fold_batch_norm(ir::Graph& graph, const PassOptions& options);

}  // namespace inferno::passes
