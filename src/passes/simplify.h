// Algebraic simplification: drops operations that return their input unchanged.
//
// Requires: a verified graph, canonical (run canonicalize first); constants folded beforehand
// give it more to find (`x * (a + 1)` with a = 0).
// Guarantees that none of these remain, where c is a constant whose elements are all equal and the
// node's result has x's type (so broadcasting and dtype promotion never change):
//   x * c, c * x, x / c       with c = 1
//   x + c, c + x, x - c       where exact: see simplify.cpp for signed zeros
//   neg(neg(x)), cast(x) to x's own dtype            -> x
//   relu(relu(x)), abs(abs(x)), relu(gemm{relu})     -> the inner value
// The removed node's uses, graph outputs included, read the value that replaces it. Nodes whose
// inputs change are canonicalized again, so the graph stays canonical. Results are bit-identical
// on the reference interpreter (NaN payloads aside).
#pragma once

#include "passes/pass.h"

namespace inferno::passes {

Status simplify(ir::Graph& graph, const PassOptions& options);

}  // namespace inferno::passes
