// Decode-shaped GEMMs (M <= 8 rows, one batch) through the GEMV kernels of kernels/gemv.cuh, with
// the whole epilogue in the same kernel: out = activation(alpha * sum + row + full), rounded once.
//
// emit_gemm plans the product in row-major terms and hands it here; the GEMV path takes it when
//  - batch 1, 1 <= M <= 8 and N, K below 2^31;
//  - f32, f16 or bf16 (f64 keeps cuBLASLt's 64F compute), every operand of the output's dtype;
//    f32 under --precision tf32 too: exact f32 FMAs, more accurate than TF32's 10-bit products;
//  - each addend (with any coefficient) is a row vector of the output's N values (a bias, read
//    at [n]) or has the output's full shape in its layout (a residual, read at [m, n]): at most
//    one of each (with M = 1 a row vector fills either);
//  - the activation is "none" or any gemm epilogue activation (relu, gelu, silu, ...), applied
//    to the f32 value as its elementwise expression.
// Anything else keeps the cuBLASLt path exactly as before (emit_gemm.h). A norm_gemm (the rows of
// x normalized first, passes/fuse_norm_gemv.h) calls gemv_nk_norm and has no other path.
//
// Code: one generated __global__ per GEMM that calls gemv_nk (weight stored [N, K]) or gemv_kn
// ([K, N]) with the tile parameters the header's constexpr functions choose from the literal
// shape, and the activation as a lambda around its inlined expression, so the kernel is compiled
// for exactly this shape and epilogue (no functor type or table per activation). The launch is a
// MODEL_LAUNCH (a dependent launch where the device allows it) of "k<node>_gemv_<nk|kn>_<dtype>_
// <M>x<K>x<N>", which --emit profile-plan shows as "gemv_kn_f16_1x768x2304". A GEMV whose node
// has a weight in ctx.gemv_prefetch (the next GEMV's, plan_gemv_prefetches in emit_gemm.h) also
// takes that weight and its byte count (capped at run time by l2_prefetch_bytes) and asks L2 for
// it as it starts (kernels/l2_prefetch.cuh).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "codegen/emit_context.h"

namespace inferno::codegen {

/// One term added to the product: coefficient * value.
struct GemvTerm {
  ir::ValueId value = ir::kNoValue;
  double coefficient = 1.0;
};

/// A norm_gemm's normalization of left's rows before the product (gemv_nk_norm).
struct GemvNorm {
  bool rms = false;                                        ///< rms_norm; otherwise layer_norm
  ir::ValueId weight = ir::kNoValue, bias = ir::kNoValue;  ///< [K]; bias: layer_norm's
  double eps = 0.0;
};

/// A GEMM as emit_gemm planned it, in row-major terms: out[M, N] = alpha * left[M, K] @ W + terms,
/// W = right (stored [N, K] when right_is_nk, else [K, N]); with `norm`, left's rows normalized
/// first.
struct GemvProduct {
  ir::ValueId left = ir::kNoValue, right = ir::kNoValue;
  int64_t m = 0, n = 0, k = 0, batch = 1;
  bool right_is_nk = false;
  double alpha = 1.0;
  std::vector<GemvTerm> terms;
  std::optional<GemvNorm> norm;
};

/// Whether an addend of type `addend` holds the output's elements in the output's own order (the
/// output's shape, or one that broadcasts to it without repeating an element): cuBLASLt's C matrix
/// and the GEMV's residual.
bool has_output_layout(const ir::TensorType& addend, const ir::TensorType& out);

/// Whether node (a gemm or norm_gemm) takes the GEMV path (the rules above; with a norm also an
/// [N, K] weight and rows that fit target::gemv_norm_fits).
bool gemv_fits(const ir::Graph& graph, const ir::Node& node, const GemvProduct& product);

/// Emits the GEMV kernel of node `index` and its launch (gemv_fits must hold; the output is not
/// empty); with a pair target (gemv_pairs.h), the kernel writes that node's values instead.
Status emit_gemv(EmitContext& ctx, int32_t index, const GemvProduct& product);

}  // namespace inferno::codegen
