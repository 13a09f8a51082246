// The resizing ops (upsample_nearest2d, upsample_bilinear2d), lowered to launches of
// kernels/upsample.cuh's upsample2d with the node's sizes and scale factors as literals.
#pragma once

#include <cstdint>

#include "codegen/emit_context.h"
#include "codegen/lowering.h"

namespace inferno::codegen {

Status emit_upsample(EmitContext& ctx, int32_t index);

/// upsample_nearest2d and upsample_bilinear2d.
void register_resize_lowerings(LoweringTable& table);

}  // namespace inferno::codegen
