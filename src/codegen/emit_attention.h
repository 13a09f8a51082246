// attention lowered to one launch of the flash-attention kernels in kernels/attention.cuh.
#pragma once

#include <cstdint>

#include "codegen/emit_context.h"
#include "codegen/lowering.h"

namespace inferno::codegen {

Status emit_attention(EmitContext& ctx, int32_t index);

/// attention, as a call of kernels/attention.cuh.
void register_attention_lowerings(LoweringTable& table);

}  // namespace inferno::codegen
