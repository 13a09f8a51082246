// runtime.hpp: header-only C++ RAII classes over the C API of runtime.h.
//
// Errors are exceptions: every failed call throws inferno::Error, which carries the runtime's
// status and message (the C API itself never throws; this wrapper converts). Handles are
// move-only and released in their destructors. Requires C++17.
//
//   inferno::Model model("model.so", /*device=*/0);
//   inferno::Session session(model);
//   session.run(stream, {inferno::tensor(x_dev, model.input(0))}, {inferno::tensor(y_dev,
//   model.output(0))});
#pragma once

#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "inferno/runtime.h"

namespace inferno {

/// A failed runtime call: status() is the C status, what() the runtime's message.
class Error : public std::runtime_error {
 public:
  Error(inferno_status status, const std::string& message)
      : std::runtime_error(std::string(inferno_status_name(status)) + ": " + message),
        status_(status) {}
  inferno_status status() const noexcept { return status_; }

 private:
  inferno_status status_;
};

/// Throws Error for any status but OK, with this thread's last-error text.
inline void check(inferno_status status) {
  if (status != INFERNO_STATUS_OK) throw Error(status, inferno_last_error());
}

/// A caller-owned device buffer described by a model input or output.
inline inferno_tensor tensor(void* data, const inferno_tensor_desc& desc) {
  return inferno_tensor{data, desc.dtype, desc.rank, desc.shape};
}

/// Bytes of a tensor with this description.
inline size_t byte_size(const inferno_tensor_desc& desc) {
  size_t n = desc.dtype == INFERNO_DTYPE_F64 || desc.dtype == INFERNO_DTYPE_I64   ? 8
             : desc.dtype == INFERNO_DTYPE_F32 || desc.dtype == INFERNO_DTYPE_I32 ? 4
             : desc.dtype == INFERNO_DTYPE_BOOL                                   ? 1
                                                                                  : 2;
  for (int32_t k = 0; k < desc.rank; ++k) n *= static_cast<size_t>(desc.shape[k]);
  return n;
}

/// A loaded model (see inferno_model_load). Cheap to share by reference between threads.
class Model {
 public:
  /// Loads `path` on `device` (an index, INFERNO_DEVICE_CURRENT or INFERNO_DEVICE_NONE).
  explicit Model(const std::string& path, int device = INFERNO_DEVICE_CURRENT) {
    check(inferno_model_load(path.c_str(), device, &handle_));
  }
  ~Model() { inferno_model_unload(handle_); }
  Model(Model&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Model& operator=(Model&& other) noexcept {
    std::swap(handle_, other.handle_);
    return *this;
  }
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  /// Validates a model file without a GPU (see inferno_model_check); throws Error when invalid.
  static void validate(const std::string& path, int sm = 0) {
    check(inferno_model_check(path.c_str(), sm));
  }

  int32_t num_inputs() const {
    int32_t n = 0;
    check(inferno_model_num_inputs(handle_, &n));
    return n;
  }
  int32_t num_outputs() const {
    int32_t n = 0;
    check(inferno_model_num_outputs(handle_, &n));
    return n;
  }
  inferno_tensor_desc input(int32_t index) const {
    inferno_tensor_desc desc{};
    check(inferno_model_input(handle_, index, &desc));
    return desc;
  }
  inferno_tensor_desc output(int32_t index) const {
    inferno_tensor_desc desc{};
    check(inferno_model_output(handle_, index, &desc));
    return desc;
  }
  const inferno_manifest& manifest() const {
    const inferno_manifest* m = nullptr;
    check(inferno_model_manifest(handle_, &m));
    return *m;
  }
  int device() const {
    int d = 0;
    check(inferno_model_device(handle_, &d));
    return d;
  }
  inferno_loaded_model* handle() const { return handle_; }

 private:
  inferno_loaded_model* handle_ = nullptr;
};

/// One thread's (or stream's) session on a model (see inferno_session_create).
class Session {
 public:
  /// `use_cuda_graph`: capture the model into a CUDA graph on the first run and replay it.
  explicit Session(const Model& model, bool use_cuda_graph = true) {
    inferno_session_options options{};
    check(inferno_session_options_default(&options));
    options.use_cuda_graph = use_cuda_graph ? 1 : 0;
    check(inferno_session_create(model.handle(), &options, &handle_));
  }
  ~Session() { inferno_session_destroy(handle_); }
  Session(Session&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Session& operator=(Session&& other) noexcept {
    std::swap(handle_, other.handle_);
    return *this;
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// Enqueues one inference on `stream` (a cudaStream_t); does not synchronize.
  void run(void* stream, const inferno_tensor* inputs, size_t num_inputs,
           const inferno_tensor* outputs, size_t num_outputs) {
    check(inferno_session_run(handle_, stream, inputs, static_cast<int32_t>(num_inputs), outputs,
                              static_cast<int32_t>(num_outputs)));
  }
  void run(void* stream, std::initializer_list<inferno_tensor> inputs,
           std::initializer_list<inferno_tensor> outputs) {
    run(stream, inputs.begin(), inputs.size(), outputs.begin(), outputs.size());
  }
  void run(void* stream, const std::vector<inferno_tensor>& inputs,
           const std::vector<inferno_tensor>& outputs) {
    run(stream, inputs.data(), inputs.size(), outputs.data(), outputs.size());
  }
  inferno_session* handle() const { return handle_; }

 private:
  inferno_session* handle_ = nullptr;
};

}  // namespace inferno
