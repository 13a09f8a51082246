// fused_elementwise nodes: one generated __global__ per node that reads each input once per
// output element (broadcast by literal index arithmetic, as the unfused kernels do) and computes
// the node's expression (ir/fused_expr.h) step by step in registers.
//
// Each step computes in the type its unfused kernel would (choose_compute_type over the step's
// operand dtypes and its own dtype) and is rounded to its dtype by converting it to the dtype's
// storage type (a no-op for f32 in float, a real rounding for f16/bf16 or an integer), and every
// later use converts it back. So the fused kernel gives bit for bit what the chain of unfused
// kernels gave, and what the reference interpreter computes. Rank-0 constant inputs are
// literals of each using step's compute type.
#pragma once

#include <cstdint>

#include "codegen/emit_context.h"

namespace inferno::codegen {

/// Lowers fused_elementwise node `index`: its kernel and its launch in run().
Status emit_fused_elementwise(EmitContext& ctx, int32_t index);

}  // namespace inferno::codegen
