// cumsum as a generated grid kernel: one thread per line along the dim, which it walks in order
// (a running sum is sequential per line; the lines are independent).
#pragma once

#include <cstdint>

#include "codegen/emit_context.h"
#include "codegen/lowering.h"

namespace inferno::codegen {

Status emit_cumsum(EmitContext& ctx, int32_t index);

/// cumsum.
void register_cumsum_lowerings(LoweringTable& table);

}  // namespace inferno::codegen
