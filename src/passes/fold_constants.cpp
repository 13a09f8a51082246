#include "passes/fold_constants.h"

#include <algorithm>
#include <memory>

#include "passes/rewrite.h"
#include "reference/interpreter.h"

namespace inferno::passes {
namespace {

/// Results above this size are folded only if they are no larger than the node's inputs.
constexpr int64_t kMaxGrowingFoldBytes = int64_t{1} << 20;

bool all_inputs_constant(const ir::Graph& graph, const ir::Node& node) {
  return std::all_of(node.inputs.begin(), node.inputs.end(), [&](ir::ValueId v) {
    const ir::Value& value = graph.value(v);
    return value.kind == ir::ValueKind::kConstant && value.constant != nullptr;
  });
}

bool worth_folding(const ir::Graph& graph, const ir::Node& node) {
  int64_t in_bytes = 0, out_bytes = 0;
  for (ir::ValueId v : node.inputs) in_bytes += graph.type(v).size_bytes();
  for (ir::ValueId v : node.outputs) out_bytes += graph.type(v).size_bytes();
  return out_bytes <= kMaxGrowingFoldBytes || out_bytes <= in_bytes;
}

}  // namespace

Status fold_constants(ir::Graph& graph, const PassOptions& /*options*/) {
  std::vector<ir::Node>& nodes = graph.mutable_nodes();
  std::vector<ir::Node> kept;
  kept.reserve(nodes.size());
  ValueReplacements replacements;
  for (ir::Node& node : nodes) {
    apply_replacements(replacements, node);
    if (!all_inputs_constant(graph, node) || !worth_folding(graph, node)) {
      kept.push_back(std::move(node));
      continue;
    }
    std::vector<const ir::Tensor*> inputs;
    for (ir::ValueId v : node.inputs) inputs.push_back(graph.value(v).constant.get());
    INFERNO_ASSIGN_OR_RETURN(std::vector<ir::Tensor> results,
                             reference::evaluate_node(graph, node, inputs));
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      const ir::ValueId folded =
          graph.add_constant(graph.name(node.outputs[i]), std::move(results[i]));
      replacements.emplace(node.outputs[i], folded);
    }
  }
  nodes = std::move(kept);
  apply_replacements_to_outputs(replacements, graph);
  // Constants that only fed folded nodes are now unused.
  return remove_unused_constants(graph);
}

}  // namespace inferno::passes
