#include "passes/channel_constants.h"

#include <cmath>
#include <string>

namespace inferno::passes {

size_t channel_dim(const ir::Node& producer, const ir::TensorType& out) {
  if (producer.op == ir::OpKind::kConv2d) {
    return producer.attrs.get_string("layout") == "nhwc" ? 3 : 1;
  }
  return out.rank() - 1;
}

std::optional<std::vector<double>> per_channel_values(const ir::Graph& graph, ir::ValueId v,
                                                      const ir::TensorType& out, size_t dim) {
  const ir::Value& value = graph.value(v);
  if (value.kind != ir::ValueKind::kConstant || value.constant == nullptr ||
      value.type.dtype != out.dtype || value.type.rank() > out.rank() ||
      dim >= static_cast<size_t>(out.rank())) {
    return std::nullopt;
  }
  const ir::Shape& s = value.type.shape;
  const size_t offset = out.rank() - s.size();  // v's dim i is out's dim i + offset
  const int64_t channels = out.shape[dim];
  bool per_channel = false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == 1) continue;
    if (i + offset != dim || s[i] != channels) return std::nullopt;
    per_channel = true;
  }
  std::vector<double> values(static_cast<size_t>(channels));
  for (int64_t c = 0; c < channels; ++c) {
    // Every dim but the channel one has size 1, so element c is channel c (or the one element).
    const double e = value.constant->get(per_channel ? c : 0);
    if (!std::isfinite(e)) return std::nullopt;
    values[static_cast<size_t>(c)] = e;
  }
  return values;
}

std::optional<std::vector<double>> constant_values(const ir::Graph& graph, ir::ValueId v) {
  const ir::Value& value = graph.value(v);
  if (value.kind != ir::ValueKind::kConstant || value.constant == nullptr) return std::nullopt;
  std::vector<double> values(static_cast<size_t>(value.constant->numel()));
  for (int64_t i = 0; i < value.constant->numel(); ++i) {
    values[static_cast<size_t>(i)] = value.constant->get(i);
  }
  return values;
}

}  // namespace inferno::passes
