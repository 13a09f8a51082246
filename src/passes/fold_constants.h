// Constant folding through the reference interpreter.
//
// Requires: a verified graph whose constants carry data (elided constants are left alone).
// Guarantees: no node whose inputs are all constants remains, except where folding would
// materialize a large tensor from small inputs (an expand or broadcast of a weight: kept as a
// node, since storing its result would only grow the model). Folded values become constants
// named after the node; the nodes are removed. Graph outputs that fold keep their position.
#pragma once

#include "passes/pass.h"

namespace inferno::passes {

Status fold_constants(ir::Graph& graph, const PassOptions& options);

}  // namespace inferno::passes
