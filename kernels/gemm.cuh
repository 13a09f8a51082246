// gemm.cuh: the cuBLASLt GEMMs of a generated model.
//
// Codegen describes each GEMM as a GemmSpec in cuBLASLt's column-major terms (a row-major
// D = L R is computed as D^T = R^T L^T, so cuBLAS's A is the row-major right operand and B the
// left one). session_create plans each one once (descriptors, layouts, the heuristic's algorithm
// for the given workspace and pointer alignments); run() only calls run_gemm. Header-only.
//
// One cublasLtMatmul is one kernel launch unless the heuristic splits K and reduces the parts in
// a second kernel. That is not steered away (16-bit GEMMs only reduce in f32, below): on an
// H200 (CUDA 13, fp32, as a CUDA graph) the split GEMMs it picks for few output tiles and a long
// K were 5 to 180 times faster than the best one-kernel algorithm it offered (M,K,N 512,1024,512:
// 20 us against 107 us with in-kernel reduction and a memset of its counters, 164 us unsplit;
// 64,16384,64: 14 us against 291 and 2517 us). GEMMs with enough output tiles are one kernel.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/model_support.cuh"

namespace inferno::model_support {

// One GEMM in cuBLASLt's column-major terms (see the kGemms table for the row-major meaning):
// D = epilogue(alpha * op(A) B + beta * C), where C has D's layout and is either D itself or a
// separate matrix (run_gemm's c), and the epilogue adds a bias vector and/or applies ReLU.
struct GemmSpec {
  const char* node;
  cudaDataType_t data_type;  // A, B, C and D
  cublasComputeType_t compute_type;
  cudaDataType_t scale_type;  // alpha and beta
  cublasOperation_t trans_a;
  int64_t a_rows, a_cols, a_ld;  // A: the row-major right operand
  int64_t b_rows, b_cols, b_ld;  // B: the row-major left operand
  int64_t d_rows, d_cols, d_ld;  // D (and C): the row-major result
  int32_t batch_count;
  int64_t a_stride, b_stride, d_stride;  // elements between batched matrices; 0 repeats one
  cublasLtEpilogue_t epilogue;           // DEFAULT, BIAS, RELU or RELU_BIAS
  int64_t bias_offset;  // the BIAS epilogues' vector: weights at this offset, or -1
  double alpha, beta;
  uint32_t align_a, align_b, align_c, align_d;  // bytes every pointer is aligned to
};

// The per-session plan of one GEMM.
struct Gemm {
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t a, b, d;
  cublasLtMatmulAlgo_t algo;
};

inline int32_t cublas_failure(cublasStatus_t status, const char* node, const char* what,
                              char* error, size_t error_size) {
  write_error(error, error_size, "%s: %s failed: %s", node, what, cublasLtGetStatusName(status));
  return INFERNO_MODEL_CUBLAS_ERROR;
}

#define GEMM_TRY(call, what)                                              \
  do {                                                                    \
    const cublasStatus_t status_ = (call);                                \
    if (status_ != CUBLAS_STATUS_SUCCESS) {                               \
      return cublas_failure(status_, spec.node, what, error, error_size); \
    }                                                                     \
  } while (0)

inline cublasStatus_t make_layout(cublasLtMatrixLayout_t* layout, cudaDataType_t type, int64_t rows,
                                  int64_t cols, int64_t ld, int32_t batch, int64_t stride) {
  cublasStatus_t status = cublasLtMatrixLayoutCreate(layout, type, static_cast<uint64_t>(rows),
                                                     static_cast<uint64_t>(cols), ld);
  if (status == CUBLAS_STATUS_SUCCESS && batch > 1) {
    status = cublasLtMatrixLayoutSetAttribute(*layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch,
                                              sizeof batch);
  }
  if (status == CUBLAS_STATUS_SUCCESS && batch > 1) {
    status = cublasLtMatrixLayoutSetAttribute(*layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                              &stride, sizeof stride);
  }
  return status;
}

// Descriptors, layouts and the heuristic's algorithm for one GEMM, once per session.
inline int32_t create_gemm(cublasLtHandle_t lt, const GemmSpec& spec, const unsigned char* weights,
                           uint64_t workspace_bytes, Gemm* gemm, char* error, size_t error_size) {
  GEMM_TRY(cublasLtMatmulDescCreate(&gemm->desc, spec.compute_type, spec.scale_type),
           "cublasLtMatmulDescCreate");
  GEMM_TRY(cublasLtMatmulDescSetAttribute(gemm->desc, CUBLASLT_MATMUL_DESC_TRANSA, &spec.trans_a,
                                          sizeof spec.trans_a),
           "setting TRANSA");
  if (spec.epilogue != CUBLASLT_EPILOGUE_DEFAULT) {
    GEMM_TRY(cublasLtMatmulDescSetAttribute(gemm->desc, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                            &spec.epilogue, sizeof spec.epilogue),
             "setting the epilogue");
  }
  if (spec.bias_offset >= 0) {
    const void* bias = weights + spec.bias_offset;
    GEMM_TRY(cublasLtMatmulDescSetAttribute(gemm->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                                            sizeof bias),
             "setting the bias pointer");
  }
  GEMM_TRY(make_layout(&gemm->a, spec.data_type, spec.a_rows, spec.a_cols, spec.a_ld,
                       spec.batch_count, spec.a_stride),
           "the layout of A");
  GEMM_TRY(make_layout(&gemm->b, spec.data_type, spec.b_rows, spec.b_cols, spec.b_ld,
                       spec.batch_count, spec.b_stride),
           "the layout of B");
  GEMM_TRY(make_layout(&gemm->d, spec.data_type, spec.d_rows, spec.d_cols, spec.d_ld,
                       spec.batch_count, spec.d_stride),
           "the layout of D");

  cublasLtMatmulPreference_t preference = nullptr;
  GEMM_TRY(cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate");
  const uint64_t workspace = workspace_bytes;
  cublasStatus_t status = cublasLtMatmulPreferenceSetAttribute(
      preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof workspace);
  // A K split may keep its partial sums in the output type (in place, or in the workspace) and
  // add them up there: for f16 and bf16 each part is rounded to 16 bits before the sum (GPT-2's
  // f16 LM head came 4 ulps from the f32 sum on an H100). Only f32 partials (the compute type)
  // are allowed for 16-bit data; a split with no reduction scheme is never masked.
  const bool narrow_output = spec.data_type == CUDA_R_16F || spec.data_type == CUDA_R_16BF;
  const uint32_t reduction_schemes =
      narrow_output ? CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE : CUBLASLT_REDUCTION_SCHEME_MASK;
  const struct {
    cublasLtMatmulPreferenceAttributes_t attribute;
    uint32_t value;
  } settings[] = {{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, spec.align_a},
                  {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, spec.align_b},
                  {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, spec.align_c},
                  {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, spec.align_d},
                  {CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, reduction_schemes}};
  for (const auto& setting : settings) {
    if (status == CUBLAS_STATUS_SUCCESS) {
      status = cublasLtMatmulPreferenceSetAttribute(preference, setting.attribute, &setting.value,
                                                    sizeof setting.value);
    }
  }
  cublasLtMatmulHeuristicResult_t result = {};
  int found = 0;
  if (status == CUBLAS_STATUS_SUCCESS) {
    status = cublasLtMatmulAlgoGetHeuristic(lt, gemm->desc, gemm->a, gemm->b, gemm->d, gemm->d,
                                            preference, 1, &result, &found);
  }
  cublasLtMatmulPreferenceDestroy(preference);
  GEMM_TRY(status, "choosing an algorithm");
  if (found == 0) {
    write_error(error, error_size, "%s: cuBLASLt has no algorithm for this GEMM", spec.node);
    return INFERNO_MODEL_CUBLAS_ERROR;
  }
  gemm->algo = result.algo;
  return INFERNO_MODEL_OK;
}

inline void destroy_gemm(Gemm* gemm) {
  if (gemm->d != nullptr) cublasLtMatrixLayoutDestroy(gemm->d);
  if (gemm->b != nullptr) cublasLtMatrixLayoutDestroy(gemm->b);
  if (gemm->a != nullptr) cublasLtMatrixLayoutDestroy(gemm->a);
  if (gemm->desc != nullptr) cublasLtMatmulDescDestroy(gemm->desc);
}

// Enqueues one planned GEMM: D = epilogue(alpha * op(A) B + beta * C). C has D's layout; it is d
// itself (beta 0, or an addend copied into D first) or a separate addend.
inline cublasStatus_t run_gemm(cublasLtHandle_t lt, const GemmSpec& spec, const Gemm& gemm,
                               const void* a, const void* b, const void* c, void* d,
                               void* workspace, uint64_t workspace_bytes, cudaStream_t stream) {
  if (spec.scale_type == CUDA_R_64F) {
    const double alpha = spec.alpha, beta = spec.beta;
    return cublasLtMatmul(lt, gemm.desc, &alpha, a, gemm.a, b, gemm.b, &beta, c, gemm.d, d, gemm.d,
                          &gemm.algo, workspace, workspace_bytes, stream);
  }
  const float alpha = static_cast<float>(spec.alpha), beta = static_cast<float>(spec.beta);
  return cublasLtMatmul(lt, gemm.desc, &alpha, a, gemm.a, b, gemm.b, &beta, c, gemm.d, d, gemm.d,
                        &gemm.algo, workspace, workspace_bytes, stream);
}

}  // namespace inferno::model_support

// Checks a cublasLtMatmul in run(): a sticky CUDA error behind it is a lost device.
#define MODEL_CHECK_CUBLAS(call, node)                                           \
  do {                                                                           \
    const cublasStatus_t status_ = (call);                                       \
    if (status_ != CUBLAS_STATUS_SUCCESS) {                                      \
      const cudaError_t cuda_ = cudaGetLastError();                              \
      if (is_sticky(cuda_)) return cuda_failure(cuda_, node, error, error_size); \
      write_error(error, error_size, "%s: cublasLtMatmul failed: %s", node,      \
                  cublasLtGetStatusName(status_));                               \
      return INFERNO_MODEL_CUBLAS_ERROR;                                         \
    }                                                                            \
  } while (0)
