// A 1x1 convolution as a GEMM, so that it runs on cuBLASLt: a rule of the legalize pass.
//
// conv2d with a 1x1 kernel, stride 1, no padding, groups 1, no gate and no residual multiplies
// each pixel's channel vector by the [O, C] weight matrix:
//   nhwc: x [N, H, W, C] as [N*H*W, C] @ w[O, C]^T (trans_b) -> [N*H*W, O], the bias a row vector
//         (cuBLASLt's bias epilogue);
//   nchw: w [O, C] @ x as [N, C, H*W] -> [N, O, H*W], one weight matrix for every image, the bias
//         an [O, 1] column (copied into the output, which cuBLASLt then reads as C);
// then a reshape back to the conv's output; the bias is the gemm's c. Only activations "none" and
// "relu" move: the gemm rounds its sum before a GELU where the conv rounds once (ops.def). A conv
// with a residual, a gate or another activation stays a conv2d, on the implicit-GEMM kernel, which
// applies its whole epilogue in registers and rounds once; cuBLASLt would round twice with a
// residual (on an H100, f16 and bf16 GEMMs with the bias epilogue and a C matrix were off by an
// f16/bf16 rounding of the sum before the bias), and in NCHW would add the bias column in a second
// pass over the output (emit_gemm.h). With none and relu the gemm adds the same terms in the same
// order as the conv, so results are bit-identical on the reference interpreter.
#pragma once

#include "passes/node_rebuilder.h"

namespace inferno::passes {

/// The rule: rewrites a conv2d that qualifies (above) into reshape + gemm + reshape; leaves every
/// other node unchanged.
Expected<Rewrite> pointwise_conv_as_gemm(NodeRebuilder& rebuilder, ir::Node& node);

}  // namespace inferno::passes
