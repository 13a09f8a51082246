// The joins, as generated grid kernels (emit_grid_kernel.h) over the output's elements, exact for
// every dtype (elements are copied): cat picks each element's input by its index along `dim`;
// constant_pad reads the input where the element maps into it, the rank-0 fill elsewhere. cat's
// inputs and index_copy's source are read through their strides when they are views (views.h).
#pragma once

#include <cstdint>

#include "codegen/emit_context.h"
#include "codegen/lowering.h"

namespace inferno::codegen {

Status emit_cat(EmitContext& ctx, int32_t index);
Status emit_constant_pad(EmitContext& ctx, int32_t index);
Status emit_index_select(EmitContext& ctx, int32_t index);

/// True when index_copy `index`'s rows are written by the rotary kernel that computes its source
/// (emit_rotary.h): it launches nothing of its own.
bool rows_written_by_rotary(const EmitContext& ctx, int32_t index);

/// cat, constant_pad, index_select and index_copy.
void register_join_lowerings(LoweringTable& table);

}  // namespace inferno::codegen
