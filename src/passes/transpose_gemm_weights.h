// transpose-gemm-weights: a gemm's constant right operand stored [K, N] (addmm's, and GPT-2's
// Conv1D weights) is stored transposed, [N, K], with trans_b set: every weight of a matrix
// product then has one layout, each output column's K values contiguous. That is the layout the
// decode step's GEMV (kernels/gemv.cuh) streams fastest, a warp per column over all 132 SMs,
// where [K, N] leaves it few blocks for N = 768; cuBLASLt reads either layout (CUBLAS_OP_T).
//
// Requires: a verified graph.
// Guarantees: no gemm has trans_b = false with a rank-2 constant-with-data right operand whose
// every use is such a gemm's right operand (a constant also read elsewhere is left alone, so that
// no weight is stored twice). Each output element is the same dot product in the same order:
// bit-identical on the reference.
#pragma once

#include "passes/pass.h"

namespace inferno::passes {

Status transpose_gemm_weights(ir::Graph& graph, const PassOptions& options);

}  // namespace inferno::passes
