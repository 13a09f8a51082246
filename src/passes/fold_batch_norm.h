// BatchNorm folding: a conv2d or gemm followed by an inference BatchNorm, which the frontends
// lower to mul(y, scale) then add(_, shift) with per-channel constants (fold-constants computes
// them), becomes one conv2d or gemm with scaled weights and a shifted bias:
//   w' = w * scale (per output channel), b' = b * scale + shift.
//
// Requires: a verified graph after fold-constants (the scale and shift are constants).
// Guarantees: no conv2d (any groups, any layout) or gemm P with
//   - activation "none", no residual or gate (conv2d), no d and beta 1 or no c (gemm),
//   - constant weights (conv2d's w, gemm's 2-D b) and constant bias (if any),
//   - an output with one use, by mul(y, s) or mul(s, y), and not a graph output,
//   - s a constant of P's dtype, finite, broadcasting along the output channels only ([O, 1, 1]
//     or [1, O, 1, 1] for nchw, [O] for nhwc and gemm, or one element), the mul's result of P's
//     type (no promotion, no broadcasting)
// remains: the mul (and an add(_, t) of the same kind that is its only use) is folded into P,
// which then defines the last folded node's output. Where any condition fails the mul and add
// stay and fuse as elementwise ops.
// Numerics: the folded weights and bias are computed in double and rounded once to the dtype;
// the result rounds once where the graph rounded after the conv, the mul and the add (fp32
// tolerances on the reference interpreter).
#pragma once

#include "passes/pass.h"

namespace inferno::passes {

Status fold_batch_norm(ir::Graph& graph, const PassOptions& options);

}  // namespace inferno::passes
