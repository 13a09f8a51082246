// layer_norm, rms_norm and group_norm lowered to launches of the hand-written row kernels in
// kernels/norm.cuh.
#pragma once

#include <cstdint>

#include "codegen/emit_context.h"
#include "codegen/lowering.h"

namespace inferno::codegen {

Status emit_norm(EmitContext& ctx, int32_t index);

/// layer_norm, rms_norm and group_norm, as calls of kernels/norm.cuh.
void register_norm_lowerings(LoweringTable& table);

}  // namespace inferno::codegen
