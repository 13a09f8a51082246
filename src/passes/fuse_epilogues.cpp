#include "passes/fuse_epilogues.h"

#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/shape_rules.h"
#include "passes/conv_epilogue.h"
#include "passes/node_rebuilder.h"
#include "passes/rewrite.h"

namespace inferno::passes {
namespace {

using ir::OpKind;

struct FusedGemm {
  std::vector<ir::ValueId> inputs;
  ir::Attributes attrs;
};

bool broadcasts_to(const ir::Shape& from, const ir::Shape& to) {
  const Expected<ir::Shape> shape = ir::broadcast_shapes(from, to);
  return shape.has_value() && *shape == to;
}

/// The one-element constant `s` as a scale factor, if it is a usable one.
std::optional<double> scale_factor(const ir::Graph& graph, ir::ValueId s) {
  const ir::Value& value = graph.value(s);
  if (value.kind != ir::ValueKind::kConstant || value.constant == nullptr ||
      value.type.numel() != 1)
    return std::nullopt;
  const double scale = value.constant->get(0);
  if (!std::isfinite(scale) || scale == 0) return std::nullopt;
  return scale;
}

/// gemm (activation "none") with `consumer` folded in, where `consumer` reads the gemm's output
/// at input `slot`; nullopt if it does not fold.
std::optional<FusedGemm> fold(const ir::Graph& graph, const ir::Node& gemm,
                              const ir::Node& consumer, size_t slot) {
  const ir::TensorType& type = graph.type(gemm.outputs.front());
  if (graph.type(consumer.outputs.front()) != type) return std::nullopt;  // promotes or broadcasts
  FusedGemm fused{gemm.inputs, gemm.attrs};
  if (ir::op_has_trait(consumer.op, ir::kGemmActivation)) {  // named as the op (ops.def)
    fused.attrs.set("activation", std::string(ir::op_name(consumer.op)));
    return fused;
  }
  switch (consumer.op) {
    case OpKind::kAdd: {
      const ir::ValueId r = consumer.inputs[1 - slot];
      if (graph.type(r).dtype != type.dtype || !broadcasts_to(graph.type(r).shape, type.shape))
        return std::nullopt;
      if (fused.inputs.size() == 4) return std::nullopt;           // c and d taken
      if (fused.inputs.size() == 2) fused.attrs.set("beta", 1.0);  // r becomes c, else d
      fused.inputs.push_back(r);
      return fused;
    }
    case OpKind::kMul:
    case OpKind::kDiv: {
      if (consumer.op == OpKind::kDiv && slot != 0) return std::nullopt;  // s / g is no scaling
      if (fused.inputs.size() == 4) return std::nullopt;
      const std::optional<double> s = scale_factor(graph, consumer.inputs[1 - slot]);
      if (!s) return std::nullopt;
      auto scaled = [&](const char* name) {
        const double v = gemm.attrs.get_float(name);
        return consumer.op == OpKind::kMul ? v * *s : v / *s;
      };
      fused.attrs.set("alpha", scaled("alpha"));
      // Without c, beta means nothing and stays 1 (canonical).
      if (fused.inputs.size() == 3) fused.attrs.set("beta", scaled("beta"));
      return fused;
    }
    default:
      return std::nullopt;
  }
}

/// `consumer` merged with the gemm it reads, if one folds into the other.
Expected<std::optional<ir::Node>> fuse_into_gemm(NodeRebuilder& rebuilder,
                                                 const std::vector<int32_t>& uses,
                                                 const std::vector<bool>& is_output,
                                                 const ir::Node& consumer) {
  const ir::Graph& graph = rebuilder.graph();
  for (size_t slot = 0; slot < consumer.inputs.size(); ++slot) {
    const ir::ValueId g = consumer.inputs[slot];
    const ir::Node* gemm = rebuilder.producer(g, OpKind::kGemm);
    if (gemm == nullptr || uses[static_cast<size_t>(g)] != 1 || is_output[static_cast<size_t>(g)] ||
        gemm->attrs.get_string("activation") != "none") {
      continue;
    }
    std::optional<FusedGemm> fused = fold(graph, *gemm, consumer, slot);
    if (!fused) continue;
    const SourceLocation loc = gemm->loc;
    (void)rebuilder.take(g);
    INFERNO_ASSIGN_OR_RETURN(ir::Node node,
                             redefine(graph, OpKind::kGemm, std::move(fused->inputs),
                                      std::move(fused->attrs), consumer.outputs, loc));
    return std::optional<ir::Node>(std::move(node));
  }
  return std::optional<ir::Node>();
}

}  // namespace

Status fuse_epilogues(ir::Graph& graph, const PassOptions& /*options*/) {
  // Use counts stay valid throughout: a fused gemm or conv2d defines its consumer's output, with
  // the same uses.
  const std::vector<int32_t> uses = count_node_uses(graph);
  const std::vector<bool> is_output = graph_output_mask(graph);
  NodeRebuilder rebuilder(graph);
  for (ir::Node& node : rebuilder.old_nodes()) {
    INFERNO_ASSIGN_OR_RETURN(std::optional<ir::Node> fused,
                             fuse_into_gemm(rebuilder, uses, is_output, node));
    if (!fused) {
      INFERNO_ASSIGN_OR_RETURN(fused, fuse_conv_epilogue(rebuilder, uses, is_output, node));
    }
    rebuilder.append(fused ? std::move(*fused) : std::move(node));
  }
  return rebuilder.finish();
}

}  // namespace inferno::passes
