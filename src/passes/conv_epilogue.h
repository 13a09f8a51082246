// The conv2d half of fuse-epilogues (fuse_epilogues.h states the guarantees): merges a conv2d's
// consumer into the conv2d's epilogue (ops.def: activation(conv(x * gate, w) + bias + residual)),
// and a squeeze-and-excitation mul into the conv2d that reads it, as a gate.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/graph.h"
#include "passes/node_rebuilder.h"
#include "support/status.h"

namespace inferno::passes {

/// `node` merged with the conv2d it reads (a bias or residual add, an activation), or a conv2d
/// `node` with the mul producing its input as the gate; nullopt when neither applies. `uses` and
/// `is_output` describe the graph before the pass (a merged node defines its consumer's outputs,
/// so they stay valid).
Expected<std::optional<ir::Node>> fuse_conv_epilogue(NodeRebuilder& rebuilder,
                                                     const std::vector<int32_t>& uses,
                                                     const std::vector<bool>& is_output,
                                                     const ir::Node& node);

}  // namespace inferno::passes
