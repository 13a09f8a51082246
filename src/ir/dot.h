// Graphviz DOT export of an IR graph, for the pictures users look at (--emit dot).
#pragma once

#include <string>

#include "ir/graph.h"

namespace inferno::ir {

/// A `digraph` with one box per node (op name, output type), one ellipse per graph input and
/// constant, and edges along data flow. Every model-provided string is escaped.
std::string graph_to_dot(const Graph& graph);

}  // namespace inferno::ir
