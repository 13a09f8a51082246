// GEMM nodes (linear, matmul, addmm, gemm) through cuBLASLt; decode-shaped ones (one batch of at
// most 8 rows, f32/f16/bf16, an epilogue it takes) through the GEMV kernel instead, the epilogue
// fused (emit_gemv.h says which). The rest of this comment is the cuBLASLt path.
//
// Row-major trick: cuBLASLt is column-major, and a row-major matrix is the column-major layout of
// its transpose. The row-major product D[M,N] = L[M,K] @ R[K,N] is computed as D^T = R^T L^T:
// cuBLAS's A is the right operand R (an N x K column-major matrix, ld N; or, for linear's weight
// and gemm's trans_b operand stored [N,K], the K x N matrix with TRANSA = T), its B the left
// operand L (K x M, ld K), and D^T (N x M, ld N) has exactly the bytes of row-major D.
//
// Operands: linear(x[..., K], w[N, K]) folds x's leading dims into M. matmul and gemm: 1-D
// matmul operands are [1,K] / [K,1] (the result's bytes are the same); batch dims either fold
// into M (the right operand has no batch), or become a strided batch (equal batch dims, or a
// left operand without batch read with stride 0). Other broadcasts are unsupported.
//
// Epilogue: every GEMM is out = activation(alpha * (L @ R) + sum of coefficient * addend), with
// the addends linear's bias (1), addmm's bias (beta; none when beta == 0, as PyTorch), gemm's c
// (beta, likewise) and d (1). Each addend takes the first of these that fits:
//  1. CUBLASLT_EPILOGUE_BIAS: a row vector of N values (shape [N] or [1, ..., N]) that is a
//     constant in the weights blob, coefficient 1, not f64 (one such);
//  2. cuBLASLt's C matrix, beta = its coefficient: an addend of the output's full shape, read in
//     place from its own buffer (C != D, same layout);
//  3. the C matrix as the output itself: the addend broadcast-copied into the output first;
//  4. added by the in-place epilogue kernel (below), when the C matrix is taken. The GEMM's sum
//     is then stored, rounded to the dtype, before this addend joins it: one rounding more than
//     the reference's, as PyTorch's unfused GEMM and add would round (rare: two addends that
//     are neither an epilogue bias nor the first full-shape one).
// relu is CUBLASLT_EPILOGUE_RELU / RELU_BIAS (not for f64, and not when an addend is left for
// the kernel, which must come first). gelu and gelu_tanh are never cuBLASLt's GELU epilogues:
// cuBLASLt's documentation says only "x := GELU(x)", not which GELU. What cuBLASLt cannot do runs
// in one generated in-place kernel on the output right after the GEMM (one launch, no buffer).
// f32 computes in CUBLAS_COMPUTE_32F (or _FAST_TF32 with Target::tf32()), f16 and bf16 in
// 32F with 16-bit data, f64 in 64F; integer GEMMs are unsupported.
//
// session_create makes the descriptors and layouts of every GEMM and asks the heuristic once for
// an algorithm (with the arena's workspace); run() only calls cublasLtMatmul with that algorithm.
// The kGemms table's comments say, per GEMM, what goes where.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "codegen/emit_context.h"
#include "codegen/emit_gemv.h"
#include "codegen/lowering.h"

namespace inferno::codegen {

/// Lowers GEMM node `index`: a kGemms entry and its launches in run().
Status emit_gemm(EmitContext& ctx, int32_t index);

/// The product of node `index` as the GEMV runs it (emit_gemv.h; a norm_gemm with its norm), or
/// nullopt when the node is no GEMM or norm_gemm, has no elements, or takes cuBLASLt.
std::optional<GemvProduct> planned_gemv(const ir::Graph& graph, int32_t index);

/// By node: the weight the next GEMV of the run streams (node order; the last GEMV's next is the
/// first, which the next run starts with), for that node's GEMV to prefetch into L2
/// (kernels/l2_prefetch.cuh). kNoValue for nodes without a GEMV, and where the next weight is the
/// node's own (one GEMV) or not a stored constant.
std::vector<ir::ValueId> plan_gemv_prefetches(const ir::Graph& graph, const WeightsLayout& weights);

/// The canonical gemm (the legalize pass turns every other matrix product into one).
void register_gemm_lowerings(LoweringTable& table);

}  // namespace inferno::codegen
