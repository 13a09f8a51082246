// Which hand-written kernel runs a conv2d. All of them take kernels/conv.cuh's arguments (shape,
// epilogue, activation functor) and compute the same thing, so the choice is only about speed:
//  - depthwise (groups == C, O a multiple of C): conv2d_depthwise (kernels/conv_depthwise.cuh), a
//    direct kernel: K is a handful of taps per output, which a GEMM tile would mostly pad.
//  - groups == 1: conv2d_igemm (kernels/conv_igemm.cuh), the implicit GEMM on tensor cores for
//    f16 and bf16 and tiled FMAs for f32 and f64.
//  - anything else: the direct kernel conv2d (kernels/conv.cuh): grouped convolutions (ResNeXt,
//    ShuffleNet; an implicit GEMM per group is not written yet), and shapes whose sizes or
//    coordinates need 64-bit indices (the fast kernels index in 32 bits).
// 1x1 convolutions that map onto cuBLASLt's epilogues never reach codegen as conv2d: legalize
// turned them into gemm (passes/conv_as_gemm.h).
#pragma once

#include <cstdint>

namespace inferno::codegen {

/// A conv2d's sizes, by meaning (whatever its layout).
struct ConvSizes {
  int64_t n, c, h, w, o, kh, kw, oh, ow;
  int64_t stride_h, stride_w, pad_top, pad_left, dilation_h, dilation_w, groups;
};

struct ConvKernel {
  const char* launcher;  ///< in namespace inferno::kernels
  const char* header;    ///< the kernels/ header that defines it
};

/// The kernel for `s` (see the file comment). The 32-bit limits mirror conv_igemm_fits and
/// conv_depthwise_fits in the kernels' headers.
ConvKernel choose_conv_kernel(const ConvSizes& s);

}  // namespace inferno::codegen
