#include "passes/conv_epilogue.h"

#include <string>
#include <utility>

#include "passes/channel_constants.h"
#include "passes/rewrite.h"

namespace inferno::passes {
namespace {

using ir::OpKind;

/// A conv2d's operands by role (ops.def: x, w, bias, then residual and gate as flagged).
struct ConvOperands {
  ir::ValueId x, w;
  std::optional<ir::ValueId> bias, residual, gate;

  explicit ConvOperands(const ir::Node& conv) : x(conv.inputs[0]), w(conv.inputs[1]) {
    size_t next = 2;
    if (conv.inputs.size() > next) bias = conv.inputs[next++];
    if (conv.attrs.get_bool("residual")) residual = conv.inputs[next++];
    if (conv.attrs.get_bool("gate")) gate = conv.inputs[next++];
  }
  /// In operand order, with a zero bias where a residual or gate needs one and there is none.
  std::vector<ir::ValueId> inputs(ir::Graph& graph, const ir::Node& conv) {
    if (!bias && (residual || gate)) {
      const ir::TensorType& out = graph.type(conv.outputs[0]);
      const int64_t channels = out.shape[channel_dim(conv, out)];
      bias = graph.add_constant(graph.name(conv.outputs[0]) + "_bias",
                                ir::Tensor::zeros({out.dtype, {channels}}));
    }
    std::vector<ir::ValueId> in = {x, w};
    for (const std::optional<ir::ValueId>& v : {bias, residual, gate}) {
      if (v) in.push_back(*v);
    }
    return in;
  }
};

bool sole_use(const std::vector<int32_t>& uses, const std::vector<bool>& is_output, ir::ValueId v) {
  return uses[static_cast<size_t>(v)] == 1 && !is_output[static_cast<size_t>(v)];
}

/// The conv2d activation that elementwise `node` applies to its operand 0, if any: the ops with
/// the trait kConvActivation (named as the op), and clamp to the constants 0 and 6 (relu6).
std::optional<std::string> activation_of(const ir::Graph& graph, const ir::Node& node) {
  if (ir::op_has_trait(node.op, ir::kConvActivation)) return std::string(ir::op_name(node.op));
  if (node.op == OpKind::kClamp && splat_constant(graph, node.inputs[1]) == 0.0 &&
      splat_constant(graph, node.inputs[2]) == 6.0) {
    return std::string(ir::op_name(OpKind::kRelu6));
  }
  return std::nullopt;
}

/// `consumer`, which reads conv2d `conv`'s output at input `slot`, merged into `conv`'s
/// epilogue: the operands and attributes of the merged conv2d, or nullopt.
std::optional<std::pair<std::vector<ir::ValueId>, ir::Attributes>> merge(ir::Graph& graph,
                                                                         const ir::Node& conv,
                                                                         const ir::Node& consumer,
                                                                         size_t slot) {
  const ir::ValueId y = conv.outputs[0];
  const ir::TensorType type = graph.type(y);
  if (conv.attrs.get_string("activation") != "none" || consumer.outputs.size() != 1 ||
      graph.type(consumer.outputs[0]) != type) {
    return std::nullopt;  // an activation comes last; promotion or broadcasting changes the type
  }
  ConvOperands operands(conv);
  ir::Attributes attrs = conv.attrs;
  if (const std::optional<std::string> activation = activation_of(graph, consumer)) {
    if (slot != 0) return std::nullopt;  // clamp's bounds are operands too
    attrs.set("activation", *activation);
    return std::make_pair(operands.inputs(graph, conv), std::move(attrs));
  }
  if (consumer.op != OpKind::kAdd) return std::nullopt;
  const ir::ValueId other = consumer.inputs[1 - slot];
  if (other == y) return std::nullopt;
  const size_t dim = channel_dim(conv, type);
  if (const std::optional<std::vector<double>> add = per_channel_values(graph, other, type, dim)) {
    // A per-channel constant: into the bias (a new constant; the old one may have other uses).
    std::optional<std::vector<double>> bias;
    if (operands.bias) {
      bias = constant_values(graph, *operands.bias);
      if (!bias) return std::nullopt;  // not a constant
    }
    ir::Tensor sum = ir::Tensor::zeros({type.dtype, {static_cast<int64_t>(add->size())}});
    for (size_t c = 0; c < add->size(); ++c) {
      sum.set(static_cast<int64_t>(c), bias ? (*bias)[c] + (*add)[c] : (*add)[c]);
    }
    const std::string hint = operands.bias ? graph.name(*operands.bias) : graph.name(y) + "_bias";
    operands.bias = graph.add_constant(hint + "_add", std::move(sum));
    return std::make_pair(operands.inputs(graph, conv), std::move(attrs));
  }
  if (graph.type(other) != type || operands.residual) return std::nullopt;
  operands.residual = other;
  attrs.set("residual", true);
  return std::make_pair(operands.inputs(graph, conv), std::move(attrs));
}

/// The gate of conv2d `conv` whose input is mul(a, g), g broadcasting over the spatial dims
/// ([N, C, 1, 1], or [N, 1, 1, C] for nhwc), as (a, g); nullopt if it is not one.
std::optional<std::pair<ir::ValueId, ir::ValueId>> se_gate(const ir::Graph& graph,
                                                           const ir::Node& conv,
                                                           const ir::Node& mul) {
  if (conv.attrs.get_bool("gate")) return std::nullopt;
  const ir::TensorType& x = graph.type(conv.inputs[0]);
  const bool nhwc = conv.attrs.get_string("layout") == "nhwc";
  const ir::Shape gate_shape =
      nhwc ? ir::Shape{x.shape[0], 1, 1, x.shape[3]} : ir::Shape{x.shape[0], x.shape[1], 1, 1};
  for (size_t slot = 0; slot < 2; ++slot) {
    const ir::ValueId a = mul.inputs[slot], g = mul.inputs[1 - slot];
    if (graph.type(a) == x && graph.type(g) == ir::TensorType{x.dtype, gate_shape}) {
      return std::make_pair(a, g);
    }
  }
  return std::nullopt;
}

}  // namespace

Expected<std::optional<ir::Node>> fuse_conv_epilogue(NodeRebuilder& rebuilder,
                                                     const std::vector<int32_t>& uses,
                                                     const std::vector<bool>& is_output,
                                                     const ir::Node& node) {
  ir::Graph& graph = rebuilder.graph();
  if (node.op == OpKind::kConv2d) {
    const ir::ValueId x = node.inputs[0];
    const ir::Node* mul = rebuilder.producer(x, OpKind::kMul);
    if (mul == nullptr || !sole_use(uses, is_output, x)) return std::optional<ir::Node>();
    const std::optional<std::pair<ir::ValueId, ir::ValueId>> gate = se_gate(graph, node, *mul);
    if (!gate) return std::optional<ir::Node>();
    (void)rebuilder.take(x);
    ConvOperands operands(node);
    operands.x = gate->first;
    operands.gate = gate->second;
    ir::Attributes attrs = node.attrs;
    attrs.set("gate", true);
    INFERNO_ASSIGN_OR_RETURN(ir::Node fused,
                             redefine(graph, OpKind::kConv2d, operands.inputs(graph, node),
                                      std::move(attrs), node.outputs, node.loc));
    return std::optional<ir::Node>(std::move(fused));
  }
  if (!ir::op_has_trait(node.op, ir::kElementwise)) return std::optional<ir::Node>();
  for (size_t slot = 0; slot < node.inputs.size(); ++slot) {
    const ir::ValueId y = node.inputs[slot];
    const ir::Node* conv = rebuilder.producer(y, OpKind::kConv2d);
    if (conv == nullptr || !sole_use(uses, is_output, y)) continue;
    auto merged = merge(graph, *conv, node, slot);
    if (!merged) continue;
    const SourceLocation loc = conv->loc;
    (void)rebuilder.take(y);
    INFERNO_ASSIGN_OR_RETURN(ir::Node fused,
                             redefine(graph, OpKind::kConv2d, std::move(merged->first),
                                      std::move(merged->second), node.outputs, loc));
    return std::optional<ir::Node>(std::move(fused));
  }
  return std::optional<ir::Node>();
}

}  // namespace inferno::passes
