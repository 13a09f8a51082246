#include "passes/conv_as_gemm.h"

#include <string>
#include <utility>
#include <vector>

namespace inferno::passes {
namespace {

using ir::OpKind;

bool all_equal(const ir::IntList& values, int64_t v) {
  for (const int64_t e : values) {
    if (e != v) return false;
  }
  return true;
}

/// Whether `node` is a conv2d that pointwise_conv_as_gemm rewrites (see the header).
bool qualifies(const ir::Graph& graph, const ir::Node& node) {
  if (node.op != OpKind::kConv2d) return false;
  const ir::Attributes& a = node.attrs;
  const std::string& activation = a.get_string("activation");
  if (a.get_bool("gate") || a.get_bool("residual") || a.get_int("groups") != 1 ||
      !all_equal(a.get_ints("stride"), 1) || !all_equal(a.get_ints("padding"), 0) ||
      (activation != "none" && activation != "relu")) {
    return false;
  }
  const ir::Shape& w = graph.type(node.inputs[1]).shape;
  const bool nhwc = a.get_string("layout") == "nhwc";
  return w.size() == 4 && w[nhwc ? 1 : 2] == 1 && w[nhwc ? 2 : 3] == 1;
}

}  // namespace

Expected<Rewrite> pointwise_conv_as_gemm(NodeRebuilder& rebuilder, ir::Node& node) {
  const ir::Graph& graph = rebuilder.graph();
  if (!qualifies(graph, node)) return Rewrite::kUnchanged;
  const bool nhwc = node.attrs.get_string("layout") == "nhwc";
  const ir::Shape x = graph.type(node.inputs[0]).shape;
  const ir::Shape out = graph.type(node.outputs[0]).shape;
  const int64_t n = x[0], c = x[nhwc ? 3 : 1], o = out[nhwc ? 3 : 1];
  const int64_t pixels = x[nhwc ? 1 : 2] * x[nhwc ? 2 : 3];  // stride 1, no padding: in = out

  INFERNO_ASSIGN_OR_RETURN(const ir::ValueId w,
                           reshaped(rebuilder, node.inputs[1], {o, c}, node, "_w"));
  std::vector<ir::ValueId> inputs;
  if (nhwc) {
    INFERNO_ASSIGN_OR_RETURN(const ir::ValueId rows,
                             reshaped(rebuilder, node.inputs[0], {n * pixels, c}, node, "_rows"));
    inputs = {rows, w};
  } else {
    INFERNO_ASSIGN_OR_RETURN(const ir::ValueId planes,
                             reshaped(rebuilder, node.inputs[0], {n, c, pixels}, node, "_planes"));
    inputs = {w, planes};
  }
  if (node.inputs.size() > 2) {
    ir::ValueId bias = node.inputs[2];
    if (!nhwc) {
      INFERNO_ASSIGN_OR_RETURN(bias, reshaped(rebuilder, bias, {o, 1}, node, "_bias"));
    }
    inputs.push_back(bias);
  }
  ir::Attributes attrs;
  attrs.set("trans_b", nhwc);
  attrs.set("alpha", 1.0);
  attrs.set("beta", 1.0);
  attrs.set("activation", node.attrs.get_string("activation"));
  INFERNO_ASSIGN_OR_RETURN(const ir::ValueId gemm,
                           rebuilder.build(OpKind::kGemm, std::move(inputs), std::move(attrs),
                                           graph.name(node.outputs.front()) + "_gemm", node.loc));
  ir::Attributes back;
  back.set("shape", out);
  return redefine_node(graph, node, OpKind::kReshape, {gemm}, std::move(back));
}

}  // namespace inferno::passes
