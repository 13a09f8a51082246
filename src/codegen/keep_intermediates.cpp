#include "codegen/keep_intermediates.h"

#include "codegen/views.h"
#include "support/check.h"

namespace inferno::codegen {

std::vector<int32_t> keep_intermediates(ir::Graph& graph) {
  INFERNO_CHECK(graph.num_states() == 0, "keep_intermediates: a graph with state");
  // Decided on the graph as compiled normally: a value that is a view there is no kernel's output.
  const ViewPlan views = plan_views(graph);
  std::vector<int32_t> producer(static_cast<size_t>(graph.num_values()), -1);
  for (int32_t n = 0; n < static_cast<int32_t>(graph.nodes().size()); ++n) {
    for (const ir::ValueId v : graph.nodes()[static_cast<size_t>(n)].outputs)
      producer[static_cast<size_t>(v)] = n;
  }
  std::vector<ir::ValueId> outputs = graph.outputs();
  std::vector<int32_t> node_of_output;
  std::vector<bool> listed(static_cast<size_t>(graph.num_values()), false);
  for (const ir::ValueId v : outputs) {
    node_of_output.push_back(producer[static_cast<size_t>(v)]);
    listed[static_cast<size_t>(v)] = true;
  }
  for (int32_t n = 0; n < static_cast<int32_t>(graph.nodes().size()); ++n) {
    if (views.aliases_input(n)) continue;
    for (const ir::ValueId v : graph.nodes()[static_cast<size_t>(n)].outputs) {
      // A value without elements: nothing to compare, and no buffer to hand the runtime.
      if (listed[static_cast<size_t>(v)] || graph.type(v).numel() == 0) continue;
      listed[static_cast<size_t>(v)] = true;
      outputs.push_back(v);
      node_of_output.push_back(n);
    }
  }
  graph.set_outputs(std::move(outputs));
  return node_of_output;
}

}  // namespace inferno::codegen
