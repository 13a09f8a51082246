// Building typed nodes: the one way frontends and passes add nodes to a graph.
#pragma once

#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "support/status.h"

namespace inferno::ir {

/// Appends `op(inputs) {attrs}` to `graph`, typing its outputs with the op's shape rule. On a
/// shape/dtype error nothing is added and the Status names the node and its source location.
/// The first output is named after `name_hint`.
Expected<std::vector<ValueId>> build_node(Graph& graph, OpKind op, std::vector<ValueId> inputs,
                                          Attributes attrs, std::string_view name_hint,
                                          SourceLocation loc = {});

/// build_node for single-output ops.
Expected<ValueId> build_value(Graph& graph, OpKind op, std::vector<ValueId> inputs,
                              Attributes attrs, std::string_view name_hint,
                              SourceLocation loc = {});

/// A rank-0 constant holding `value` converted to `dtype`.
ValueId add_scalar_constant(Graph& graph, double value, DType dtype,
                            std::string_view name_hint = "scalar");

}  // namespace inferno::ir
