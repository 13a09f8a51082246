// The C boundary: argument checks, handle plumbing, and guarded() turning every exception into a
// status plus this thread's last-error text. Nothing below throws past this file.
#include <algorithm>
#include <string>

#include "inferno/runtime.h"
#include "runtime/descriptor.h"
#include "runtime/error.h"
#include "runtime/handles.h"
#include "runtime/row_split.h"

using inferno::runtime::fail;
using inferno::runtime::guarded;
using inferno::runtime::Model;
using inferno::runtime::tensor_bytes;

namespace {

constexpr int32_t kMaxGraphCacheSize = 1024;

template <typename T>
void require(const T* pointer, const char* name) {
  if (pointer == nullptr) fail(INFERNO_STATUS_INVALID_ARGUMENT, std::string(name) + " is null");
}

void check_index(const char* what, int32_t index, int32_t count) {
  if (index < 0 || index >= count) {
    fail(INFERNO_STATUS_INVALID_ARGUMENT, std::string(what) + " index " + std::to_string(index) +
                                              " out of range (" + std::to_string(count) + ")");
  }
}

// The entry point `variant` of the model (0: the model itself).
const inferno_model& variant_of(const inferno_loaded_model* model, int32_t variant) {
  require(model, "model");
  const auto& entries = model->model->entries();
  check_index("variant", variant, static_cast<int32_t>(entries.size()));
  return *entries[variant];
}

inferno_status describe(const inferno_loaded_model* model, int32_t variant, int32_t index,
                        inferno_tensor_desc* desc, bool input) {
  return guarded([&] {
    const inferno_model& abi = variant_of(model, variant);
    require(desc, "desc");
    const int32_t count = input ? abi.num_inputs : abi.num_outputs;
    check_index(input ? "input" : "output", index, count);
    *desc = input ? abi.inputs[index] : abi.outputs[index];
  });
}

}  // namespace

