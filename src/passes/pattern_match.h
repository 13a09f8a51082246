// Small matchers shared by the passes that recognize a computation spelled out in elementwise
// ops (recognize-gelu, recognize-rms-norm, recognize-attention): constants that equal a known
// number up to the rounding of their dtype, and the factors of a tree of multiplications.
#pragma once

#include <optional>
#include <vector>

#include "ir/graph.h"
#include "passes/node_rebuilder.h"

namespace inferno::passes {

/// Whether `v` is a constant all of whose elements are one value that equals `exact` up to the
/// rounding of the constant's dtype (a couple of units in the last place: a model may compute
/// sqrt(2 / pi) in its own precision).
bool is_near_constant(const ir::Graph& graph, ir::ValueId v, double exact);

/// The factors of `v` as a product: v itself, or, where an appended node defines v as mul(a, b)
/// whose result has type `type`, the factors of a and of b (left to right). At most `max_factors`
/// leaves; nullopt when there would be more.
std::optional<std::vector<ir::ValueId>> product_factors(const NodeRebuilder& rebuilder,
                                                        ir::ValueId v, const ir::TensorType& type,
                                                        size_t max_factors);

/// The one-element-per-value constant `c` (a splat) as a finite, nonzero scale factor that
/// multiplies or divides a value of type `type` without changing its type (no broadcasting, no
/// promotion): checked by the caller through the node's output type. nullopt otherwise.
std::optional<double> scale_constant(const ir::Graph& graph, ir::ValueId c);

}  // namespace inferno::passes
