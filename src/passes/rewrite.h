// Small graph-rewriting utilities shared by passes.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

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

/// How many node input slots read each value (indexed by ValueId; graph outputs not counted).
std::vector<int32_t> count_node_uses(const ir::Graph& graph);
/// Whether each value (indexed by ValueId) is a graph output.
std::vector<bool> graph_output_mask(const ir::Graph& graph);
/// The value of a constant whose elements are all bitwise equal (a scalar, or a splat such as
/// ones[1,8]), as a double; nullopt for non-constants, constants without data or elements, and
/// constants holding different values (+0 and -0 differ).
std::optional<double> splat_constant(const ir::Graph& graph, ir::ValueId v);

}  // namespace inferno::passes
