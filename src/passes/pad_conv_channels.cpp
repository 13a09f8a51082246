#include "passes/pad_conv_channels.h"

#include <cstring>
#include <string>
#include <utility>

#include "ir/builder.h"
#include "passes/node_rebuilder.h"

namespace inferno::passes {
namespace {

using ir::OpKind;

/// Channels a 16-byte piece of 16-bit elements holds: what the fast kernels load at once.
constexpr int64_t kChannelMultiple = 8;
/// Pixels per image from which the copy pays: a squeeze-and-excitation conv over [N, 1, 1, C]
/// would gain nothing from 16-byte loads and pay a launch (EfficientNet's 12).
constexpr int64_t kMinPixels = 64;

bool qualifies(const ir::Graph& graph, const ir::Node& node) {
  if (node.op != OpKind::kConv2d || node.attrs.get_string("layout") != "nhwc" ||
      node.attrs.get_int("groups") != 1 || node.attrs.get_bool("gate"))
    return false;
  const ir::TensorType& x = graph.type(node.inputs[0]);
  const ir::Value& w = graph.value(node.inputs[1]);
  return (x.dtype == ir::DType::kF16 || x.dtype == ir::DType::kBF16) && x.rank() == 4 &&
         x.shape[3] % kChannelMultiple != 0 && x.shape[1] * x.shape[2] >= kMinPixels &&
         w.kind == ir::ValueKind::kConstant && w.constant != nullptr &&
         w.constant->type.rank() == 4;
}

/// The OHWI weight `w` with zero input channels appended up to `channels`.
ir::Tensor padded_weight(const ir::Tensor& w, int64_t channels) {
  const ir::Shape& s = w.type.shape;
  ir::Tensor out = ir::Tensor::zeros({w.type.dtype, {s[0], s[1], s[2], channels}});
  const auto element = static_cast<size_t>(ir::dtype_size(w.type.dtype));
  const int64_t taps = s[0] * s[1] * s[2];
  const size_t from_row = static_cast<size_t>(s[3]) * element;
  const size_t to_row = static_cast<size_t>(channels) * element;
  for (int64_t t = 0; t < taps; ++t) {
    std::memcpy(out.data.data() + static_cast<size_t>(t) * to_row,
                w.data.data() + static_cast<size_t>(t) * from_row, from_row);
  }
  return out;
}

Expected<Rewrite> pad_channels(NodeRebuilder& rebuilder, ir::Node& node) {
  ir::Graph& graph = rebuilder.graph();
  if (!qualifies(graph, node)) return Rewrite::kUnchanged;
  const ir::ValueId x = node.inputs[0], w = node.inputs[1];
  const ir::DType dtype = graph.type(x).dtype;
  const int64_t c = graph.type(x).shape[3];
  const int64_t padded = (c + kChannelMultiple - 1) / kChannelMultiple * kChannelMultiple;
  const std::string name = graph.name(node.outputs[0]);  // a copy: adding values moves names

  ir::Attributes pad;
  pad.set("before", ir::IntList{0, 0, 0, 0});
  pad.set("after", ir::IntList{0, 0, 0, padded - c});
  const ir::ValueId zero = ir::add_scalar_constant(graph, 0.0, dtype, name + "_pad_zero");
  INFERNO_ASSIGN_OR_RETURN(
      const ir::ValueId x_padded,
      rebuilder.build(OpKind::kConstantPad, {x, zero}, std::move(pad), name + "_x_pad", node.loc));
  const ir::ValueId w_padded =
      graph.add_constant(graph.name(w) + "_pad", padded_weight(*graph.value(w).constant, padded));

  std::vector<ir::ValueId> inputs = node.inputs;
  inputs[0] = x_padded;
  inputs[1] = w_padded;
  return redefine_node(graph, node, OpKind::kConv2d, std::move(inputs), node.attrs);
}

}  // namespace

Status pad_conv_channels(ir::Graph& graph, const PassOptions&) {
  return rewrite_nodes(graph, &pad_channels);
}

}  // namespace inferno::passes
