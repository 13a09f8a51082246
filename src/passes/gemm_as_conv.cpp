#include "passes/gemm_as_conv.h"

#include <string>
#include <utility>
#include <vector>

#include "ir/op.h"
#include "passes/node_rebuilder.h"

namespace inferno::passes {
namespace {

using ir::OpKind;

/// Input channels a 16-byte piece of 16-bit elements holds (the pipelined kernels' plan).
constexpr int64_t kChannelMultiple = 8;
/// The oldest compute capability with the pipelined (cp.async) kernels.
constexpr int kMinComputeCapability = 80;

bool target_fits(const target::Target& target) {
  if (target.sm_archs.empty()) return false;
  for (const int arch : target.sm_archs) {
    if (arch < kMinComputeCapability) return false;
  }
  return true;
}

bool is_constant(const ir::Graph& graph, ir::ValueId v) {
  const ir::Value& value = graph.value(v);
  return value.kind == ir::ValueKind::kConstant && value.constant != nullptr;
}

/// Whether `node` is a gemm gemm_as_conv rewrites (see the header).
bool qualifies(const ir::Graph& graph, const ir::Node& node) {
  if (node.op != OpKind::kGemm) return false;
  const ir::Attributes& a = node.attrs;
  const std::string& activation = a.get_string("activation");
  if (!a.get_bool("trans_b") || a.get_float("alpha") != 1.0 || activation == "none" ||
      activation == "relu" || !ir::epilogue_activation(activation, ir::kConvActivation))
    return false;
  const ir::TensorType& out = graph.type(node.outputs[0]);
  const ir::TensorType& x = graph.type(node.inputs[0]);
  const ir::TensorType& w = graph.type(node.inputs[1]);
  if ((out.dtype != ir::DType::kF16 && out.dtype != ir::DType::kBF16) || x.rank() < 2 ||
      w.rank() != 2 || !is_constant(graph, node.inputs[1]))
    return false;
  const int64_t k = w.shape[1], n = w.shape[0];
  if (k % kChannelMultiple != 0 || k > kGemmAsConvMaxK || x.shape.back() != k) return false;
  if (node.inputs.size() >= 3) {  // c: a constant bias [N], beta 1
    const ir::TensorType& c = graph.type(node.inputs[2]);
    if (a.get_float("beta") != 1.0 || !is_constant(graph, node.inputs[2]) ||
        c.shape != ir::Shape{n})
      return false;
  }
  // d: a residual of the output's own shape.
  return node.inputs.size() < 4 || graph.type(node.inputs[3]).shape == out.shape;
}

Expected<Rewrite> as_conv(NodeRebuilder& rebuilder, ir::Node& node) {
  ir::Graph& graph = rebuilder.graph();
  if (!qualifies(graph, node)) return Rewrite::kUnchanged;
  const ir::TensorType& out = graph.type(node.outputs[0]);
  const ir::Shape out_shape = out.shape;
  const ir::Tensor& w = *graph.value(node.inputs[1]).constant;
  const int64_t n = w.type.shape[0], k = w.type.shape[1];
  const int64_t m = ir::shape_numel(graph.type(node.inputs[0]).shape) / k;

  INFERNO_ASSIGN_OR_RETURN(const ir::ValueId x,
                           reshaped(rebuilder, node.inputs[0], {1, 1, m, k}, node, "_pixels"));
  ir::Tensor ohwi = w;
  ohwi.type.shape = {n, 1, 1, k};  // [N, K] and OHWI [N, 1, 1, K]: the same bytes
  std::vector<ir::ValueId> inputs = {
      x, graph.add_constant(graph.name(node.inputs[1]) + "_ohwi", std::move(ohwi))};
  if (node.inputs.size() >= 3) inputs.push_back(node.inputs[2]);
  const bool residual = node.inputs.size() == 4;
  if (residual) {
    INFERNO_ASSIGN_OR_RETURN(const ir::ValueId r,
                             reshaped(rebuilder, node.inputs[3], {1, 1, m, n}, node, "_residual"));
    inputs.push_back(r);
  }
  ir::Attributes attrs;
  attrs.set("stride", ir::IntList{1, 1});
  attrs.set("padding", ir::IntList{0, 0, 0, 0});
  attrs.set("dilation", ir::IntList{1, 1});
  attrs.set("groups", int64_t{1});
  attrs.set("activation", node.attrs.get_string("activation"));
  attrs.set("residual", residual);
  attrs.set("gate", false);
  attrs.set("layout", std::string("nhwc"));
  INFERNO_ASSIGN_OR_RETURN(const ir::ValueId conv,
                           rebuilder.build(OpKind::kConv2d, std::move(inputs), std::move(attrs),
                                           graph.name(node.outputs.front()) + "_conv", node.loc));
  ir::Attributes back;
  back.set("shape", out_shape);
  return redefine_node(graph, node, OpKind::kReshape, {conv}, std::move(back));
}

}  // namespace

Status gemm_as_conv(ir::Graph& graph, const PassOptions& options) {
  if (!target_fits(options.target)) return Status::ok();
  return rewrite_nodes(graph, &as_conv);
}

}  // namespace inferno::passes
