// Dead code elimination.
//
// Requires: a verified graph.
// Guarantees: every remaining node has at least one output that a graph output depends on, and
// every remaining constant is used by a node or is a graph output. Graph inputs are kept (they are
// the model's interface even when unused).
#pragma once

#include "passes/pass.h"

namespace inferno::passes {

Status eliminate_dead_code(ir::Graph& graph, const PassOptions& options);

}  // namespace inferno::passes
