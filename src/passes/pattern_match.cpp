#include "passes/pattern_match.h"

#include <cmath>

#include "passes/rewrite.h"

namespace inferno::passes {
namespace {

/// Relative distance two roundings apart in `dtype` (2 ulp at 1).
double relative_slack(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::kF16:
      return 2.0 * 0x1p-10;
    case ir::DType::kBF16:
      return 2.0 * 0x1p-7;
    case ir::DType::kF32:
      return 2.0 * 0x1p-23;
    default:
      return 2.0 * 0x1p-52;
  }
}

void collect(const NodeRebuilder& rebuilder, ir::ValueId v, const ir::TensorType& type,
             size_t max_factors, std::vector<ir::ValueId>& out, bool& overflow) {
  if (overflow) return;
  const ir::Node* mul = rebuilder.producer(v, ir::OpKind::kMul);
  if (mul != nullptr && rebuilder.graph().type(v) == type) {
    collect(rebuilder, mul->inputs[0], type, max_factors, out, overflow);
    collect(rebuilder, mul->inputs[1], type, max_factors, out, overflow);
    return;
  }
  if (out.size() == max_factors) {
    overflow = true;
    return;
  }
  out.push_back(v);
}

}  // namespace

bool is_near_constant(const ir::Graph& graph, ir::ValueId v, double exact) {
  const std::optional<double> value = splat_constant(graph, v);
  if (!value || !std::isfinite(*value)) return false;
  const ir::DType dtype = graph.type(v).dtype;
  if (!ir::is_floating(dtype)) return *value == exact;
  return std::fabs(*value - exact) <= relative_slack(dtype) * std::fabs(exact);
}

std::optional<std::vector<ir::ValueId>> product_factors(const NodeRebuilder& rebuilder,
                                                        ir::ValueId v, const ir::TensorType& type,
                                                        size_t max_factors) {
  std::vector<ir::ValueId> factors;
  bool overflow = false;
  collect(rebuilder, v, type, max_factors, factors, overflow);
  if (overflow) return std::nullopt;
  return factors;
}

std::optional<double> scale_constant(const ir::Graph& graph, ir::ValueId c) {
  const std::optional<double> value = splat_constant(graph, c);
  if (!value || !std::isfinite(*value) || *value == 0) return std::nullopt;
  return value;
}

}  // namespace inferno::passes
