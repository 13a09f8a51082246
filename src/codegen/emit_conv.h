// conv2d and conv_transpose2d lowered to launches of hand-written kernels: conv2d with its whole
// epilogue (bias, residual, gate, the activation as a functor made from the op's ops.def
// expression) and either layout, on the implicit GEMM, the depthwise or the direct kernel
// (conv_kernel_choice.h); conv_transpose2d on the direct gather kernel of kernels/conv.cuh, with
// its bias.
#pragma once

#include <cstdint>

#include "codegen/emit_context.h"
#include "codegen/lowering.h"

namespace inferno::codegen {

Status emit_conv(EmitContext& ctx, int32_t index);

/// conv2d and conv_transpose2d, as calls of kernels/conv.cuh.
void register_conv_lowerings(LoweringTable& table);

}  // namespace inferno::codegen
