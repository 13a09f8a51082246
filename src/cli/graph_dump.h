// --dump-graph DIR: the graph before and after optimization as Graphviz DOT (before.dot,
// after.dot), rendered to PNG beside them when Graphviz's `dot` is on $PATH.
#pragma once

#include <string>

#include "ir/graph.h"
#include "support/status.h"

namespace inferno::cli {

/// Writes `<dir>/<stem>.dot` (creating `dir`), then `<dir>/<stem>.png` when `dot` is found. A
/// failed render is logged as a warning, not an error: the DOT file is what was asked for.
Status dump_graph(const std::string& dir, const std::string& stem, const ir::Graph& graph);

}  // namespace inferno::cli
