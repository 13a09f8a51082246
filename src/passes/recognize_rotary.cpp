#include "passes/recognize_rotary.h"

#include <optional>
#include <utility>
#include <vector>

#include "ir/shape_rules.h"
#include "passes/node_rebuilder.h"
#include "passes/rewrite.h"

namespace inferno::passes {
namespace {

using ir::OpKind;

/// The source of `v` = slice(source)[..., begin:end] with every other dim whole and unit steps,
/// or nullopt.
struct LastDimSlice {
  ir::ValueId source;
  int64_t begin, end;
};
std::optional<LastDimSlice> last_dim_slice(const NodeRebuilder& rebuilder, ir::ValueId v) {
  const ir::Node* slice = rebuilder.producer(v, OpKind::kSlice);
  if (slice == nullptr) return std::nullopt;
  const ir::Shape& shape = rebuilder.graph().type(slice->inputs[0]).shape;
  const ir::IntList& starts = slice->attrs.get_ints("starts");
  const ir::IntList& ends = slice->attrs.get_ints("ends");
  const ir::IntList& steps = slice->attrs.get_ints("steps");
  if (shape.empty()) return std::nullopt;
  const size_t last = shape.size() - 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (steps[d] != 1) return std::nullopt;
    if (d != last && (starts[d] != 0 || ends[d] != shape[d])) return std::nullopt;
  }
  return LastDimSlice{slice->inputs[0], starts[last], ends[last]};
}

/// The x of n = neg(x) or mul(x, -1) / mul(-1, x) of x's type.
std::optional<ir::ValueId> negated(const NodeRebuilder& rebuilder, ir::ValueId n) {
  const ir::Graph& graph = rebuilder.graph();
  if (const ir::Node* neg = rebuilder.producer(n, OpKind::kNeg)) return neg->inputs[0];
  const ir::Node* mul = rebuilder.producer(n, OpKind::kMul);
  if (mul == nullptr) return std::nullopt;
  for (size_t i = 0; i < 2; ++i) {
    const ir::ValueId x = mul->inputs[i];
    if (splat_constant(graph, mul->inputs[1 - i]) == -1.0 && graph.type(x) == graph.type(n))
      return x;
  }
  return std::nullopt;
}

/// Whether `r` = cat(neg(x[..., h:2h]), x[..., :h]) {last dim} with 2h = x's last dim.
bool is_rotate_half_of(const NodeRebuilder& rebuilder, ir::ValueId r, ir::ValueId x) {
  const ir::Graph& graph = rebuilder.graph();
  const ir::Node* cat = rebuilder.producer(r, OpKind::kCat);
  const ir::TensorType& xt = graph.type(x);
  if (cat == nullptr || cat->inputs.size() != 2 || xt.rank() < 1 || graph.type(r) != xt ||
      cat->attrs.get_int("dim") != xt.rank() - 1) {
    return false;
  }
  const int64_t d = xt.shape.back(), h = d / 2;
  if (d % 2 != 0 || h < 1) return false;
  const std::optional<ir::ValueId> x2 = negated(rebuilder, cat->inputs[0]);
  if (!x2) return false;
  const std::optional<LastDimSlice> upper = last_dim_slice(rebuilder, *x2);
  const std::optional<LastDimSlice> lower = last_dim_slice(rebuilder, cat->inputs[1]);
  return upper && lower && upper->source == x && lower->source == x && upper->begin == h &&
         upper->end == d && lower->begin == 0 && lower->end == h;
}

/// The operands (a, b) of `v` = mul(a, b) of `type`, in both orders.
std::vector<std::pair<ir::ValueId, ir::ValueId>> products(const NodeRebuilder& rebuilder,
                                                          ir::ValueId v,
                                                          const ir::TensorType& type) {
  const ir::Node* mul = rebuilder.producer(v, OpKind::kMul);
  if (mul == nullptr || rebuilder.graph().type(v) != type) return {};
  return {{mul->inputs[0], mul->inputs[1]}, {mul->inputs[1], mul->inputs[0]}};
}

ir::Attributes rotary_attributes(int64_t rotary_dim) {
  ir::Attributes attrs;
  attrs.set("rotary_dim", rotary_dim);
  return attrs;
}

/// Whether rotary(x, cos, sin) {rotary_dim} types, to x's type.
bool rotary_types(const ir::Graph& graph, ir::ValueId x, ir::ValueId cos, ir::ValueId sin,
                  int64_t rotary_dim) {
  const Expected<std::vector<ir::TensorType>> types =
      ir::infer_output_types(OpKind::kRotary, {graph.type(x), graph.type(cos), graph.type(sin)},
                             rotary_attributes(rotary_dim));
  return types && types->size() == 1 && types->front() == graph.type(x);
}

/// Rule 1: the written-out embedding at its sum.
Expected<Rewrite> embedding(NodeRebuilder& rebuilder, ir::Node& node) {
  const ir::Graph& graph = rebuilder.graph();
  const ir::TensorType& out = graph.type(node.outputs.front());
  for (size_t i = 0; i < 2; ++i) {
    for (const auto& [x, cos] : products(rebuilder, node.inputs[i], out)) {
      if (graph.type(x) != out) continue;
      for (const auto& [r, sin] : products(rebuilder, node.inputs[1 - i], out)) {
        if (!is_rotate_half_of(rebuilder, r, x)) continue;
        const int64_t d = out.shape.back();
        if (!rotary_types(graph, x, cos, sin, d)) continue;
        return redefine_node(graph, node, OpKind::kRotary, {x, cos, sin}, rotary_attributes(d));
      }
    }
  }
  return Rewrite::kUnchanged;
}

/// Rule 2: a rotary of x's first r elements joined with the rest of x.
Expected<Rewrite> partial(NodeRebuilder& rebuilder, const std::vector<int32_t>& uses,
                          const std::vector<bool>& is_output, ir::Node& node) {
  const ir::Graph& graph = rebuilder.graph();
  const ir::TensorType& out = graph.type(node.outputs.front());
  if (node.inputs.size() != 2 || out.rank() < 1 || node.attrs.get_int("dim") != out.rank() - 1)
    return Rewrite::kUnchanged;
  const ir::ValueId y = node.inputs[0];
  const ir::Node* rotary = rebuilder.producer(y, OpKind::kRotary);
  if (rotary == nullptr || uses[static_cast<size_t>(y)] != 1 || is_output[static_cast<size_t>(y)])
    return Rewrite::kUnchanged;
  const ir::ValueId xr = rotary->inputs[0];
  const int64_t r = rotary->attrs.get_int("rotary_dim");
  if (graph.type(xr).shape.back() != r) return Rewrite::kUnchanged;  // already partial
  const std::optional<LastDimSlice> pass = last_dim_slice(rebuilder, node.inputs[1]);
  if (!pass || pass->begin != r || graph.type(pass->source) != out) return Rewrite::kUnchanged;
  const ir::ValueId x = pass->source;
  if (pass->end != out.shape.back()) return Rewrite::kUnchanged;
  if (xr != x) {
    const std::optional<LastDimSlice> rot = last_dim_slice(rebuilder, xr);
    if (!rot || rot->source != x || rot->begin != 0 || rot->end != r) return Rewrite::kUnchanged;
  }
  const ir::ValueId cos = rotary->inputs[1], sin = rotary->inputs[2];
  if (!rotary_types(graph, x, cos, sin, r)) return Rewrite::kUnchanged;
  return redefine_node(graph, node, OpKind::kRotary, {x, cos, sin}, rotary_attributes(r));
}

}  // namespace

Status recognize_rotary(ir::Graph& graph, const PassOptions& /*options*/) {
  // Use counts stay valid: every rewrite redefines a node's own value, with its uses.
  const std::vector<int32_t> uses = count_node_uses(graph);
  const std::vector<bool> is_output = graph_output_mask(graph);
  NodeRebuilder rebuilder(graph);
  for (ir::Node& node : rebuilder.old_nodes()) {
    rebuilder.rename_inputs(node);
    Expected<Rewrite> result = Rewrite::kUnchanged;
    if (node.op == OpKind::kAdd) result = embedding(rebuilder, node);
    if (node.op == OpKind::kCat) result = partial(rebuilder, uses, is_output, node);
    if (!result) return result.status();
    rebuilder.append(std::move(node));
  }
  return rebuilder.finish();
}

}  // namespace inferno::passes
