#include "passes/cse.h"

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "passes/rewrite.h"

namespace inferno::passes {
namespace {

/// Constants merge when type and bytes are equal; the key holds both (bytes compared exactly).
void merge_constants(const ir::Graph& graph, ValueReplacements& replacements) {
  std::map<std::pair<std::string, std::string_view>, ir::ValueId> first;
  for (ir::ValueId c : graph.constants()) {
    const ir::Value& value = graph.value(c);
    if (value.constant == nullptr) continue;  // elided: no bytes to compare
    const std::string_view bytes(reinterpret_cast<const char*>(value.constant->data.data()),
                                 value.constant->data.size());
    auto [it, inserted] = first.emplace(std::make_pair(value.type.to_string(), bytes), c);
    if (!inserted) replacements.emplace(c, it->second);
  }
}

}  // namespace

Status eliminate_common_subexpressions(ir::Graph& graph, const PassOptions& /*options*/) {
  ValueReplacements replacements;
  merge_constants(graph, replacements);

  // Nodes are bucketed by (op, inputs); attributes are compared within a bucket.
  std::map<std::pair<ir::OpKind, std::vector<ir::ValueId>>, std::vector<size_t>> seen;
  std::vector<ir::Node>& nodes = graph.mutable_nodes();
  std::vector<ir::Node> kept;
  kept.reserve(nodes.size());
  for (ir::Node& node : nodes) {
    apply_replacements(replacements, node);
    std::vector<size_t>& bucket = seen[{node.op, node.inputs}];
    const ir::Node* twin = nullptr;
    for (size_t index : bucket) {
      if (kept[index].attrs == node.attrs && kept[index].outputs.size() == node.outputs.size())
        twin = &kept[index];
    }
    if (twin != nullptr) {
      for (size_t i = 0; i < node.outputs.size(); ++i)
        replacements.emplace(node.outputs[i], twin->outputs[i]);
      continue;
    }
    bucket.push_back(kept.size());
    kept.push_back(std::move(node));
  }
  nodes = std::move(kept);
  apply_replacements_to_outputs(replacements, graph);
  return remove_unused_constants(graph);
}

}  // namespace inferno::passes
