// GEMM nodes (linear, matmul, addmm) through cuBLASLt.
//
// Row-major trick: cuBLASLt is column-major, and a row-major matrix is the column-major layout of
// its transpose. The row-major product D[M,N] = L[M,K] @ R[K,N] is computed as D^T = R^T L^T:
// cuBLAS's A is the right operand R (an N x K column-major matrix, ld N; or, for linear's weight
// stored [N,K], the K x N matrix w with TRANSA = T), its B the left operand L (K x M, ld K), and
// D^T (N x M, ld N) has exactly the bytes of row-major D. So:
//  - linear(x[..., K], w[N, K], b[N]): the leading dims of x fold into M; the bias is
//    CUBLASLT_EPILOGUE_BIAS (one value per row of D^T, i.e. per output feature) when it is a
//    length-N vector in the weights blob, else broadcast-copied into the output and added with
//    beta = 1.
//  - matmul: 1-D operands are [1,K] / [K,1] (the result's bytes are the same); batch dims either
//    fold into M (the right operand has no batch), or become a strided batch (equal batch dims,
//    or a left operand without batch read with stride 0). Other broadcasts are unsupported.
//  - addmm(bias, a, b, alpha, beta): a row-vector bias with beta == 1 is the epilogue (alpha scales
//    the product only); otherwise the bias is broadcast-copied into the output and scaled by beta
//    (beta == 0 ignores it, as PyTorch does).
// f32 computes in CUBLAS_COMPUTE_32F (or _FAST_TF32 with CodegenOptions::tf32), f16 and bf16 in
// 32F with 16-bit data, f64 in 64F; integer GEMMs are unsupported.
//
// session_create makes the descriptors and layouts of every GEMM and asks the heuristic once for
// an algorithm (with the arena's workspace); run() only calls cublasLtMatmul with that algorithm.
#pragma once

#include <string>

#include "codegen/emit_context.h"

namespace inferno::codegen {

/// Lowers GEMM node `index`: a kGemms entry and its launch in run().
Status emit_gemm(EmitContext& ctx, int32_t index);

/// The fixed host code every model with GEMMs carries: GemmSpec, Gemm, create_gemm, run_gemm,
/// destroy_gemm (it uses write_error, kWorkspaceBytes and the model status codes).


}  // namespace inferno::codegen
