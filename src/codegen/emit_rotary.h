// rotary lowered to one generated grid kernel: each thread computes one output element from x,
// its partner in the other half of the rotated width, and its cos and sin, reading all three
// inputs through their views (views.h), so q and k sliced and permuted out of a fused QKV
// projection are read in place; k's kernel writes its rows straight into the KV cache when the
// cache's in-place index_copy is all that reads it (rotary_row_target).
#pragma once

#include <cstdint>

#include "codegen/emit_context.h"
#include "codegen/lowering.h"

namespace inferno::codegen {

Status emit_rotary(EmitContext& ctx, int32_t index);

/// The index_copy node that rotary node `rotary` writes its result into, row by row at the
/// index's positions, instead of into its own buffer; -1 when it does not. It does when that
/// index_copy is its output's only reader (as the source; the output no graph output) and writes
/// a state in place (an LLM's KV cache, memory_plan.h: the state's only reader, so nothing reads
/// the old rows after the rotary), and the index is computed before the rotary runs. The
/// index_copy then launches nothing (k's rotary writes the cache's new row directly).
int32_t rotary_row_target(const EmitContext& ctx, int32_t rotary);

/// rotary, as a generated kernel that never writes over its inputs (a thread reads its
/// partner's x, which another thread writes).
void register_rotary_lowerings(LoweringTable& table);

}  // namespace inferno::codegen
