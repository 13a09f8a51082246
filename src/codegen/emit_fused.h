// Elementwise nodes, fused or single: one generated __global__ per node that reads each input
// once per output element (broadcast, and through the strides of a view the input is (views.h),
// by literal index arithmetic) and computes the node's body
// (ir/fused_expr.h; a single elementwise op is a body of one step) one line per step:
//
//   const float x0 = __half2float(in0[i]);               // each input, once
//   const float s0 = __half2float(__float2half_rn(x0 * 0.5f));  // #0 = mul($0, $1) -> f16
//   out[i] = __float2half_rn(s0);
//
// Each step's expression is its op's row in ops.def, computed in the type the reference would
// (elementwise_table.h) and rounded to the step's dtype, so the kernel gives bit for bit what the
// unfused ops gave, up to float-vs-double evaluation of transcendental functions. Rank-0
// constant inputs are literals of each using step's compute type.
#pragma once

#include <cstdint>

#include "codegen/emit_context.h"
#include "codegen/lowering.h"
#include "ir/fused_expr.h"

namespace inferno::codegen {

/// The body (ir/fused_expr.h) of elementwise or fused_elementwise `node`, typed for its inputs,
/// or the node's invalid or unsupported status.
Expected<ir::FusedExpr> typed_body(const EmitContext& ctx, const ir::Node& node);

/// Writes to `body` one line per step of `expr` (node's typed body), `const float s3 = ...;`, each
/// in its compute type and rounded to its dtype, from inputs held as x0, x1, ... in their value
/// types (rank-0 constant inputs are literals). Returns the last step's name, or the node's
/// unsupported status (a step with no form in its compute type).
Expected<std::string> write_fused_steps(const EmitContext& ctx, const ir::Node& node,
                                        const ir::FusedExpr& expr, SourceWriter& body);

/// Lowers elementwise or fused_elementwise node `index`: its kernel and its launch in run().
Status emit_elementwise(EmitContext& ctx, int32_t index);

/// Every elementwise op and fused_elementwise.
void register_elementwise_lowerings(LoweringTable& table);

}  // namespace inferno::codegen
