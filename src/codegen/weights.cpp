#include "codegen/weights.h"

#include <cstring>
#include <map>
#include <utility>

#include "codegen/memory_plan.h"
#include "inferno/model_abi.h"

namespace inferno::codegen {
namespace {

// Bytes already in the blob, by (size, checksum): a constant another variant stored is reused.
class BlobWriter {
 public:
  int64_t store(const std::vector<std::byte>& data) {
    const auto key = std::make_pair(static_cast<int64_t>(data.size()),
                                    inferno_weights_checksum(data.data(), data.size()));
    auto [first, last] = stored_.equal_range(key);
    for (auto it = first; it != last; ++it) {
      if (data.empty() || std::memcmp(blob_.data() + it->second, data.data(), data.size()) == 0)
        return it->second;
    }
    const int64_t offset = align_up(static_cast<int64_t>(blob_.size()));
    blob_.resize(static_cast<size_t>(offset), std::byte{0});
    blob_.insert(blob_.end(), data.begin(), data.end());
    stored_.emplace(key, offset);
    return offset;
  }
  std::vector<std::byte> take() { return std::move(blob_); }

 private:
  std::vector<std::byte> blob_;
  std::multimap<std::pair<int64_t, uint64_t>, int64_t> stored_;
};

Expected<WeightsLayout> layout_one(const ir::Graph& graph, BlobWriter& writer) {
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

  for (const ir::ValueId c : graph.constants()) {
    const ir::Value& value = graph.value(c);
    const bool scalar = value.type.rank() == 0;
    if (scalar && read_elementwise[c] && !read_from_memory[c]) {
      layout.inlined[c] = true;
      continue;
    }
    if (!read_elementwise[c] && !read_from_memory[c]) continue;  // unused
    if (value.constant == nullptr ||
        static_cast<int64_t>(value.constant->data.size()) != value.type.size_bytes()) {
      return invalid_input("constant %" + value.name +
                           " has no data (elided IR text cannot be compiled)");
    }
    layout.offset[c] = writer.store(value.constant->data);
  }
  for (size_t i = 0; i < graph.num_states(); ++i) {
    const std::shared_ptr<const ir::Tensor>& initial = graph.state(i).initial;
    layout.state_offset.push_back(initial ? writer.store(initial->data) : -1);
  }
  return layout;
}

}  // namespace

Expected<std::vector<WeightsLayout>> layout_weights(const std::vector<const ir::Graph*>& graphs) {
  BlobWriter writer;
  std::vector<WeightsLayout> layouts;
  for (const ir::Graph* graph : graphs) {
    INFERNO_ASSIGN_OR_RETURN(layouts.emplace_back(), layout_one(*graph, writer));
  }
  std::vector<std::byte> blob = writer.take();
  const uint64_t checksum = inferno_weights_checksum(blob.data(), blob.size());
  for (WeightsLayout& layout : layouts) {
    layout.bytes = static_cast<int64_t>(blob.size());
    layout.checksum = checksum;
  }
  if (!layouts.empty()) layouts.front().blob = std::move(blob);
  return layouts;
}

Expected<WeightsLayout> layout_weights(const ir::Graph& graph) {
  INFERNO_ASSIGN_OR_RETURN(std::vector<WeightsLayout> layouts, layout_weights({&graph}));
  return std::move(layouts.front());
}

}  // namespace inferno::codegen
