#include "runtime/model.h"

#include <cuda_runtime_api.h>

#include <algorithm>

#include "runtime/cuda_util.h"
#include "runtime/descriptor.h"
#include "runtime/error.h"
#include "runtime/profile_table.h"
#include "runtime/weights.h"

namespace inferno::runtime {
namespace {

// Resolves INFERNO_DEVICE_CURRENT and checks that the index names a device.
int resolve_device(int device) {
  const int count = device_count();
  if (device == INFERNO_DEVICE_CURRENT) check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  if (device < 0 || device >= count) {
    fail(INFERNO_STATUS_NO_DEVICE,
         "no CUDA device " + std::to_string(device) + " (found " + std::to_string(count) + ")");
  }
  return device;
}

}  // namespace

Model::Model(const std::string& path) : path_(path), library_(path), device_(INFERNO_DEVICE_NONE) {}

std::shared_ptr<const Model> Model::load(const std::string& path, int device) {
  if (device < INFERNO_DEVICE_NONE) {
    fail(INFERNO_STATUS_INVALID_ARGUMENT, "bad device index " + std::to_string(device));
  }
  std::shared_ptr<Model> model(new Model(path));
  auto entry =
      reinterpret_cast<inferno_model_entry_fn>(model->library_.symbol(INFERNO_MODEL_ENTRY_NAME));
  model->abi_ = entry();
  if (model->abi_ == nullptr) {
    fail(INFERNO_STATUS_ABI_MISMATCH, "'" + path + "': " INFERNO_MODEL_ENTRY_NAME " returned null");
  }
  validate_descriptor(*model->abi_, path);
  model->entries_ = entry_points(*model->abi_);
  const auto describe_profile = reinterpret_cast<inferno_model_profile_fn>(
      model->library_.find_symbol(INFERNO_MODEL_PROFILE_ENTRY_NAME));
  model->profiles_ = read_profile_tables(describe_profile != nullptr ? describe_profile() : nullptr,
                                         model->entries_, path);
  const auto describe_dims = reinterpret_cast<inferno_model_dims_fn>(
      model->library_.find_symbol(INFERNO_MODEL_DIMS_ENTRY_NAME));
  model->dims_ = read_dynamic_dims(describe_dims != nullptr ? describe_dims() : nullptr,
                                   model->entries_, path);
  model->generation_ = analyze_generation(model->entries_, model->abi_->max_positions);
  const HostWeights weights = HostWeights::read(*model->abi_, path);
  if (device == INFERNO_DEVICE_NONE) return model;

  device = resolve_device(device);
  const int sm = compute_capability(device);
  if (!model->has_arch(sm)) {
    fail(INFERNO_STATUS_ARCH_MISMATCH,
         "'" + path + "' has machine code for " + model->archs_text() + ", but device " +
             std::to_string(device) + " (" + device_name(device) + ") is sm_" + std::to_string(sm));
  }
  model->upload_weights(device, weights.data(), weights.size());
  return model;
}

void Model::upload_weights(int device, const void* data, uint64_t size) {
  const DeviceGuard guard(device);
  device_ = device;  // from here on the destructor frees on this device
  if (size == 0) return;
  check_cuda(cudaMalloc(&device_weights_, size), "cudaMalloc of the weights");
  check_cuda(cudaMemcpy(device_weights_, data, size, cudaMemcpyHostToDevice),
             "cudaMemcpy of the weights");
}

Model::~Model() {
  if (device_weights_ == nullptr) return;
  const DeviceGuard guard(device_, std::nothrow);
  cudaFree(device_weights_);
}

uint64_t Model::arena_bytes() const {
  uint64_t bytes = 0;
  for (const inferno_model* entry : entries_) bytes = std::max(bytes, entry->arena_bytes);
  return bytes;
}

bool Model::has_arch(int sm) const {
  const inferno_manifest& m = abi_->manifest;
  for (int32_t i = 0; i < m.num_sm_archs; ++i) {
    if (m.sm_archs[i] == sm) return true;
  }
  return false;
}

std::string Model::archs_text() const {
  const inferno_manifest& m = abi_->manifest;
  if (m.num_sm_archs == 0) return "no arch";
  std::string text;
  for (int32_t i = 0; i < m.num_sm_archs; ++i) {
    if (i > 0) text += ", ";
    text += "sm_" + std::to_string(m.sm_archs[i]);
  }
  return text;
}

}  // namespace inferno::runtime
