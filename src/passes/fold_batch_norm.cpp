#include "passes/fold_batch_norm.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "passes/channel_constants.h"
#include "passes/node_rebuilder.h"
#include "passes/rewrite.h"

namespace inferno::passes {
namespace {

using ir::OpKind;

const ir::Tensor* constant_data(const ir::Graph& graph, ir::ValueId v) {
  const ir::Value& value = graph.value(v);
  return value.kind == ir::ValueKind::kConstant ? value.constant.get() : nullptr;
}

/// Whether `node` is a conv2d or gemm with nothing after its sum but a bias, and constant weights
/// and bias: what scale and shift can be folded into.
bool is_foldable_producer(const ir::Graph& graph, const ir::Node& node) {
  if (node.op == OpKind::kConv2d) {
    if (node.attrs.get_string("activation") != "none" || node.attrs.get_bool("residual") ||
        node.attrs.get_bool("gate")) {
      return false;
    }
  } else if (node.op == OpKind::kGemm) {
    if (node.attrs.get_string("activation") != "none" || node.inputs.size() > 3 ||
        graph.type(node.inputs[1]).rank() != 2 ||
        (node.inputs.size() == 3 && node.attrs.get_float("beta") != 1.0)) {
      return false;
    }
  } else {
    return false;
  }
  for (size_t i = 1; i < node.inputs.size(); ++i) {
    if (constant_data(graph, node.inputs[i]) == nullptr) return false;
  }
  return true;
}

/// The single node reading `v`, if `v` has exactly one use and is not a graph output.
struct Consumers {
  std::vector<int32_t> uses;
  std::vector<bool> is_output;
  std::vector<int32_t> reader;  ///< value -> index of a node reading it (the only one if uses 1)

