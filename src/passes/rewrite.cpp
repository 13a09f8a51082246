#include "passes/rewrite.h"

#include <cstring>
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

std::vector<int32_t> count_node_uses(const ir::Graph& graph) {
  std::vector<int32_t> uses(static_cast<size_t>(graph.num_values()), 0);
  for (const ir::Node& node : graph.nodes()) {
    for (ir::ValueId in : node.inputs) ++uses[static_cast<size_t>(in)];
  }
  return uses;
}

std::vector<bool> graph_output_mask(const ir::Graph& graph) {
  std::vector<bool> is_output(static_cast<size_t>(graph.num_values()), false);
  for (ir::ValueId out : graph.outputs()) is_output[static_cast<size_t>(out)] = true;
  return is_output;
}

std::optional<double> splat_constant(const ir::Graph& graph, ir::ValueId v) {
  const ir::Value& value = graph.value(v);
  if (value.kind != ir::ValueKind::kConstant || value.constant == nullptr ||
      value.constant->numel() == 0) {
    return std::nullopt;
  }
  const std::vector<std::byte>& data = value.constant->data;
  const size_t size = static_cast<size_t>(ir::dtype_size(value.type.dtype));
  for (size_t offset = size; offset < data.size(); offset += size) {
    if (std::memcmp(data.data(), data.data() + offset, size) != 0) return std::nullopt;
  }
  return value.constant->get(0);
}

}  // namespace inferno::passes
