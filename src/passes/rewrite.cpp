#include "passes/rewrite.h"

#include <vector>

namespace inferno::passes {

void apply_replacements(const ValueReplacements& replacements, ir::Node& node) {
  for (ir::ValueId& in : node.inputs) {
    auto it = replacements.find(in);
    if (it != replacements.end()) in = it->second;
  }
}

void apply_replacements_to_outputs(const ValueReplacements& replacements, ir::Graph& graph) {
  std::vector<ir::ValueId> outputs = graph.outputs();
  for (ir::ValueId& out : outputs) {
    auto it = replacements.find(out);
    if (it != replacements.end()) out = it->second;
  }
  graph.set_outputs(std::move(outputs));
}

Status remove_unused_constants(ir::Graph& graph) {
  std::vector<bool> used(static_cast<size_t>(graph.num_values()), false);
  for (const ir::Node& node : graph.nodes()) {
    for (ir::ValueId in : node.inputs) used[in] = true;
  }
  for (ir::ValueId out : graph.outputs()) used[out] = true;
  graph.remove_constants_if([&](ir::ValueId v) { return !used[v]; });
  return Status::ok();
}

}  // namespace inferno::passes
