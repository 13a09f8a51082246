// conv2d lowered to a launch of the hand-written direct kernel in kernels/conv.cuh, with the bias
// fused.
#pragma once

#include <cstdint>

#include "codegen/emit_context.h"
#include "codegen/lowering.h"

namespace inferno::codegen {

Status emit_conv2d(EmitContext& ctx, int32_t index);

/// conv2d, as a call of kernels/conv.cuh.
void register_conv_lowerings(LoweringTable& table);

}  // namespace inferno::codegen