extern "C" {

const char* inferno_status_name(inferno_status status) {
  switch (status) {
    case INFERNO_STATUS_OK:
      return "ok";
    case INFERNO_STATUS_INVALID_ARGUMENT:
      return "invalid_argument";
    case INFERNO_STATUS_IO:
      return "io";
    case INFERNO_STATUS_LOAD_FAILED:
      return "load_failed";
    case INFERNO_STATUS_ABI_MISMATCH:
      return "abi_mismatch";
    case INFERNO_STATUS_ARCH_MISMATCH:
      return "arch_mismatch";
    case INFERNO_STATUS_WEIGHTS_CORRUPT:
      return "weights_corrupt";
    case INFERNO_STATUS_NO_DEVICE:
      return "no_device";
    case INFERNO_STATUS_OUT_OF_MEMORY:
      return "out_of_memory";
    case INFERNO_STATUS_CUDA_ERROR:
      return "cuda_error";
    case INFERNO_STATUS_CUBLAS_ERROR:
      return "cublas_error";
    case INFERNO_STATUS_BUSY:
      return "busy";
    case INFERNO_STATUS_DEVICE_LOST:
      return "device_lost";
    case INFERNO_STATUS_INTERNAL:
      return "internal";
  }
  return "unknown_status";
}

const char* inferno_last_error(void) { return inferno::runtime::last_error(); }

inferno_status inferno_model_load(const char* path, int device, inferno_loaded_model** model) {
  return guarded([&] {
    require(model, "model");
    *model = nullptr;
    require(path, "path");
    *model = new inferno_loaded_model{Model::load(path, device)};
  });
}

inferno_status inferno_model_unload(inferno_loaded_model* model) {
  return guarded([&] { delete model; });
}

inferno_status inferno_model_check(const char* path, int sm) {
  return guarded([&] {
    require(path, "path");
    const auto model = Model::load(path, INFERNO_DEVICE_NONE);
    if (sm > 0 && !model->has_arch(sm)) {
      fail(INFERNO_STATUS_ARCH_MISMATCH, "'" + std::string(path) + "' has machine code for " +
                                             model->archs_text() + ", not sm_" +
                                             std::to_string(sm));
    }
  });
}

inferno_status inferno_model_num_inputs(const inferno_loaded_model* model, int32_t* count) {
  return guarded([&] {
    require(model, "model");
    require(count, "count");
    *count = model->model->abi().num_inputs;
  });
}

inferno_status inferno_model_num_outputs(const inferno_loaded_model* model, int32_t* count) {
  return guarded([&] {
    require(model, "model");
    require(count, "count");
    *count = model->model->abi().num_outputs;
  });
}

inferno_status inferno_model_input(const inferno_loaded_model* model, int32_t index,
                                   inferno_tensor_desc* desc) {
  return describe(model, 0, index, desc, true);
}

inferno_status inferno_model_output(const inferno_loaded_model* model, int32_t index,
                                    inferno_tensor_desc* desc) {
  return describe(model, 0, index, desc, false);
}

inferno_status inferno_model_num_states(const inferno_loaded_model* model, int32_t* count) {
  return guarded([&] {
    require(model, "model");
    require(count, "count");
    *count = model->model->abi().num_states;
  });
}

inferno_status inferno_model_state(const inferno_loaded_model* model, int32_t index,
                                   inferno_state_desc* desc, uint64_t* bytes) {
  return guarded([&] {
    require(model, "model");
    require(desc, "desc");
    const inferno_model& abi = model->model->abi();
    check_index("state", index, abi.num_states);
    *desc = abi.states[index];
    if (bytes != nullptr) *bytes = static_cast<uint64_t>(tensor_bytes(desc->tensor));
  });
}

inferno_status inferno_model_max_positions(const inferno_loaded_model* model,
                                           int64_t* max_positions) {
  return guarded([&] {
    require(model, "model");
    require(max_positions, "max_positions");
    *max_positions = model->model->abi().max_positions;
  });
}

inferno_status inferno_model_weights_bytes(const inferno_loaded_model* model, uint64_t* bytes) {
  return guarded([&] {
    require(model, "model");
    require(bytes, "bytes");
    *bytes = model->model->abi().weights_bytes;
  });
}

inferno_status inferno_model_vocab_size(const inferno_loaded_model* model, int64_t* vocab) {
  return guarded([&] {
    require(model, "model");
    require(vocab, "vocab");
    const auto& generation = model->model->generation();
    if (!generation.supported) fail(INFERNO_STATUS_INVALID_ARGUMENT, generation.problem);
    *vocab = generation.vocab;
  });
}

inferno_status inferno_model_num_variants(const inferno_loaded_model* model, int32_t* count) {
  return guarded([&] {
    require(model, "model");
    require(count, "count");
    *count = static_cast<int32_t>(model->model->entries().size());
  });
}

inferno_status inferno_model_variant_num_inputs(const inferno_loaded_model* model, int32_t variant,
                                                int32_t* count) {
  return guarded([&] {
    const inferno_model& abi = variant_of(model, variant);
    require(count, "count");
    *count = abi.num_inputs;
  });
}

inferno_status inferno_model_variant_num_outputs(const inferno_loaded_model* model, int32_t variant,
                                                 int32_t* count) {
  return guarded([&] {
    const inferno_model& abi = variant_of(model, variant);
    require(count, "count");
    *count = abi.num_outputs;
  });
}

inferno_status inferno_model_variant_input(const inferno_loaded_model* model, int32_t variant,
                                           int32_t index, inferno_tensor_desc* desc) {
  return describe(model, variant, index, desc, true);
}

inferno_status inferno_model_variant_output(const inferno_loaded_model* model, int32_t variant,
                                            int32_t index, inferno_tensor_desc* desc) {
  return describe(model, variant, index, desc, false);
}

inferno_status inferno_model_num_dynamic_dims(const inferno_loaded_model* model, int32_t* count) {
  return guarded([&] {
    require(model, "model");
    require(count, "count");
    *count = static_cast<int32_t>(model->model->dynamic_dims().size());
  });
}

inferno_status inferno_model_dynamic_dim(const inferno_loaded_model* model, int32_t index,
                                         const char** name, int64_t* min, int64_t* max,
                                         int32_t* num_uses) {
  return guarded([&] {
    require(model, "model");
    const auto& dims = model->model->dynamic_dims();
    check_index("dynamic dim", index, static_cast<int32_t>(dims.size()));
    const inferno::runtime::DynamicDim& dim = dims[static_cast<size_t>(index)];
    if (name != nullptr) *name = dim.name.c_str();
    if (min != nullptr) *min = dim.min;
    if (max != nullptr) *max = dim.max;
    if (num_uses != nullptr) *num_uses = static_cast<int32_t>(dim.uses.size());
  });
}

inferno_status inferno_model_dynamic_dim_use(const inferno_loaded_model* model, int32_t index,
                                             int32_t use, int32_t* input, int32_t* axis) {
  return guarded([&] {
    require(model, "model");
    const auto& dims = model->model->dynamic_dims();
    check_index("dynamic dim", index, static_cast<int32_t>(dims.size()));
    const auto& uses = dims[static_cast<size_t>(index)].uses;
    check_index("use", use, static_cast<int32_t>(uses.size()));
    if (input != nullptr) *input = uses[static_cast<size_t>(use)].input;
    if (axis != nullptr) *axis = uses[static_cast<size_t>(use)].axis;
  });
}

inferno_status inferno_model_split_dim(const inferno_loaded_model* model, int32_t* index) {
  return guarded([&] {
    require(model, "model");
    require(index, "index");
    const auto& dims = model->model->dynamic_dims();
    *index = -1;
    for (size_t d = 0; d < dims.size(); ++d) {
      if (dims[d].split) *index = static_cast<int32_t>(d);
    }
  });
}

inferno_status inferno_model_output_shape(const inferno_loaded_model* model,
                                          const inferno_tensor* inputs, int32_t num_inputs,
                                          int32_t output, int64_t* shape, int32_t max_rank,
                                          int32_t* rank) {
  return guarded([&] {
    require(model, "model");
    require(rank, "rank");
    const inferno::runtime::Model& m = *model->model;
    const inferno::runtime::EntryPoints& entries = m.entries();
    const int32_t entry = inferno::runtime::select_entry(entries, inputs, num_inputs);
    std::vector<int64_t> dims;
    if (entry >= 0) {
      const inferno_model& abi = *entries[static_cast<size_t>(entry)];
      check_index("output", output, abi.num_outputs);
      const inferno_tensor_desc& d = abi.outputs[output];
      dims.assign(d.shape, d.shape + d.rank);
    } else {
      inferno::runtime::RowSplitPlan plan;
      const std::string why =
          inferno::runtime::plan_row_split(m.dynamic_dims(), entries, inputs, num_inputs, plan);
      if (!why.empty()) {
        inferno::runtime::fail(INFERNO_STATUS_INVALID_ARGUMENT,
                               inferno::runtime::refusal_text(m.dynamic_dims(), entries, m.path(),
                                                              inputs, num_inputs, why));
      }
      check_index("output", output, static_cast<int32_t>(plan.output_shapes.size()));
      dims = plan.output_shapes[static_cast<size_t>(output)];
    }
    if (static_cast<int32_t>(dims.size()) > max_rank || (!dims.empty() && shape == nullptr)) {
      inferno::runtime::fail(INFERNO_STATUS_INVALID_ARGUMENT,
                             "output " + std::to_string(output) + " has rank " +
                                 std::to_string(dims.size()) + ", over max_rank");
    }
    std::copy(dims.begin(), dims.end(), shape);
    *rank = static_cast<int32_t>(dims.size());
  });
}

inferno_status inferno_model_manifest(const inferno_loaded_model* model,
                                      const inferno_manifest** manifest) {
  return guarded([&] {
    require(model, "model");
    require(manifest, "manifest");
    *manifest = &model->model->abi().manifest;
  });
}

inferno_status inferno_model_profile_steps(const inferno_loaded_model* model, int32_t variant,
                                           const inferno_kernel_cost** steps, int32_t* count) {
  return guarded([&] {
    variant_of(model, variant);  // checks the index
    require(steps, "steps");
    require(count, "count");
    const inferno_model_profile* table = model->model->profile(static_cast<size_t>(variant));
    *steps = table != nullptr ? table->steps : nullptr;
    *count = table != nullptr ? table->num_steps : 0;
  });
}

inferno_status inferno_model_memory_use(const inferno_loaded_model* model, uint64_t* weights,
                                        uint64_t* arena, uint64_t* workspace, uint64_t* state) {
  return guarded([&] {
    require(model, "model");
    const inferno::runtime::Model& m = *model->model;
    uint64_t most_workspace = 0, state_bytes = 0;
    for (const inferno_model* entry : m.entries())
      most_workspace = std::max(most_workspace, entry->workspace_bytes);
    for (int32_t i = 0; i < m.abi().num_states; ++i)
      state_bytes +=
          static_cast<uint64_t>(inferno::runtime::tensor_bytes(m.abi().states[i].tensor));
    if (weights != nullptr) *weights = m.abi().weights_bytes;
    if (arena != nullptr) *arena = m.arena_bytes();
    if (workspace != nullptr) *workspace = most_workspace;
    if (state != nullptr) *state = state_bytes;
  });
}

inferno_status inferno_model_device(const inferno_loaded_model* model, int* device) {
  return guarded([&] {
    require(model, "model");
    require(device, "device");
    *device = model->model->device();
  });
}

inferno_status inferno_session_options_default(inferno_session_options* options) {
  return guarded([&] {
    require(options, "options");
    *options = inferno_session_options{sizeof(inferno_session_options), 1, 8};
  });
}

inferno_status inferno_session_create(inferno_loaded_model* model,
                                      const inferno_session_options* options,
                                      inferno_session** session) {
  return guarded([&] {
    require(session, "session");
    *session = nullptr;
    require(model, "model");
    inferno_session_options chosen{};
    inferno_session_options_default(&chosen);
    if (options != nullptr) {
      if (options->struct_size < sizeof(inferno_session_options)) {
        fail(INFERNO_STATUS_INVALID_ARGUMENT,
             "options.struct_size is " + std::to_string(options->struct_size) +
                 " (fill options with inferno_session_options_default)");
      }
      chosen = *options;
    }
    if (chosen.graph_cache_size < 1 || chosen.graph_cache_size > kMaxGraphCacheSize) {
      fail(INFERNO_STATUS_INVALID_ARGUMENT,
           "options.graph_cache_size must be in 1.." + std::to_string(kMaxGraphCacheSize));
    }
    if (model->model->device() == INFERNO_DEVICE_NONE) {
      fail(INFERNO_STATUS_INVALID_ARGUMENT,
           "model '" + model->model->path() + "' was loaded without a device (inspection only)");
    }
    *session = new inferno_session(model->model, chosen);
  });
}

inferno_status inferno_session_destroy(inferno_session* session) {
  return guarded([&] { delete session; });
}

inferno_status inferno_session_run(inferno_session* session, void* stream,
                                   const inferno_tensor* inputs, int32_t num_inputs,
                                   const inferno_tensor* outputs, int32_t num_outputs) {
  return guarded([&] {
    require(session, "session");
    session->session.run(stream, inputs, num_inputs, outputs, num_outputs);
  });
}

inferno_status inferno_session_run_profiled(inferno_session* session, void* stream,
                                            const inferno_tensor* inputs, int32_t num_inputs,
                                            const inferno_tensor* outputs, int32_t num_outputs,
                                            inferno_profile_hook hook, void* user_data,
                                            int32_t* variant) {
  return guarded([&] {
    require(session, "session");
    if (hook == nullptr) fail(INFERNO_STATUS_INVALID_ARGUMENT, "hook is null");
    const int32_t entry = session->session.run_profiled(stream, inputs, num_inputs, outputs,
                                                        num_outputs, hook, user_data);
    if (variant != nullptr) *variant = entry;
  });
}

inferno_status inferno_session_reset_state(inferno_session* session, void* stream) {
  return guarded([&] {
    require(session, "session");
    session->session.reset_state(stream);
  });
}

inferno_status inferno_generate_options_default(inferno_generate_options* options) {
  return guarded([&] {
    require(options, "options");
    *options = inferno_generate_options{};
    options->struct_size = sizeof(inferno_generate_options);
    options->max_new_tokens = 16;
    options->temperature = 0.0f;
    options->top_k = 0;
    options->top_p = 1.0f;
  });
}

inferno_status inferno_session_generate(inferno_session* session, void* stream,
                                        const int64_t* prompt, int32_t prompt_len,
                                        const inferno_generate_options* options,
                                        int64_t* tokens_out, int32_t* num_tokens_out,
                                        inferno_generate_stats* stats) {
  return guarded([&] {
    require(session, "session");
    require(tokens_out, "tokens_out");
    require(num_tokens_out, "num_tokens_out");
    *num_tokens_out = 0;
    inferno_generate_options chosen{};
    inferno_generate_options_default(&chosen);
    if (options != nullptr) {
      if (options->struct_size < sizeof(inferno_generate_options)) {
        fail(INFERNO_STATUS_INVALID_ARGUMENT,
             "options.struct_size is " + std::to_string(options->struct_size) +
                 " (fill options with inferno_generate_options_default)");
      }
      chosen = *options;
    }
    if (stats != nullptr) {
      if (stats->struct_size < sizeof(inferno_generate_stats)) {
        fail(INFERNO_STATUS_INVALID_ARGUMENT, "stats.struct_size is " +
                                                  std::to_string(stats->struct_size) +
                                                  " (set it to sizeof(inferno_generate_stats))");
      }
      const uint32_t size = stats->struct_size;
      *stats = inferno_generate_stats{};
      stats->struct_size = size;
    }
    session->session.generate(stream, prompt, prompt_len, chosen, tokens_out, num_tokens_out,
                              stats);
  });
}

}  // extern "C"
