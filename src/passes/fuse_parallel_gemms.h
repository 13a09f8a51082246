// fuse-parallel-gemms: gemms that read the same input with constant weights become one gemm over
// the weights side by side, followed by a slice per original gemm: a transformer's q, k and v
// projections (BERT, Llama) and Llama's gate and up projections are one GEMM launch instead of
// three or two, and the input is read once.
//
// Requires: a verified graph after fuse-epilogues (each gemm carries its own epilogue by then, so
// that only gemms whose epilogues agree are fused).
// Guarantees: no two gemms g1, g2 remain that read the same a and have
//   - b a rank-2 constant with data, of one dtype, and the same K (b [N, K] with trans_b, [K, N]
//     without), the same trans_b, alpha, beta and activation;
//   - no addend, or a rank-1 constant bias c [N] (of b's dtype), the biased ones with one beta
//     (Whisper's k projection has no bias where q and v have one);
//   - no residual d (a d differs per branch: the output is not a sum of per-branch pieces).
// Such a group becomes gemm(a, B, C) with B the b's concatenated along N (dim 0 with trans_b,
// dim 1 without) and C the biases concatenated (a member without one contributing zeros of the
// sign that makes beta * 0 = -0.0, which adds exactly), placed at the first member's position; each
// member's value is then slice(fused) along the last dim (its name and uses stay). Every output
// element is the same dot product, bias and activation as before: bit-identical on the reference.
// Cost: codegen copies a slice along the last dim (a strided read into a new buffer), so each
// branch's output is written twice (the GEMM's output and the slice), against one GEMM launch
// and one read of a instead of several; consumers reading the fused output as a strided view
// would remove the copies (not done yet).
#pragma once

#include "passes/pass.h"

namespace inferno::passes {

Status fuse_parallel_gemms(ir::Graph& graph, const PassOptions& options);

}  // namespace inferno::passes
