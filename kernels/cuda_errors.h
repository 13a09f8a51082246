// kernels/cuda_errors.h: which CUDA errors are sticky. After one of them the CUDA context is
// unusable: every later call in the process fails, and only a new process recovers. Generated
// models report them as INFERNO_MODEL_DEVICE_LOST (model_support.cuh) and the runtime as
// INFERNO_STATUS_DEVICE_LOST (runtime/cuda_util.cpp); both read this one list, so the two always
// agree on what a lost device is.
//
// Plain host C++ over the CUDA runtime API's error enum: it builds with nvcc (model.cu) and with
// the host compiler alone (the runtime, which links cudart and nothing else of CUDA).
#pragma once

#include <cuda_runtime_api.h>

namespace inferno::cuda {

/// True for errors after which the context is unusable (illegal address, launch failure, ...).
inline bool is_sticky(cudaError_t error) {
  switch (error) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorTensorMemoryLeak:
    case cudaErrorECCUncorrectable:
    case cudaErrorNvlinkUncorrectable:
    case cudaErrorContained:
    case cudaErrorContextIsDestroyed:
      return true;
    default:
      return false;
  }
}

}  // namespace inferno::cuda
