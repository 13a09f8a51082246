// Per-output-channel constants of a conv2d or gemm result, shared by fold-batch-norm and the conv
// epilogue fusion: which dim holds the channels, and a constant operand's value for each channel
// when it broadcasts along that dim only (a BatchNorm scale [O, 1, 1], a bias [O]).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/graph.h"

namespace inferno::passes {

/// The output channel dim of a conv2d (1 for nchw, 3 for nhwc) or a gemm (its last dim).
size_t channel_dim(const ir::Node& producer, const ir::TensorType& out);

/// The values of constant `v` for each of the `out.shape[dim]` channels of `out`, when `v` has
/// `out`'s dtype, a shape that broadcasts to `out`'s with every dim 1 but (possibly) `dim`, and
/// finite elements (so that folding it into weights computes what the graph computed); nullopt
/// otherwise. A one-element constant applies to every channel.
std::optional<std::vector<double>> per_channel_values(const ir::Graph& graph, ir::ValueId v,
                                                      const ir::TensorType& out, size_t dim);

/// The elements of constant `v` in order (a conv2d's bias [O]), or nullopt if `v` is no constant
/// with data.
std::optional<std::vector<double>> constant_values(const ir::Graph& graph, ir::ValueId v);

}  // namespace inferno::passes
