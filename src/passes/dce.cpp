#include "passes/dce.h"

#include <algorithm>

#include "passes/rewrite.h"

namespace inferno::passes {

Status eliminate_dead_code(ir::Graph& graph, const PassOptions& /*options*/) {
  std::vector<bool> live(static_cast<size_t>(graph.num_values()), false);
  for (ir::ValueId v : graph.outputs()) live[v] = true;

  // Walk backwards: a node is live if any of its outputs is; its inputs then become live.
  std::vector<ir::Node>& nodes = graph.mutable_nodes();
  std::vector<bool> keep(nodes.size(), false);
  for (size_t i = nodes.size(); i-- > 0;) {
    const ir::Node& node = nodes[i];
    keep[i] = std::any_of(node.outputs.begin(), node.outputs.end(),
                          [&](ir::ValueId v) { return live[v]; });
    if (keep[i]) {
      for (ir::ValueId in : node.inputs) live[in] = true;
    }
  }
  std::vector<ir::Node> kept;
  kept.reserve(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (keep[i]) kept.push_back(std::move(nodes[i]));
  }
  nodes = std::move(kept);
  return remove_unused_constants(graph);
}

}  // namespace inferno::passes
