#include "codegen/weights.h"

#include <cstring>

#include "codegen/memory_plan.h"
#include "inferno/model_abi.h"

namespace inferno::codegen {

Expected<WeightsLayout> layout_weights(const ir::Graph& graph) {
  const auto num_values = static_cast<size_t>(graph.num_values());
  WeightsLayout layout;
  layout.offset.assign(num_values, -1);
  layout.inlined.assign(num_values, false);

  // How each constant is read: by a generated elementwise or fused kernel only (a literal will do
  // for a scalar), or from memory (any other op, or a graph output's copy).
  std::vector<bool> read_elementwise(num_values, false), read_from_memory(num_values, false);
  for (const ir::Node& node : graph.nodes()) {
    const bool elementwise =
        ir::op_has_trait(node.op, ir::kElementwise) || node.op == ir::OpKind::kFusedElementwise;
    for (const ir::ValueId in : node.inputs)
      (elementwise ? read_elementwise : read_from_memory)[in] = true;
  }
  for (const ir::ValueId out : graph.outputs()) read_from_memory[out] = true;

  int64_t end = 0;
  for (const ir::ValueId c : graph.constants()) {
    const ir::Value& value = graph.value(c);
    const bool scalar = value.type.rank() == 0;
    if (scalar && read_elementwise[c] && !read_from_memory[c]) {
      layout.inlined[c] = true;
    } else if (read_elementwise[c] || read_from_memory[c]) {
      layout.offset[c] = align_up(end);
      end = layout.offset[c] + value.type.size_bytes();
    } else {
      continue;  // unused
    }
    if (value.constant == nullptr ||
        static_cast<int64_t>(value.constant->data.size()) != value.type.size_bytes()) {
      return invalid_input("constant %" + value.name +
                           " has no data (elided IR text cannot be compiled)");
    }
  }

  layout.blob.assign(static_cast<size_t>(end), std::byte{0});
  for (const ir::ValueId c : graph.constants()) {
    if (layout.offset[c] < 0) continue;
    const std::vector<std::byte>& data = graph.value(c).constant->data;
    if (!data.empty()) std::memcpy(layout.blob.data() + layout.offset[c], data.data(), data.size());
  }
  layout.checksum = inferno_fnv1a64(layout.blob.data(), layout.blob.size());
  return layout;
}

}  // namespace inferno::codegen
