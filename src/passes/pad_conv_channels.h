// pad-conv-channels: a 16-bit channels-last convolution whose input channels are not a multiple
// of 8 (an image's 3: every CNN's stem) reads them zero-padded to the next multiple, so that a
// pixel's channels are whole 16-byte pieces and the convolution runs on the implicit GEMM's
// tensor-core kernels (kernels/conv_igemm_plan.h: plan kNhwcVecAW) instead of its element-wise
// loads. x becomes constant_pad(x) over its last dim, the constant OHWI weight a new constant with
// zero columns; the extra products are zeros, so the sum is unchanged (ResNet-50's 7x7 stem at
// batch 32: K = 147 becomes 392, measured in docs/benchmarks.md).
//
// A conv2d qualifies with layout "nhwc", groups 1, an f16 or bf16 input of at least 64 pixels an
// image (not a squeeze-and-excitation conv over [N, 1, 1, C]), no gate (its gate's channels
// would need the padding too) and a constant weight with data.
//
// Requires: a verified graph, after assign-layout (which makes the NHWC convolutions).
// Guarantees: no qualifying conv2d remains; on the reference every output keeps its value (the
// extra products are exact zeros added after the real terms; a sum of zeros may lose its sign).
#pragma once

#include "passes/pass.h"

namespace inferno::passes {

Status pad_conv_channels(ir::Graph& graph, const PassOptions& options);

}  // namespace inferno::passes
