// Pooling nodes (max_pool2d, avg_pool2d, adaptive_avg_pool2d, adaptive_max_pool2d), lowered to
// launches of kernels/pool.cuh's pool2d with the node's geometry as literal arguments.
#pragma once

#include <cstdint>

#include "codegen/emit_context.h"
#include "codegen/lowering.h"

namespace inferno::codegen {

/// Lowers pooling node `index`: one pool2d launch in run().
Status emit_pool(EmitContext& ctx, int32_t index);

/// The pooling family.
void register_pool_lowerings(LoweringTable& table);

}  // namespace inferno::codegen
