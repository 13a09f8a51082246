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
// Cost: a consumer that reads its inputs through views (attention: src/codegen/views.h) reads a
// slice, and the reshapes and permutes after it, in place in the fused output; for other
// consumers (fused elementwise kernels, gemms) codegen still copies the slice into a buffer of
// its own, so that branch's output is written twice, against one GEMM launch and one read of a
// instead of several.
#pragma once

#include "passes/pass.h"

namespace inferno::passes {

Status fuse_parallel_gemms(ir::Graph& graph, const PassOptions& options);

}  // namespace inferno::passes
