#include "passes/simplify.h"

#include <cmath>
#include <optional>

#include "passes/canonicalize.h"
#include "passes/node_rebuilder.h"
#include "passes/rewrite.h"

namespace inferno::passes {
namespace {

using ir::OpKind;

/// Whether `x op c` (and `c op x` for add and mul) equals x bit for bit for every x of `x_type`.
///
/// Signed zeros: in IEEE 754, -0 + +0 = +0, so `x + 0.0` turns a -0 into +0, which a later
/// division (1 / x) tells apart. Fast-math compilers drop it anyway; we do not, because every
/// pass here is exact on the reference interpreter and a user's +0 is cheap to keep (it ends
/// up in a fused elementwise kernel). The exact identities are x + (-0) and x - (+0); integer
/// and bool x have one zero, so any zero is exact there. An integer zero constant added to a
/// float x is +0 after promotion, hence not exact.
bool is_identity(OpKind op, const ir::TensorType& x_type, const ir::Graph& graph, ir::ValueId c) {
  const std::optional<double> value = splat_constant(graph, c);
  if (!value) return false;
  const bool floating = ir::is_floating(x_type.dtype);
  switch (op) {
    case OpKind::kMul:
    case OpKind::kDiv:
      return *value == 1;
    case OpKind::kAdd:
      return *value == 0 && (!floating || std::signbit(*value));
    case OpKind::kSub:
      return *value == 0 && (!floating || !std::signbit(*value));
    default:
      return false;
  }
}

Rewrite simplify_binary(NodeRebuilder& rebuilder, const ir::Node& node) {
  const ir::Graph& graph = rebuilder.graph();
  const ir::TensorType& out = graph.type(node.outputs.front());
  for (size_t x_pos = 0; x_pos < 2; ++x_pos) {
    const size_t c_pos = 1 - x_pos;
    if (c_pos == 0 && !ir::op_has_trait(node.op, ir::kCommutative)) continue;  // 1 / x, 0 - x
    const ir::ValueId x = node.inputs[x_pos];
    // The result must be x's type: `x[4] + zeros[2,4]` broadcasts, `f16 x * f32 ones[4]` promotes.
    if (graph.type(x) == out && is_identity(node.op, out, graph, node.inputs[c_pos])) {
      return replace_node(rebuilder, node, x);
    }
  }
  return Rewrite::kUnchanged;
}

Rewrite simplify_unary(NodeRebuilder& rebuilder, const ir::Node& node) {
  const ir::ValueId x = node.inputs[0];
  const ir::Node* inner = rebuilder.producer(x);
  switch (node.op) {
    case OpKind::kNeg:
      if (inner != nullptr && inner->op == OpKind::kNeg)
        return replace_node(rebuilder, node, inner->inputs[0]);
      break;
    case OpKind::kRelu:
      // relu is idempotent, and gemm{relu} already ends in one.
      if (inner != nullptr &&
          (inner->op == OpKind::kRelu ||
           (inner->op == OpKind::kGemm && inner->attrs.get_string("activation") == "relu"))) {
        return replace_node(rebuilder, node, x);
      }
      break;
    case OpKind::kAbs:
      if (inner != nullptr && inner->op == OpKind::kAbs) return replace_node(rebuilder, node, x);
      break;
    case OpKind::kCast:
      if (node.attrs.get_dtype("dtype") == rebuilder.graph().type(x).dtype)
        return replace_node(rebuilder, node, x);
      break;
    default:
      break;
  }
  return Rewrite::kUnchanged;
}

/// The simplifications, then canonicalization: a node whose input was just simplified away
/// may now read a producer that canonicalize merges with it (permute(neg(neg(permute(x))))).
Expected<Rewrite> simplify_node(NodeRebuilder& rebuilder, ir::Node& node) {
  Rewrite result = Rewrite::kUnchanged;
  switch (node.op) {
    case OpKind::kAdd:
    case OpKind::kSub:
    case OpKind::kMul:
    case OpKind::kDiv:
      result = simplify_binary(rebuilder, node);
      break;
    case OpKind::kNeg:
    case OpKind::kRelu:
    case OpKind::kAbs:
    case OpKind::kCast:
      result = simplify_unary(rebuilder, node);
      break;
    default:
      break;
  }
  if (result != Rewrite::kUnchanged) return result;
  return canonicalize_node(rebuilder, node);
}

}  // namespace

Status simplify(ir::Graph& graph, const PassOptions& /*options*/) {
  return rewrite_nodes(graph, &simplify_node);
}

}  // namespace inferno::passes
