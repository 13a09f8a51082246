#include "passes/legalize.h"

#include <string>
#include <utility>
#include <vector>

#include "passes/canonicalize.h"
#include "passes/conv_as_gemm.h"
#include "passes/node_rebuilder.h"

namespace inferno::passes {
namespace {

using ir::OpKind;

ir::Attributes gemm_attributes(bool trans_b) {
  ir::Attributes attrs;
  attrs.set("trans_b", trans_b);
  attrs.set("alpha", 1.0);
  attrs.set("beta", 1.0);
  attrs.set("activation", std::string("none"));
  return attrs;
}

/// linear or matmul with a vector operand (the forms canonicalize leaves): the vector becomes a
/// one-row (a) or one-column (b) matrix, and the gemm's result is reshaped to the node's type.
Expected<Rewrite> vector_gemm(NodeRebuilder& rebuilder, ir::Node& node) {
  const ir::Graph& graph = rebuilder.graph();
  std::vector<ir::ValueId> inputs = node.inputs;
  const ir::Shape& a = graph.type(inputs[0]).shape;
  if (a.size() == 1) {
    INFERNO_ASSIGN_OR_RETURN(inputs[0], reshaped(rebuilder, inputs[0], {1, a[0]}, node, "_row"));
  }
  const bool linear = node.op == OpKind::kLinear;
  const ir::Shape& b = graph.type(inputs[1]).shape;
  if (!linear && b.size() == 1) {
    INFERNO_ASSIGN_OR_RETURN(inputs[1], reshaped(rebuilder, inputs[1], {b[0], 1}, node, "_col"));
  }
  INFERNO_ASSIGN_OR_RETURN(
      const ir::ValueId product,
      rebuilder.build(OpKind::kGemm, std::move(inputs), gemm_attributes(linear),
                      graph.name(node.outputs.front()) + "_gemm", node.loc));
  ir::Attributes attrs;
  attrs.set("shape", graph.type(node.outputs.front()).shape);
  return redefine_node(graph, node, OpKind::kReshape, {product}, std::move(attrs));
}

Expected<Rewrite> legalize_node(NodeRebuilder& rebuilder, ir::Node& node) {
  switch (node.op) {
    case OpKind::kLinear:
    case OpKind::kAddMM:
    case OpKind::kMatMul:
    case OpKind::kTranspose: {
      // canonicalize's rules turn these into gemm and permute, except for vector operands.
      INFERNO_ASSIGN_OR_RETURN(const Rewrite rewrite, canonicalize_node(rebuilder, node));
      if (rewrite != Rewrite::kUnchanged) return rewrite;
      return vector_gemm(rebuilder, node);
    }
    case OpKind::kConv2d:
      return pointwise_conv_as_gemm(rebuilder, node);
    default:
      return Rewrite::kUnchanged;
  }
}

}  // namespace

Status legalize(ir::Graph& graph, const PassOptions& /*options*/) {
  return rewrite_nodes(graph, &legalize_node);
}

}  // namespace inferno::passes
