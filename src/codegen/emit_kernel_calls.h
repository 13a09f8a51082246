// Nodes lowered to launchers of the hand-written kernels in kernels/: transpose, permute and
// expand (strided_copy), sum and mean (reduce_sum, after a permuting copy into scratch when the
// reduced dims are not adjacent), softmax and log_softmax (softmax); and the copies into graph
// outputs that no node writes directly.
#pragma once

#include <cstdint>
#include <string>

#include "codegen/emit_context.h"
#include "codegen/lowering.h"
#include "codegen/strided_view.h"

namespace inferno::codegen {

Status emit_layout(EmitContext& ctx, int32_t index);
/// reshape: a view, no code (the memory plan gives it its input's bytes).
Status emit_view(EmitContext& ctx, int32_t index);
Status emit_reduction(EmitContext& ctx, int32_t index);
Status emit_softmax(EmitContext& ctx, int32_t index);
/// The copies of MemoryPlan::output_copies, at the end of run().
void emit_output_copies(EmitContext& ctx);

/// Copies `numel` elements of `dtype` from pointer expression `in` to `out` through a view:
/// strided_copy (a bit copy for every dtype) when the coalesced view has at most kMaxRank dims,
/// else a generated gather kernel named `kernel_name`.
void emit_copy(EmitContext& ctx, ir::DType dtype, const StridedView& view, int64_t numel,
               const std::string& in, const std::string& out, const std::string& label,
               const std::string& kernel_name, const std::string& comment);

/// Layout ops, reductions and softmax, as calls of the hand-written kernels.
void register_kernel_call_lowerings(LoweringTable& table);

}  // namespace inferno::codegen
