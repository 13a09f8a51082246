// reduce_max/reduce_min and argmax/argmin as generated grid kernels: one thread per output
// element, which walks its reduced elements in order (first index wins, NaN sticks), in the
// dtype's register type. Simple and exact; a full reduction of a large tensor runs on one thread.
#pragma once

#include <cstdint>

#include "codegen/emit_context.h"
#include "codegen/lowering.h"

namespace inferno::codegen {

Status emit_reduce_extremum(EmitContext& ctx, int32_t index);
Status emit_arg_extremum(EmitContext& ctx, int32_t index);

/// reduce_max, reduce_min, argmax and argmin.
void register_extrema_lowerings(LoweringTable& table);

}  // namespace inferno::codegen
