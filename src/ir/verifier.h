// The IR verifier: structural and type invariants every graph must satisfy between passes.
#pragma once

#include "ir/graph.h"
#include "support/status.h"

namespace inferno::ir {

/// Checks: every node input is defined before use (graph input, constant, or an earlier node's
/// output); every node output is defined exactly once; arity and attributes match the op table;
/// the recorded output types equal what the shape rules compute; graph outputs are defined;
/// value names are unique. Returns an invalid-input Status naming the first offending node.
Status verify(const Graph& graph);

}  // namespace inferno::ir
