#include "passes/recognize_rms_norm.h"

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "passes/node_rebuilder.h"
#include "passes/pattern_match.h"
#include "passes/rewrite.h"

namespace inferno::passes {
namespace {

using ir::OpKind;

struct Uses {
  std::vector<int32_t> count;
  std::vector<bool> is_output;
  /// Whether `v` is read by exactly one node and is not a graph output.
  bool single(ir::ValueId v) const {
    return count[static_cast<size_t>(v)] == 1 && !is_output[static_cast<size_t>(v)];
  }
};

/// Whether `s` is pow(X, 2) or mul(X, X) of X's type.
bool is_square_of(const NodeRebuilder& rebuilder, ir::ValueId s, ir::ValueId x) {
  const ir::Graph& graph = rebuilder.graph();
  if (graph.type(s) != graph.type(x)) return false;
  if (const ir::Node* pow = rebuilder.producer(s, OpKind::kPow))
    return pow->inputs[0] == x && splat_constant(graph, pow->inputs[1]) == 2.0;
  const ir::Node* mul = rebuilder.producer(s, OpKind::kMul);
  return mul != nullptr && mul->inputs[0] == x && mul->inputs[1] == x;
}

/// The X and eps of v = mean(square(X)) {last dim, keepdim} + eps.
struct MeanSquare {
  ir::ValueId x;
  double eps;
};
std::optional<MeanSquare> mean_square_plus_eps(const NodeRebuilder& rebuilder, ir::ValueId v) {
  const ir::Graph& graph = rebuilder.graph();
  const ir::Node* add = rebuilder.producer(v, OpKind::kAdd);
  if (add == nullptr) return std::nullopt;
  for (size_t i = 0; i < 2; ++i) {
    const ir::ValueId m = add->inputs[i];
    const std::optional<double> eps = splat_constant(graph, add->inputs[1 - i]);
    if (!eps || !std::isfinite(*eps) || *eps < 0 || graph.type(m) != graph.type(v)) continue;
    const ir::Node* mean = rebuilder.producer(m, OpKind::kMean);
    if (mean == nullptr || !mean->attrs.get_bool("keepdim")) continue;
    const ir::ValueId s = mean->inputs[0];
    const int64_t rank = graph.type(s).rank();
    if (rank < 1 || mean->attrs.get_ints("dims") != ir::IntList{rank - 1}) continue;
    const ir::Node* square = rebuilder.producer(s);
    if (square == nullptr || square->inputs.empty()) continue;
    const ir::ValueId x = square->inputs[0];
    if (!ir::is_floating(graph.type(x).dtype) || !is_square_of(rebuilder, s, x)) continue;
    return MeanSquare{x, *eps};
  }
  return std::nullopt;
}

/// The v of r = rsqrt(v), reciprocal(sqrt(v)) or div(1, sqrt(v)).
std::optional<ir::ValueId> inverse_sqrt_argument(const NodeRebuilder& rebuilder, ir::ValueId r) {
  if (const ir::Node* rsqrt = rebuilder.producer(r, OpKind::kRsqrt)) return rsqrt->inputs[0];
  ir::ValueId s = ir::kNoValue;
  if (const ir::Node* rec = rebuilder.producer(r, OpKind::kReciprocal)) {
    s = rec->inputs[0];
  } else if (const ir::Node* div = rebuilder.producer(r, OpKind::kDiv);
             div != nullptr && splat_constant(rebuilder.graph(), div->inputs[0]) == 1.0) {
    s = div->inputs[1];
  }
  if (s == ir::kNoValue) return std::nullopt;
  const ir::Node* sqrt = rebuilder.producer(s, OpKind::kSqrt);
  if (sqrt == nullptr) return std::nullopt;
  return sqrt->inputs[0];
}

/// Whether the mul reads `xm` where the squares read `xs`: the same value, or xs = cast(xm) to a
/// wider floating dtype that the mul promotes xm to (T5 multiplies the f16 input itself).
bool same_operand(const NodeRebuilder& rebuilder, ir::ValueId xm, ir::ValueId xs,
                  const ir::TensorType& out) {
  if (xm == xs) return true;
  const ir::Graph& graph = rebuilder.graph();
  const ir::Node* cast = rebuilder.producer(xs, OpKind::kCast);
  return cast != nullptr && cast->inputs[0] == xm && graph.type(xs) == out &&
         ir::is_floating(graph.type(xm).dtype) &&
         ir::dtype_size(graph.type(xm).dtype) <= ir::dtype_size(out.dtype);
}

ir::Attributes norm_attributes(double eps) {
  ir::Attributes attrs;
  attrs.set("normalized_dims", int64_t{1});
  attrs.set("eps", eps);
  return attrs;
}

/// Rule 1: the written-out normalization.
Expected<Rewrite> normalization(NodeRebuilder& rebuilder, ir::Node& node) {
  const ir::Graph& graph = rebuilder.graph();
  const ir::TensorType& out = graph.type(node.outputs.front());
  for (size_t i = 0; i < 2; ++i) {
    if (node.op == OpKind::kDiv && i == 1) break;
    const ir::ValueId xm = node.inputs[i], r = node.inputs[1 - i];
    std::optional<ir::ValueId> v;
    if (node.op == OpKind::kMul) {
      v = inverse_sqrt_argument(rebuilder, r);
    } else if (const ir::Node* sqrt = rebuilder.producer(r, OpKind::kSqrt)) {
      v = sqrt->inputs[0];
    }
    if (!v) continue;
    const std::optional<MeanSquare> ms = mean_square_plus_eps(rebuilder, *v);
    if (!ms || graph.type(ms->x) != out || graph.type(r).dtype != out.dtype ||
        !same_operand(rebuilder, xm, ms->x, out)) {
      continue;
    }
    return redefine_node(graph, node, OpKind::kRmsNorm, {ms->x}, norm_attributes(ms->eps));
  }
  return Rewrite::kUnchanged;
}

/// Rule 2: cast(rms_norm(cast(x, f32)), dtype of x) for f16 and bf16 x.
Expected<Rewrite> narrow_back(NodeRebuilder& rebuilder, const Uses& uses, ir::Node& node) {
  const ir::Graph& graph = rebuilder.graph();
  const ir::ValueId y = node.inputs[0];
  const ir::Node* norm = rebuilder.producer(y, OpKind::kRmsNorm);
  if (norm == nullptr || norm->inputs.size() != 1 || !uses.single(y)) return Rewrite::kUnchanged;
  const ir::Node* widen = rebuilder.producer(norm->inputs[0], OpKind::kCast);
  if (widen == nullptr) return Rewrite::kUnchanged;
  const ir::ValueId x = widen->inputs[0];
  const ir::DType narrow = graph.type(x).dtype;
  if ((narrow != ir::DType::kF16 && narrow != ir::DType::kBF16) ||
      graph.type(norm->inputs[0]).dtype != ir::DType::kF32 ||
      graph.type(node.outputs.front()).dtype != narrow) {
    return Rewrite::kUnchanged;
  }
  ir::Attributes attrs = norm->attrs;
  return redefine_node(graph, node, OpKind::kRmsNorm, {x}, std::move(attrs));
}

/// Rule 3: the weight.
Expected<Rewrite> weighted(NodeRebuilder& rebuilder, const Uses& uses, ir::Node& node) {
  ir::Graph& graph = rebuilder.graph();
  const ir::TensorType& out = graph.type(node.outputs.front());
  for (size_t i = 0; i < 2; ++i) {
    const ir::ValueId y = node.inputs[i], w = node.inputs[1 - i];
    const ir::Node* norm = rebuilder.producer(y, OpKind::kRmsNorm);
    if (norm == nullptr || norm->inputs.size() != 1 || !uses.single(y) || graph.type(y) != out)
      continue;
    const ir::TensorType& wt = graph.type(w);
    const int64_t d = out.shape.empty() ? 0 : out.shape.back();
    if (wt.rank() < 1 || wt.rank() > out.rank() || wt.shape.back() != d ||
        ir::shape_numel(wt.shape) != d || !ir::is_floating(wt.dtype)) {
      continue;
    }
    const ir::Value& wv = graph.value(w);
    const bool constant = wv.kind == ir::ValueKind::kConstant && wv.constant != nullptr;
    ir::ValueId weight = w;
    if (wt.dtype != out.dtype) {
      // Only a constant converts exactly, and only to a wider dtype.
      if (!constant || ir::dtype_size(wt.dtype) >= ir::dtype_size(out.dtype)) continue;
    }
    if (wt.dtype != out.dtype || wt.rank() != 1) {
      if (constant) {
        ir::Tensor data = ir::Tensor::zeros({out.dtype, {d}});
        for (int64_t j = 0; j < d; ++j) data.set(j, wv.constant->get(j));
        weight = graph.add_constant(graph.name(w) + "_row", std::move(data));
      } else {
        ir::Attributes shape;
        shape.set("shape", ir::Shape{d});
        INFERNO_ASSIGN_OR_RETURN(weight, rebuilder.build(OpKind::kReshape, {w}, std::move(shape),
                                                         graph.name(w) + "_row", node.loc));
      }
    }
    ir::Attributes attrs = norm->attrs;
    return redefine_node(graph, node, OpKind::kRmsNorm, {norm->inputs[0], weight},
                         std::move(attrs));
  }
  return Rewrite::kUnchanged;
}

Expected<Rewrite> recognize(NodeRebuilder& rebuilder, const Uses& uses, ir::Node& node) {
  switch (node.op) {
    case OpKind::kMul: {
      INFERNO_ASSIGN_OR_RETURN(const Rewrite result, weighted(rebuilder, uses, node));
      if (result != Rewrite::kUnchanged) return result;
      return normalization(rebuilder, node);
    }
    case OpKind::kDiv:
      return normalization(rebuilder, node);
    case OpKind::kCast:
      return narrow_back(rebuilder, uses, node);
    default:
      return Rewrite::kUnchanged;
  }
}

}  // namespace

Status recognize_rms_norm(ir::Graph& graph, const PassOptions& /*options*/) {
  // Use counts stay valid: every rewrite redefines a node's own value, with its uses.
  const Uses uses{count_node_uses(graph), graph_output_mask(graph)};
  NodeRebuilder rebuilder(graph);
  for (ir::Node& node : rebuilder.old_nodes()) {
    rebuilder.rename_inputs(node);
    // Each rule turns the node into an rms_norm, which no rule rewrites again.
    for (int round = 0; round < 4; ++round) {
      INFERNO_ASSIGN_OR_RETURN(const Rewrite result, recognize(rebuilder, uses, node));
      if (result == Rewrite::kUnchanged) break;
    }
    rebuilder.append(std::move(node));
  }
  return rebuilder.finish();
}

}  // namespace inferno::passes
