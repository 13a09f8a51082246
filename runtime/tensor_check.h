// Validating the caller's tensors against the model's descriptors, before anything is launched.
#pragma once

#include <cstdint>

#include "inferno/runtime.h"

namespace inferno::runtime {

/// Checks count, data, dtype and shape of `tensors` against `descs` (`role` is "input" or
/// "output"). Throws INVALID_ARGUMENT naming the tensor: "input 'x': expected f32[4,8], got
/// f32[4,7]". Cheap (no CUDA calls), so it runs on every call.
void check_tensors(const char* role, const inferno_tensor_desc* descs, int32_t expected_count,
                   const inferno_tensor* tensors, int32_t count);

/// Checks that every non-null tensor's data is memory the kernels on `device` can read (device,
/// managed or mapped pinned memory of that device). One cudaPointerGetAttributes per tensor, so the
/// session runs it only when buffer addresses change.
void check_device_memory(const char* role, const inferno_tensor_desc* descs,
                         const inferno_tensor* tensors, int32_t count, int device);

}  // namespace inferno::runtime
