#include "runtime/cuda_util.h"

#include "runtime/error.h"

namespace inferno::runtime {

inferno_status status_of(cudaError_t error) {
  if (error == cudaSuccess) return INFERNO_STATUS_OK;
  if (is_sticky(error)) return INFERNO_STATUS_DEVICE_LOST;
  switch (error) {
    case cudaErrorMemoryAllocation:
      return INFERNO_STATUS_OUT_OF_MEMORY;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorStubLibrary:
    case cudaErrorInvalidDevice:
    case cudaErrorDevicesUnavailable:
      return INFERNO_STATUS_NO_DEVICE;
    default:
      return INFERNO_STATUS_CUDA_ERROR;
  }
}

std::string cuda_message(cudaError_t error, const std::string& what) {
  return what + ": " + cudaGetErrorString(error) + " (" + cudaGetErrorName(error) + ")";
}

void check_cuda(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return;
  if (!is_sticky(error)) cudaGetLastError();  // so the caller's next CUDA call does not see it
  fail(status_of(error), cuda_message(error, what));
}

std::string no_device_message(cudaError_t error) {
  const std::string detail = " (" + cuda_message(error, "cudaGetDeviceCount") + ")";
  // cudart reports a machine without the driver library as an insufficient driver, which reads
  // like a version problem; a driver version of 0 means no driver at all.
  int driver = 0;
  if (error == cudaErrorInsufficientDriver && cudaDriverGetVersion(&driver) == cudaSuccess &&
      driver > 0) {
    int runtime = 0;
    cudaRuntimeGetVersion(&runtime);
    const auto version = [](int v) {
      return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
    };
    return "the NVIDIA driver supports CUDA " + version(driver) + ", older than CUDA " +
           version(runtime) + " that this runtime was built with: update the driver" + detail;
  }
  if (error == cudaErrorNoDevice || error == cudaErrorInsufficientDriver)
    return "no NVIDIA GPU or driver found" + detail;
  return "no usable NVIDIA GPU" + detail;
}

int device_count() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    cudaGetLastError();
    fail(INFERNO_STATUS_NO_DEVICE, no_device_message(error));
  }
  if (count == 0)
    fail(INFERNO_STATUS_NO_DEVICE, "no NVIDIA GPU found: the driver reports 0 devices");
  return count;
}

int compute_capability(int device) {
  int major = 0;
  int minor = 0;
  check_cuda(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device),
             "cudaDeviceGetAttribute(compute capability major)");
  check_cuda(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device),
             "cudaDeviceGetAttribute(compute capability minor)");
  return major * 10 + minor;
}

std::string device_name(int device) {
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    cudaGetLastError();
    return "unknown";
  }
  return prop.name;
}

DeviceGuard::DeviceGuard(int device) {
  check_cuda(cudaGetDevice(&previous_), "cudaGetDevice");
  if (previous_ == device) return;
  check_cuda(cudaSetDevice(device), "cudaSetDevice");
  restore_ = true;
}

DeviceGuard::DeviceGuard(int device, std::nothrow_t) noexcept {
  if (cudaGetDevice(&previous_) != cudaSuccess || previous_ == device) return;
  restore_ = cudaSetDevice(device) == cudaSuccess;
}

DeviceGuard::~DeviceGuard() {
  if (restore_) cudaSetDevice(previous_);
}

}  // namespace inferno::runtime
