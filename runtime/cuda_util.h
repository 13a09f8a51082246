// Small CUDA helpers: error classification, checked calls, the current-device guard and device
// queries. Everything here uses the CUDA runtime only through its C API.
#pragma once

#include <cuda_runtime_api.h>

#include <new>
#include <string>

#include "inferno/runtime.h"
#include "kernels/cuda_errors.h"

namespace inferno::runtime {

/// True for errors after which the context is unusable: the list generated models use too.
using cuda::is_sticky;
/// The status for a CUDA error: DEVICE_LOST when sticky, OUT_OF_MEMORY, NO_DEVICE, else CUDA_ERROR.
inferno_status status_of(cudaError_t error);
/// "<what>: <description> (<cudaErrorName>)".
std::string cuda_message(cudaError_t error, const std::string& what);

/// Throws Error(status_of(error), ...) unless `error` is cudaSuccess; `what` names the call. A
/// non-sticky error is also cleared from this thread's CUDA last-error slot.
void check_cuda(cudaError_t error, const char* what);

/// Why cudaGetDeviceCount failed, for a user: "no NVIDIA GPU or driver found (<CUDA's error>)",
/// or a driver too old for this runtime (naming both CUDA versions).
std::string no_device_message(cudaError_t error);
/// Number of CUDA devices; throws NO_DEVICE (no_device_message) when there is none or no driver.
int device_count();
/// Compute capability as major*10+minor (90 for sm_90).
int compute_capability(int device);
/// The device's marketing name, e.g. "NVIDIA H200".
std::string device_name(int device);

/// Makes `device` current for its lifetime and restores the caller's current device after, so a
/// runtime call never changes the caller's CUDA state.
class DeviceGuard {
 public:
  /// Throws when the device cannot be made current.
  explicit DeviceGuard(int device);
  /// For destructors: tries, and ignores failure (the CUDA calls after it then fail quietly too).
  DeviceGuard(int device, std::nothrow_t) noexcept;
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
  bool restore_ = false;  // only when the constructor changed the device
};

}  // namespace inferno::runtime
