// Small IR graphs that exercise one op each, for the codegen tests: every op of ir/ops.def has a
// sample, applied to an input of any dtype (the shape rules may refuse a dtype).
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "support/status.h"

namespace inferno::test {

/// Appends op `op` applied to `x` (an f?/i?/bool [2,3,4] value) to `graph`, with whatever
/// constants it needs in x's dtype, and returns its output. `variant` picks between forms of one
/// op (gelu's approximation, the cast's target dtype). Errors come from the shape rules.
Expected<ir::ValueId> add_op_sample(ir::Graph& graph, ir::OpKind op, ir::ValueId x,
                                    int variant = 0);

/// How many variants add_op_sample knows for `op` (at least 1).
int op_sample_variants(ir::OpKind op);

/// Every OpKind, in table order.
std::vector<ir::OpKind> all_op_kinds();

/// One graph holding every sample codegen lowers, on every dtype: input %x f32[2,3,4] is cast to
/// each dtype, each sample applied, and each sample's result cast to f64 is a graph output.
/// `labels` (if given) receives "op/dtype/variant" per output.
ir::Graph kitchen_sink_graph(std::vector<std::string>* labels = nullptr);

}  // namespace inferno::test
