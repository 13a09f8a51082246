// Legalization for the backend: the forms codegen lowers, and nothing else.
//
// Requires: a verified graph. Runs last in the default pipeline and, whatever the pipeline (also
// -O0 and --passes), before codegen: the CLI runs it on every graph it hands to the backend.
// Guarantees: no linear, addmm or matmul (each is a gemm; vector operands are reshaped to
// matrices around it), no transpose (a permute): every op left has a lowering (the op table's
// backend note says which ops this pass removes). A 1x1 conv2d that cuBLASLt can run with its
// epilogue becomes reshape + gemm + reshape (conv_as_gemm.h). Results are bit-identical on the
// reference interpreter.
#pragma once

#include "passes/pass.h"

namespace inferno::passes {

Status legalize(ir::Graph& graph, const PassOptions& options);

}  // namespace inferno::passes
