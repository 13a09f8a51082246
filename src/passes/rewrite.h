// Small graph-rewriting utilities shared by passes.
#pragma once

#include <unordered_map>

#include "ir/graph.h"
#include "support/status.h"

namespace inferno::passes {

/// old value -> the value that replaces it.
using ValueReplacements = std::unordered_map<ir::ValueId, ir::ValueId>;

/// Rewrites the node's inputs through `replacements`.
void apply_replacements(const ValueReplacements& replacements, ir::Node& node);
/// Rewrites the graph outputs through `replacements`.
void apply_replacements_to_outputs(const ValueReplacements& replacements, ir::Graph& graph);
/// Drops constants that no node uses and that are not graph outputs.
Status remove_unused_constants(ir::Graph& graph);

}  // namespace inferno::passes
