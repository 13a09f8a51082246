// Common subexpression elimination.
//
// Requires: a verified graph.
// Guarantees: no two constants hold the same type and bytes, and no two nodes apply the same op
// with the same attributes to the same inputs; the later duplicate's uses (graph outputs included)
// now use the first one, which keeps its source location. Graph inputs are never merged.
#pragma once

#include "passes/pass.h"

namespace inferno::passes {

Status eliminate_common_subexpressions(ir::Graph& graph, const PassOptions& options);

}  // namespace inferno::passes
