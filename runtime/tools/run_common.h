// What inferno-run's commands share: failures as exit codes, checked runtime and CUDA calls, and
// the handles every exit path releases.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "inferno/runtime.h"

namespace inferno::run {

inline int exit_code(inferno_status status) {
  switch (status) {
    case INFERNO_STATUS_OK:
      return 0;
    case INFERNO_STATUS_INVALID_ARGUMENT:
    case INFERNO_STATUS_LOAD_FAILED:
    case INFERNO_STATUS_ABI_MISMATCH:
    case INFERNO_STATUS_WEIGHTS_CORRUPT:
      return 3;
    case INFERNO_STATUS_NO_DEVICE:
    case INFERNO_STATUS_ARCH_MISMATCH:
      return 4;
    case INFERNO_STATUS_IO:
      return 5;
    default:
      return 1;
  }
}

// A failure to report and exit with.
struct Exit {
  int code;
  std::string message;
};

inline void check(inferno_status status) {
  if (status != INFERNO_STATUS_OK) {
    throw Exit{exit_code(status),
               std::string(inferno_status_name(status)) + ": " + inferno_last_error()};
  }
}

inline void check_cuda(cudaError_t error, const char* what) {
  if (error != cudaSuccess) throw Exit{1, std::string(what) + ": " + cudaGetErrorString(error)};
}

// A device buffer owned by inferno-run.
struct DeviceBuffer {
  void* data = nullptr;
  explicit DeviceBuffer(size_t bytes) {
    if (bytes > 0) check_cuda(cudaMalloc(&data, bytes), "cudaMalloc");
  }
  ~DeviceBuffer() { cudaFree(data); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

// "f32[4,8]" for a tensor description.
inline std::string type_text(const inferno_tensor_desc& d) {
  static const char* const kNames[] = {"f32", "f16", "bf16", "f64", "i64", "i32", "bool"};
  std::string text = d.dtype >= 0 && d.dtype < 7 ? kNames[d.dtype] : "?";
  text += "[";
  for (int32_t k = 0; k < d.rank; ++k) {
    if (k > 0) text += ',';
    text += std::to_string(d.shape[k]);
  }
  return text + "]";
}

// Owns the runtime handles so every exit path releases them.
struct Handles {
  inferno_loaded_model* model = nullptr;
  inferno_session* session = nullptr;
  cudaStream_t stream = nullptr;
  ~Handles() {
    inferno_session_destroy(session);
    inferno_model_unload(model);
    if (stream != nullptr) cudaStreamDestroy(stream);
  }
};

}  // namespace inferno::run
