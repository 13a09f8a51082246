// fuse-norm-gemv: a layer_norm or rms_norm over x's last dim whose every reader is a
// decode-shaped gemm taking it as its left operand becomes part of each such gemm, a norm_gemm
// (ops.def): the GEMV (kernels/gemv.cuh) normalizes its rows of x itself, and the norm's launch
// is gone. In an LLM's decode step each layer's two norms (before the attention's q/k/v product
// and before the MLP's first product) and the final one (before the LM head) qualify.
//
// A gemm qualifies when codegen will run it as the GEMV with a weight stored [N, K]:
//  - trans_b (gemv_nk; transpose-gemm-weights gives nearly every decode weight this layout). The
//    [K, N] kernel, gemv_kn, splits K over its threads, so each thread would need the norm of
//    rows of x it never otherwise reads; it is left unfused;
//  - a rank-2 weight (one batch), f32, f16 or bf16, at most target::kGemvLimits.max_rows rows of x
//    and those rows small enough to be staged normalized in shared memory
//    (target::gemv_norm_fits), N within an int;
//  - its addends fit the GEMV's slots (target::gemv_addend_slots).
// A norm without its weight (or a layer_norm without its bias: a model whose norm weights are
// still their initial ones and zeros has them simplified away) folds with a constant of ones
// (zeros) in their place; the product is unchanged.
// Left alone: a norm any other node or a graph output reads (a residual add), a reader that takes
// the cuBLASLt path (a prefill variant with 128 rows), a norm over more than the last dim.
//
// Requires: a verified graph; after transpose-gemm-weights (which sets trans_b) and
// fuse-epilogues (which gives the gemm its addends and activation first).
// Guarantees: no layer_norm or rms_norm whose readers are all such gemms remains; on the
// reference every output is bit-identical (norm_gemm is the norm, rounded, then the gemm).
#pragma once

#include "passes/pass.h"

namespace inferno::passes {

Status fuse_norm_gemv(ir::Graph& graph, const PassOptions& options);

}  // namespace inferno::passes
