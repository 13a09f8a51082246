// The IR text form. `print_graph` and `parse_graph` (ir/parser.h) round-trip exactly:
// print(parse(print(g))) == print(g). The grammar is documented in docs/ir.md.
#pragma once

#include <cstdint>
#include <string>

#include "ir/graph.h"

namespace inferno::ir {

struct PrintOptions {
  /// Constants with more elements print as `constant <elided>` (they parse back as constants
  /// without data). Negative: print every constant in full.
  int64_t max_constant_elements = -1;
};

std::string print_graph(const Graph& graph, const PrintOptions& options = {});

}  // namespace inferno::ir
