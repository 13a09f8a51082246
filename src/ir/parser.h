// Parses the IR text form written by print_graph (grammar in docs/ir.md).
#pragma once

#include <string_view>

#include "ir/graph.h"
#include "support/status.h"

namespace inferno::ir {

/// Parses `text` into a graph and runs the verifier on it. Errors are invalid-input Statuses
/// whose message starts with "line:column: ".
Expected<Graph> parse_graph(std::string_view text);

}  // namespace inferno::ir
