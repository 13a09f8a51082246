// kernels/gemm_session.cuh: the session State of a generated model with GEMMs
// (model_session.cuh says what a State is): the weights, a cuBLASLt handle and the plan of each
// GEMM of the model's kGemms table, made once in session_create and read by every run().
// Header-only.
#pragma once

#include <cublasLt.h>

#include <cstddef>
#include <cstdint>

#include "inferno/model_abi.h"
#include "kernels/gemm.cuh"
#include "kernels/model_session.cuh"

namespace inferno::model_support {

template <int kNumGemms>
struct GemmState {
  const unsigned char* weights = nullptr;  // device copy of the weights blob
  bool dependent_launch = false;
  cublasLtHandle_t lt = nullptr;
  Gemm gemms[kNumGemms] = {};

  GemmState() = default;
  GemmState(const GemmState&) = delete;  // owns the handle and the plans
  GemmState& operator=(const GemmState&) = delete;
  ~GemmState() {
    for (Gemm& gemm : gemms) destroy_gemm(&gemm);
    if (lt != nullptr) cublasLtDestroy(lt);
  }

  /// The cuBLASLt handle, then each GEMM's plan for `workspace_bytes` of workspace (bias vectors
  /// point into `weights`, so it is set first).
  int32_t init(const GemmSpec (&specs)[kNumGemms], uint64_t workspace_bytes, char* error,
               size_t error_size) {
    const cublasStatus_t created = cublasLtCreate(&lt);
    if (created != CUBLAS_STATUS_SUCCESS)
      return cublas_failure(created, "session_create", "cublasLtCreate", error, error_size);
    for (int i = 0; i < kNumGemms; ++i) {
      const int32_t status =
          create_gemm(lt, specs[i], weights, workspace_bytes, &gemms[i], error, error_size);
      if (status != INFERNO_MODEL_OK) return status;
    }
    return INFERNO_MODEL_OK;
  }
};

}  // namespace inferno::model_support
