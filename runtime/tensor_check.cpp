#include "runtime/tensor_check.h"

#include <cuda_runtime_api.h>

#include <string>

#include "runtime/cuda_util.h"
#include "runtime/descriptor.h"
#include "runtime/error.h"

namespace inferno::runtime {
namespace {

[[noreturn]] void bad(const char* role, const inferno_tensor_desc& desc, const std::string& what) {
  fail(INFERNO_STATUS_INVALID_ARGUMENT, std::string(role) + " '" + desc.name + "': " + what);
}

bool same_type(const inferno_tensor_desc& desc, const inferno_tensor& t) {
  if (t.dtype != desc.dtype || t.rank != desc.rank) return false;
  for (int32_t k = 0; k < t.rank; ++k) {
    if (t.shape[k] != desc.shape[k]) return false;
  }
  return true;
}

int64_t element_count(const inferno_tensor_desc& desc) {
  int64_t n = 1;
  for (int32_t k = 0; k < desc.rank; ++k) n *= desc.shape[k];
  return n;
}

}  // namespace

void check_tensors(const char* role, const inferno_tensor_desc* descs, int32_t expected_count,
                   const inferno_tensor* tensors, int32_t count) {
  if (count != expected_count) {
    fail(INFERNO_STATUS_INVALID_ARGUMENT, "expected " + std::to_string(expected_count) + " " +
                                              role + (expected_count == 1 ? "" : "s") + ", got " +
                                              std::to_string(count));
  }
  if (count > 0 && tensors == nullptr) {
    fail(INFERNO_STATUS_INVALID_ARGUMENT, std::string(role) + "s array is null");
  }
  for (int32_t i = 0; i < count; ++i) {
    const inferno_tensor& t = tensors[i];
    const inferno_tensor_desc& desc = descs[i];
    // Messages are built only on failure: a valid call does not allocate.
    const auto expected = [&] {
      return "expected " + type_text(desc.dtype, desc.rank, desc.shape);
    };
    if (t.rank < 0 || t.rank > kMaxRank) {
      bad(role, desc, expected() + ", got rank " + std::to_string(t.rank));
    }
    if (t.rank > 0 && t.shape == nullptr) bad(role, desc, "shape is null");
    if (!same_type(desc, t))
      bad(role, desc, expected() + ", got " + type_text(t.dtype, t.rank, t.shape));
    if (t.data == nullptr && element_count(desc) > 0) bad(role, desc, "data is null");
  }
}

void check_device_memory(const char* role, const inferno_tensor_desc* descs,
                         const inferno_tensor* tensors, int32_t count, int device) {
  for (int32_t i = 0; i < count; ++i) {
    if (tensors[i].data == nullptr) continue;  // an empty tensor (check_tensors allowed it)
    cudaPointerAttributes attr{};
    const cudaError_t error = cudaPointerGetAttributes(&attr, tensors[i].data);
    if (error == cudaErrorInvalidValue) {
      cudaGetLastError();
      bad(role, descs[i], "data is not a CUDA pointer");
    }
    check_cuda(error, "cudaPointerGetAttributes");  // e.g. a lost device
    switch (attr.type) {
      case cudaMemoryTypeDevice:
        if (attr.device != device) {
          bad(role, descs[i],
              "data is on device " + std::to_string(attr.device) + ", the model on device " +
                  std::to_string(device));
        }
        break;
      case cudaMemoryTypeManaged:
        break;
      case cudaMemoryTypeHost:
        if (attr.devicePointer == nullptr)
          bad(role, descs[i], "data is host memory not mapped for the device");
        break;
      default:
        bad(role, descs[i], "data is host memory, not device memory");
    }
  }
}

}  // namespace inferno::runtime
