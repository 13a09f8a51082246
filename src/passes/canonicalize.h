// Canonicalization: one spelling for each computation, so that the plain and core-ATen
// (decomposed) exports of a model become the same IR and later passes match one pattern.
//
// Requires: a verified graph. Must run before fold-constants, which would otherwise fold a
// weight's permute into a transposed copy of the weight instead of a gemm's trans_b.
// Guarantees, for every node:
//  - no linear with x of rank >= 2, no addmm, no matmul of two operands of rank >= 2: each is a
//    gemm {trans_b, alpha, beta, activation="none"}; a gemm without c has beta=1, and addmm with
//    beta=0 drops its c (PyTorch ignores it).
//  - no gemm whose b is a permute swapping only its input's last two dims (trans_b absorbs it).
//  - no gemm with a 2-D b whose a is a reshape merging the leading dims of x[..., K] into one
//    and whose addends do not vary along that dim: it multiplies x and reshapes its result
//    ([..., N] to [P, N]), the form of matmul(x, w) that torch.export decomposes as view/mm/view.
//  - no transpose (it is a permute), no permute of a permute, no identity permute, no reshape of
//    a reshape, no reshape or expand to its input's own shape.
//  - no mul(x, sigmoid(x)) in either order: it is silu(x).
//  - no gemm of K = 1 with alpha 1 and no addend or activation: it is mul(a, b) of the broadcast
//    operands (b viewed as [..., 1, N] when trans_b), one product per output.
// A rewritten node keeps its output value (name, uses) and location when its type stays; values
// a rewrite stops reading (a weight's permute) are left for dce. Results are bit-identical on the
// reference interpreter except for silu, which rounds once where mul(x, sigmoid(x)) rounded twice,
// and a K = 1 gemm's zero products, which keep their sign (the gemm's sum from +0 made them +0).
#pragma once

#include "passes/node_rebuilder.h"
#include "passes/pass.h"

namespace inferno::passes {

Status canonicalize(ir::Graph& graph, const PassOptions& options);

/// canonicalize's rules as a NodeRule (see node_rebuilder.h), for passes that keep the graph
/// canonical while they rewrite it.
Expected<Rewrite> canonicalize_node(NodeRebuilder& rebuilder, ir::Node& node);

}  // namespace inferno::passes