  explicit Consumers(const ir::Graph& graph)
      : uses(count_node_uses(graph)),
        is_output(graph_output_mask(graph)),
        reader(static_cast<size_t>(graph.num_values()), -1) {
    for (size_t i = 0; i < graph.nodes().size(); ++i) {
      for (const ir::ValueId v : graph.nodes()[i].inputs)
        reader[static_cast<size_t>(v)] = int32_t(i);
    }
  }
  int32_t only_reader(ir::ValueId v) const {
    const size_t i = static_cast<size_t>(v);
    return uses[i] == 1 && !is_output[i] ? reader[i] : -1;
  }
};

/// A mul or add reading `y` and a per-channel constant, with `y`'s type as its result: the
/// constant's values, else nullopt.
std::optional<std::vector<double>> channel_operand(const ir::Graph& graph, const ir::Node& node,
                                                   OpKind op, ir::ValueId y, size_t dim) {
  if (node.op != op || graph.type(node.outputs[0]) != graph.type(y)) return std::nullopt;
  const ir::ValueId other = node.inputs[0] == y ? node.inputs[1] : node.inputs[0];
  if (other == y) return std::nullopt;
  return per_channel_values(graph, other, graph.type(y), dim);
}

/// The weight with output channel o's elements multiplied by scale[o]: dim 0 for conv2d (OIHW
/// and OHWI), the N dim of a gemm's b ([N, K] with trans_b, else [K, N]).
ir::Tensor scaled_weight(const ir::Node& node, const ir::Tensor& w,
                         const std::vector<double>& scale) {
  ir::Tensor out = ir::Tensor::zeros(w.type);
  const int64_t n = static_cast<int64_t>(scale.size());
  const bool channel_rows = node.op == OpKind::kConv2d || node.attrs.get_bool("trans_b");
  const int64_t per_row = n == 0 ? 0 : w.numel() / n;
  for (int64_t i = 0; i < w.numel(); ++i) {
    const int64_t c = channel_rows ? i / per_row : i % n;
    out.set(i, w.get(i) * scale[static_cast<size_t>(c)]);
  }
  return out;
}

/// Folds into P the chain of its only consumers that are mul or add by per-channel constants
/// (BatchNorm's scale then shift, a bias add, a later scale), if there is one.
Expected<std::optional<ir::Node>> fold(ir::Graph& graph, const Consumers& consumers,
                                       const ir::Node& node, std::vector<bool>& dropped) {
  const std::optional<ir::Node> none;
  if (!is_foldable_producer(graph, node)) return none;
  const ir::ValueId y = node.outputs[0];
  const ir::TensorType type = graph.type(y);
  const size_t dim = channel_dim(node, type);
  const size_t channels = static_cast<size_t>(type.shape[dim]);
  const bool has_bias = node.inputs.size() > 2;
  // out = conv(x, w * scale) + bias, per channel, as the chain goes (in double).
  std::vector<double> scale(channels, 1.0);
  std::optional<std::vector<double>> bias;
  if (has_bias) {
    // A conv2d's bias is [O]; a gemm's c broadcasts, and only one per channel folds.
    bias = node.op == OpKind::kConv2d ? constant_values(graph, node.inputs[2])
                                      : per_channel_values(graph, node.inputs[2], type, dim);
    if (!bias) return none;
  }
  bool scaled = false;
  std::vector<int32_t> chain;
  ir::ValueId last = y;
  for (int32_t next = consumers.only_reader(last); next >= 0; next = consumers.only_reader(last)) {
    const ir::Node& consumer = graph.nodes()[static_cast<size_t>(next)];
    if (const auto s = channel_operand(graph, consumer, OpKind::kMul, last, dim)) {
      for (size_t c = 0; c < channels; ++c) {
        scale[c] *= (*s)[c];
        if (bias) (*bias)[c] *= (*s)[c];
      }
      scaled = true;
    } else if (const auto t = channel_operand(graph, consumer, OpKind::kAdd, last, dim)) {
      if (!bias) bias = std::vector<double>(channels, 0.0);
      for (size_t c = 0; c < channels; ++c) (*bias)[c] += (*t)[c];
    } else {
      break;
    }
    chain.push_back(next);
    last = consumer.outputs[0];
  }
  if (chain.empty()) return none;
  // The new weight and bias, rounded once; an unscaled weight stays as it is.
  const ir::ValueId w = node.inputs[1];
  std::vector<ir::ValueId> inputs = {
      node.inputs[0], scaled
                          ? graph.add_constant(graph.name(w) + "_bn",
                                               scaled_weight(node, *constant_data(graph, w), scale))
                          : w};
  if (bias) {
    ir::Tensor folded = ir::Tensor::zeros({type.dtype, {static_cast<int64_t>(channels)}});
    for (size_t c = 0; c < channels; ++c) folded.set(static_cast<int64_t>(c), (*bias)[c]);
    const std::string hint = has_bias ? graph.name(node.inputs[2]) : graph.name(y) + "_bias";
    inputs.push_back(graph.add_constant(hint + "_bn", std::move(folded)));
  }
  ir::Attributes attrs = node.attrs;
  if (node.op == OpKind::kGemm) attrs.set("beta", 1.0);
  INFERNO_ASSIGN_OR_RETURN(ir::Node folded, redefine(graph, node.op, std::move(inputs),
                                                     std::move(attrs), {last}, node.loc));
  for (const int32_t i : chain) dropped[static_cast<size_t>(i)] = true;
  return std::optional<ir::Node>(std::move(folded));
}

}  // namespace

Status fold_batch_norm(ir::Graph& graph, const PassOptions& /*options*/) {
  const Consumers consumers(graph);
  const size_t count = graph.nodes().size();
  std::vector<bool> dropped(count, false);
  std::vector<ir::Node> nodes;
  nodes.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    if (dropped[i]) continue;
    // Copied: fold adds constants to the graph, and the node list is rebuilt after the walk.
    const ir::Node node = graph.nodes()[i];
    INFERNO_ASSIGN_OR_RETURN(std::optional<ir::Node> folded, fold(graph, consumers, node, dropped));
    nodes.push_back(folded ? std::move(*folded) : node);
  }
  graph.mutable_nodes() = std::move(nodes);
  return remove_unused_constants(graph);
}

}  // namespace inferno::passes
