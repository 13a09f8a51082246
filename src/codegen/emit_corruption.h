// A deliberately wrong kernel, for testing `infernoc verify` itself (its hidden --corrupt-node
// flag, CodegenOptions::corrupt_node): after the kernel that writes the named node's output, one
// bit of that output's element 0 is flipped on the device, so a GPU test can check that verify
// names exactly that node. Never emitted unless the option is set. Internal to src/codegen/.
#pragma once

#include <cstdint>
#include <string>

#include "codegen/emit_context.h"
#include "codegen/views.h"
#include "ir/graph.h"
#include "support/status.h"

namespace inferno::codegen {

/// The index of the node named `name` (its output's name, matched exactly) whose output a kernel
/// writes and has elements; an invalid-input error when there is none.
Expected<int32_t> find_corrupted_node(const ir::Graph& graph, const ViewPlan& views,
                                      const std::string& name);

/// Appends to run() the launch that flips the bit (and, at file scope, its kernel): the high byte
/// of element 0 gets its 0x40 bit flipped (an exponent bit of a float, far outside any
/// tolerance), a bool's byte its low bit.
void emit_corruption(EmitContext& ctx, int32_t node_index);

}  // namespace inferno::codegen
