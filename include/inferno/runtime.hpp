// runtime.hpp: header-only C++ RAII classes over the C API of runtime.h.
//
// Errors are exceptions: every failed call throws inferno::Error, which carries the runtime's
// status and message (the C API itself never throws; this wrapper converts). Handles are
// move-only and released in their destructors. Requires C++17.
//
//   inferno::Model model("model.so", /*device=*/0);
//   inferno::Session session(model);
//   auto generated = session.generate(stream, prompt_ids, {/*max_new_tokens=*/64});  // an LLM
//   session.run(stream, {inferno::tensor(x_dev, model.input(0))}, {inferno::tensor(y_dev,
//   model.output(0))});
#pragma once

#include <exception>
#include <functional>
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

/// A dim that was dynamic in the model's export: its range (max -1: unbounded) and the input
/// dims that have it. The library runs the sizes its variants were compiled for.
struct DynamicDim {
  struct Use {
    int32_t input = 0;
    int32_t axis = 0;
  };
  std::string name;
  int64_t min = 0;
  int64_t max = -1;
  std::vector<Use> uses;
};

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

  int32_t num_inputs() const { return query<int32_t>(inferno_model_num_inputs); }
  int32_t num_outputs() const { return query<int32_t>(inferno_model_num_outputs); }
  inferno_tensor_desc input(int32_t index) const {
    return query<inferno_tensor_desc>(inferno_model_input, index);
  }
  inferno_tensor_desc output(int32_t index) const {
    return query<inferno_tensor_desc>(inferno_model_output, index);
  }
  /// Mutable state each session holds (see inferno_model_state); `bytes` may be null.
  int32_t num_states() const { return query<int32_t>(inferno_model_num_states); }
  inferno_state_desc state(int32_t index, uint64_t* bytes = nullptr) const {
    inferno_state_desc desc{};
    check(inferno_model_state(handle_, index, &desc, bytes));
    return desc;
  }
  /// The KV cache length position inputs must stay below; 0 when unbounded.
  int64_t max_positions() const { return query<int64_t>(inferno_model_max_positions); }
  uint64_t weights_bytes() const { return query<uint64_t>(inferno_model_weights_bytes); }
  /// The logits' vocabulary of an LLM; throws (saying why) for a model that cannot generate.
  int64_t vocab_size() const { return query<int64_t>(inferno_model_vocab_size); }
  /// Variants (input shapes the model runs); variant 0 is the model itself.
  int32_t num_variants() const { return query<int32_t>(inferno_model_num_variants); }
  int32_t variant_num_inputs(int32_t variant) const {
    return query<int32_t>(inferno_model_variant_num_inputs, variant);
  }
  int32_t variant_num_outputs(int32_t variant) const {
    return query<int32_t>(inferno_model_variant_num_outputs, variant);
  }
  inferno_tensor_desc variant_input(int32_t variant, int32_t index) const {
    return query<inferno_tensor_desc>(inferno_model_variant_input, variant, index);
  }
  inferno_tensor_desc variant_output(int32_t variant, int32_t index) const {
    return query<inferno_tensor_desc>(inferno_model_variant_output, variant, index);
  }
  /// The input dims that were dynamic in the model's export (see inferno_model_num_dynamic_dims).
  std::vector<DynamicDim> dynamic_dims() const {
    std::vector<DynamicDim> dims(
        static_cast<size_t>(query<int32_t>(inferno_model_num_dynamic_dims)));
    for (size_t d = 0; d < dims.size(); ++d) {
      const char* name = nullptr;
      int32_t uses = 0;
      const auto index = static_cast<int32_t>(d);
      check(inferno_model_dynamic_dim(handle_, index, &name, &dims[d].min, &dims[d].max, &uses));
      dims[d].name = name;
      dims[d].uses.resize(static_cast<size_t>(uses));
      for (int32_t u = 0; u < uses; ++u) {
        DynamicDim::Use& use = dims[d].uses[static_cast<size_t>(u)];
        check(inferno_model_dynamic_dim_use(handle_, index, u, &use.input, &use.axis));
      }
    }
    return dims;
  }
  const inferno_manifest& manifest() const {
    return *query<const inferno_manifest*>(inferno_model_manifest);
  }
  int device() const { return query<int>(inferno_model_device); }
  inferno_loaded_model* handle() const { return handle_; }

 private:
  /// What a C query writes through its last argument: check(fn(handle, args..., &value)).
  template <typename T, typename Fn, typename... Args>
  T query(Fn fn, Args... args) const {
    T value{};
    check(fn(handle_, args..., &value));
    return value;
  }

  inferno_loaded_model* handle_ = nullptr;
};

/// What Session::generate does (see inferno_generate_options).
struct GenerateOptions {
  int32_t max_new_tokens = 16;
  float temperature = 0.0f;  // 0: greedy
  int32_t top_k = 0;         // 0: off
  float top_p = 1.0f;        // 1: off
  uint64_t seed = 0;
  std::vector<int64_t> stop_tokens;  // generation ends after one of these (included)
  /// Called for each new token in order; return false to stop after it. An exception it throws
  /// stops generation and is rethrown by generate.
  std::function<bool(int32_t index, int64_t token)> on_token;
};

struct GenerateResult {
  std::vector<int64_t> tokens;
  inferno_generate_stats stats;
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
  /// Enqueues the state's initialization on `stream` (see inferno_session_reset_state).
  void reset_state(void* stream) { check(inferno_session_reset_state(handle_, stream)); }

  /// Generates up to options.max_new_tokens tokens after `prompt` (see inferno_session_generate).
  GenerateResult generate(void* stream, const std::vector<int64_t>& prompt,
                          const GenerateOptions& options = {}) {
    inferno_generate_options o{};
    check(inferno_generate_options_default(&o));
    o.max_new_tokens = options.max_new_tokens;
    o.temperature = options.temperature;
    o.top_k = options.top_k;
    o.top_p = options.top_p;
    o.seed = options.seed;
    o.stop_tokens = options.stop_tokens.data();
    o.num_stop_tokens = static_cast<int32_t>(options.stop_tokens.size());
    struct Callback {
      const GenerateOptions* options;
      std::exception_ptr error;
    } callback{&options, nullptr};
    if (options.on_token) {
      o.user_data = &callback;
      o.callback = [](void* user, int32_t index, int64_t token) -> int32_t {
        auto* c = static_cast<Callback*>(user);
        try {
          return c->options->on_token(index, token) ? 0 : 1;
        } catch (...) {
          c->error = std::current_exception();
          return 1;
        }
      };
    }
    GenerateResult result{};
    result.stats.struct_size = sizeof(inferno_generate_stats);
    result.tokens.resize(options.max_new_tokens > 0 ? static_cast<size_t>(options.max_new_tokens)
                                                    : 1);
    int32_t n = 0;
    const inferno_status status = inferno_session_generate(handle_, stream, prompt.data(),
                                                           static_cast<int32_t>(prompt.size()), &o,
                                                           result.tokens.data(), &n, &result.stats);
    if (callback.error) std::rethrow_exception(callback.error);
    check(status);
    result.tokens.resize(static_cast<size_t>(n));
    return result;
  }

  inferno_session* handle() const { return handle_; }

 private:
  inferno_session* handle_ = nullptr;
};

}  // namespace inferno
