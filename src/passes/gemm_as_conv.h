// gemm-as-conv: a 16-bit GEMM whose activation the cuBLASLt path applies in a second kernel (gelu,
// gelu_tanh; cuBLASLt's own epilogue does relu) runs as a 1x1 channels-last conv2d instead, so the
// implicit GEMM's tensor-core kernels (kernels/conv_igemm_pipelined.cuh, conv_igemm_wgmma.cuh)
// apply bias, activation and residual in their epilogue, where the cuBLASLt path writes the
// product and then reads and rewrites it in a second kernel (emit_gemm.cpp's in-place epilogue).
// ConvNeXt's MLPs (Linear, GELU over NHWC activations) are the case: at batch 32 the first stage's
// [100352, 96] x [96, 384] product writes 77 MB that the GELU pass reads and writes again.
//
// A gemm qualifies with an f16 or bf16 output, trans_b (an [N, K] weight, as linear's), a
// constant rank-2 weight, alpha 1, K a multiple of 8 and at most kGemmAsConvMaxK, an activation
// a conv2d applies other than none and relu (cuBLASLt's epilogue does those), and as addends at
// most a constant bias [N] (beta 1) and a residual of the output's shape (coefficient 1); every
// arch of the target sm_80 or later (the pipelined kernels'). Beyond kGemmAsConvMaxK the product is
// bound by its math, where cuBLASLt's kernels are faster than the implicit GEMM's (0.37-0.94 of
// cuBLAS on ResNet-50's 3x3 convs, docs/benchmarks.md) by more than the second pass costs.
//
// x [..., K] becomes a view [1, 1, M, K] (M = the product of its other dims), the weight a new
// constant [N, 1, 1, K] (OHWI, the same bytes), a residual a view [1, 1, M, N], and the output a
// view back of the conv's [1, 1, M, N].
//
// Not in the default pipeline: measured once on an H100 (ConvNeXt-Tiny, fp16, batch 32, sm_90a,
// inferno-run's median of 200), the library with the pass took 2.988 ms against 2.942 ms
// without: the conv kernels lost more on these products than the second pass cost. Not profiled
// yet, and its outputs on the GPU are not checked by that run (ConvNeXt's layer scale of 1e-6 at
// initialization hides the MLP branch in the logits). `--passes ...,pad-conv-channels,
// gemm-as-conv,cse,...` runs it.
//
// Requires: a verified graph, after convert-precision (the 16-bit dtypes) and fuse-epilogues
// (the gemm's activation and addends), after assign-layout (its conv is NHWC already); before
// legalize, which leaves a 1x1 conv2d with such an activation to the conv kernels.
// Guarantees: no qualifying gemm remains. On the reference the conv sums the same K products in
// float in another order and applies the activation before its one rounding, where the gemm rounds
// the sum first (as cuBLASLt's output does): closer to the f32 result, not bit for bit the gemm's.
#pragma once

#include <cstdint>

#include "passes/pass.h"

namespace inferno::passes {

inline constexpr int64_t kGemmAsConvMaxK = 256;

Status gemm_as_conv(ir::Graph& graph, const PassOptions& options);

}  // namespace inferno::passes
