#include "passes/recognize_gelu.h"

#include <cmath>
#include <optional>
#include <vector>

#include "passes/node_rebuilder.h"
#include "passes/pattern_match.h"

namespace inferno::passes {
namespace {

using ir::OpKind;

constexpr double kSqrt2OverPi = 0.79788456080286535588;
constexpr double kSqrt2 = 1.41421356237309504880;

/// If `v` is add(1, t) or add(t, 1) of `type` with t produced by `op`, that producer.
const ir::Node* one_plus(const NodeRebuilder& rebuilder, ir::ValueId v, OpKind op,
                         const ir::TensorType& type) {
  const ir::Node* add = rebuilder.producer(v, OpKind::kAdd);
  if (add == nullptr || rebuilder.graph().type(v) != type) return nullptr;
  for (size_t i = 0; i < 2; ++i) {
    if (!is_near_constant(rebuilder.graph(), add->inputs[i], 1.0)) continue;
    const ir::Node* inner = rebuilder.producer(add->inputs[1 - i], op);
    if (inner != nullptr && rebuilder.graph().type(add->inputs[1 - i]) == type) return inner;
  }
  return nullptr;
}

/// Whether `v` is c * x^3 with c = 0.044715: factors {c, pow(x, 3)} or {c, x, x, x}.
bool is_cubic_term(const NodeRebuilder& rebuilder, ir::ValueId v, ir::ValueId x,
                   const ir::TensorType& type) {
  const auto factors = product_factors(rebuilder, v, type, 4);
  if (!factors) return false;
  const ir::Graph& graph = rebuilder.graph();
  int constants = 0, xs = 0, cubes = 0;
  for (ir::ValueId f : *factors) {
    if (is_near_constant(graph, f, 0.044715)) {
      ++constants;
    } else if (f == x) {
      ++xs;
    } else if (const ir::Node* pow = rebuilder.producer(f, OpKind::kPow);
               pow != nullptr && pow->inputs[0] == x && graph.type(f) == type &&
               is_near_constant(graph, pow->inputs[1], 3.0)) {
      ++cubes;
    } else {
      return false;
    }
  }
  return constants == 1 && ((xs == 3 && cubes == 0) || (xs == 0 && cubes == 1));
}

/// Whether `u` is sqrt(2 / pi) * (x + 0.044715 x^3), the sum either way round.
bool is_tanh_argument(const NodeRebuilder& rebuilder, ir::ValueId u, ir::ValueId x,
                      const ir::TensorType& type) {
  const auto factors = product_factors(rebuilder, u, type, 2);
  if (!factors || factors->size() != 2) return false;
  const ir::Graph& graph = rebuilder.graph();
  for (size_t i = 0; i < 2; ++i) {
    if (!is_near_constant(graph, (*factors)[i], kSqrt2OverPi)) continue;
    const ir::ValueId sum = (*factors)[1 - i];
    const ir::Node* add = rebuilder.producer(sum, OpKind::kAdd);
    if (add == nullptr || graph.type(sum) != type) return false;
    for (size_t j = 0; j < 2; ++j) {
      if (add->inputs[j] == x && is_cubic_term(rebuilder, add->inputs[1 - j], x, type)) return true;
    }
  }
  return false;
}

/// Whether `w` is x / sqrt(2) or x * (1 / sqrt(2)).
bool is_erf_argument(const NodeRebuilder& rebuilder, ir::ValueId w, ir::ValueId x,
                     const ir::TensorType& type) {
  const ir::Graph& graph = rebuilder.graph();
  if (graph.type(w) != type) return false;
  if (const ir::Node* div = rebuilder.producer(w, OpKind::kDiv)) {
    return div->inputs[0] == x && is_near_constant(graph, div->inputs[1], kSqrt2);
  }
  const auto factors = product_factors(rebuilder, w, type, 2);
  if (!factors || factors->size() != 2) return false;
  for (size_t i = 0; i < 2; ++i) {
    if ((*factors)[i] == x && is_near_constant(graph, (*factors)[1 - i], 1.0 / kSqrt2)) return true;
  }
  return false;
}

Expected<Rewrite> recognize(NodeRebuilder& rebuilder, ir::Node& node) {
  if (node.op != OpKind::kMul) return Rewrite::kUnchanged;
  const ir::Graph& graph = rebuilder.graph();
  const ir::TensorType& type = graph.type(node.outputs.front());
  if (!ir::is_floating(type.dtype)) return Rewrite::kUnchanged;
  // The factors of the whole product: node's own inputs, each possibly a product itself.
  std::vector<ir::ValueId> factors;
  for (ir::ValueId in : node.inputs) {
    const auto part = product_factors(rebuilder, in, type, 3);
    if (!part || factors.size() + part->size() > 3) return Rewrite::kUnchanged;
    factors.insert(factors.end(), part->begin(), part->end());
  }
  if (factors.size() != 3) return Rewrite::kUnchanged;
  for (size_t half = 0; half < 3; ++half) {
    if (!is_near_constant(graph, factors[half], 0.5)) continue;
    for (size_t xi = 0; xi < 3; ++xi) {
      if (xi == half) continue;
      const ir::ValueId x = factors[xi], rest = factors[3 - half - xi];
      if (graph.type(x) != type) continue;
      if (const ir::Node* tanh = one_plus(rebuilder, rest, OpKind::kTanh, type);
          tanh != nullptr && is_tanh_argument(rebuilder, tanh->inputs[0], x, type)) {
        return redefine_node(graph, node, OpKind::kGeluTanh, {x}, {});
      }
      if (const ir::Node* erf = one_plus(rebuilder, rest, OpKind::kErf, type);
          erf != nullptr && is_erf_argument(rebuilder, erf->inputs[0], x, type)) {
        return redefine_node(graph, node, OpKind::kGelu, {x}, {});
      }
    }
  }
  return Rewrite::kUnchanged;
}

}  // namespace

Status recognize_gelu(ir::Graph& graph, const PassOptions& /*options*/) {
  return rewrite_nodes(graph, &recognize);
}

}  // namespace inferno::passes
