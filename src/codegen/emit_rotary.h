// rotary lowered to one generated grid kernel: each thread computes one output element from x,
// its partner in the other half of the rotated width, and its cos and sin, reading all three
// inputs through their views (views.h), so q and k sliced and permuted out of a fused QKV
// projection are read in place.
#pragma once

#include <cstdint>

#include "codegen/emit_context.h"
#include "codegen/lowering.h"

namespace inferno::codegen {

Status emit_rotary(EmitContext& ctx, int32_t index);

/// rotary, as a generated kernel that never writes over its inputs (a thread reads its
/// partner's x, which another thread writes).
void register_rotary_lowerings(LoweringTable& table);

}  // namespace inferno::codegen
