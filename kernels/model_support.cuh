// model_support.cuh: error reporting shared by every generated model.cu.
//
// Generated code returns an inferno_model_status and writes a message naming the failing node into
// the caller's buffer (include/inferno/model_abi.h). These helpers and the MODEL_CHECK_* macros,
// which expect `error` and `error_size` in scope, do that. Header-only: a model.cu exports nothing
// but its entry points, whether it is compiled as one object or several (model_prelude.cuh).
#pragma once

#include <cuda_runtime.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>

#include "inferno/model_abi.h"
#include "kernels/cuda_errors.h"
#include "kernels/dependent_launch.cuh"

namespace inferno::model_support {

__attribute__((format(printf, 3, 4))) inline void write_error(char* error, size_t size,
                                                              const char* format, ...) {
  if (error == nullptr || size == 0) return;
  va_list args;
  va_start(args, format);
  std::vsnprintf(error, size, format, args);
  va_end(args);
}

// Sticky errors (the context is unusable) are reported as a lost device.
using cuda::is_sticky;

inline int32_t cuda_failure(cudaError_t status, const char* node, char* error, size_t error_size) {
  write_error(error, error_size, "%s: %s (%s)", node, cudaGetErrorString(status),
              cudaGetErrorName(status));
  return is_sticky(status) ? INFERNO_MODEL_DEVICE_LOST : INFERNO_MODEL_CUDA_ERROR;
}

// The parts of run_steps(): host code that only fills in launch arguments and calls the
// launchers, so g++ compiles them unoptimized (nvcc's host compile of a large model's launches
// was a third of its time); the launchers they call keep the command line's level.
#if defined(__GNUC__) && !defined(__clang__)
#define MODEL_RUN_PART __attribute__((optimize("O0")))
#else
#define MODEL_RUN_PART
#endif

// Every failure in run() names the node it happened in.
#define MODEL_CHECK_CUDA(call, node)                                                   \
  do {                                                                                 \
    const cudaError_t status_ = (call);                                                \
    if (status_ != cudaSuccess) return cuda_failure(status_, node, error, error_size); \
  } while (0)
#define MODEL_CHECK_LAUNCH(node) MODEL_CHECK_CUDA(cudaGetLastError(), node)
// A generated kernel's launch, checked: `blocks` blocks of `threads` on `stream`, with the
// dependent-launch attribute when run() allows it (`dependent_launch` in scope; every generated
// kernel keeps kernels/dependent_launch.cuh's contract).
#define MODEL_LAUNCH(kernel, blocks, threads, node, ...)                                     \
  MODEL_CHECK_CUDA(::inferno::kernels::launch_kernel(dependent_launch, kernel, dim3(blocks), \
                                                     dim3(threads), 0, stream, __VA_ARGS__), \
                   node)

// Around each step of run_steps() (a node that launches kernels): the profiler's hook, when one
// is set (inferno/model_profile.h), with the step's index and phase (0 before, 1 after).
#define MODEL_PROFILE_STEP(step, phase)                         \
  do {                                                          \
    if (hook != nullptr) hook(user, step, phase, args->stream); \
  } while (0)

// cuBLASLt chose its algorithms for caller buffers aligned to 16 bytes.
inline bool misaligned(const void* pointer, uintptr_t alignment) {
  return reinterpret_cast<uintptr_t>(pointer) % alignment != 0;
}

inline int32_t bad_alignment(const char* node, const char* value, int alignment, char* error,
                             size_t error_size) {
  write_error(error, error_size, "%s: the buffer of %s must be %d-byte aligned", node, value,
              alignment);
  return INFERNO_MODEL_BAD_ARGUMENT;
}

}  // namespace inferno::model_support
