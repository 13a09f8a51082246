// Intermediates kept (for `infernoc verify`): every value a kernel writes becomes a graph output,
// so one run of the compiled model hands back each node's output as the device computed it.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/graph.h"

namespace inferno::codegen {

/// Appends to `graph`'s outputs the output of every node that a kernel materializes and that is
/// not already an output; layout nodes that codegen implements as views of their input
/// (views.h: no kernel writes them) and values without elements are left out. The original outputs
/// stay first and unchanged; each added output is named by its value (already unique and
/// sanitized). Returns, by output index, the node whose output it is, or -1 (an output that is a
/// graph input or constant). A graph with state is refused by the caller (its updates must stay the
/// trailing outputs).
std::vector<int32_t> keep_intermediates(ir::Graph& graph);

}  // namespace inferno::codegen
