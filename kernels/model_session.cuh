// kernels/model_session.cuh: what every generated model's session functions share
// (include/inferno/model_abi.h). session_create's argument checks and allocation, run()'s argument
// checks and stale-error handling, and session_destroy live here once; a model.cu keeps only what
// is its own: its State type and what State::init takes, and run()'s body.
//
// A State is default-constructible, has a `weights` member (the device weights it is bound to), a
// `dependent_launch` flag (whether run() may launch its kernels with programmatic dependent launch,
// kernels/dependent_launch.cuh: decided once, when the session is made) and
// `int32_t init(..., char* error, size_t error_size)`, which makes the rest of the session; its
// destructor frees whatever init made, even after init failed halfway. WeightsState is the State
// of a model without GEMMs; gemm_session.cuh has the one with cuBLASLt plans. Header-only.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <new>

#include "inferno/model_abi.h"
#include "kernels/dependent_launch.cuh"
#include "kernels/model_support.cuh"

namespace inferno::model_support {

/// The session of a model that needs nothing per session but its weights.
struct WeightsState {
  const unsigned char* weights = nullptr;  // device copy of the weights blob
  bool dependent_launch = false;

  int32_t init(char* /*error*/, size_t /*error_size*/) { return INFERNO_MODEL_OK; }
};

/// session_create: checks the arguments (the weights may be null only when the model has none),
/// makes a State bound to `device_weights` (with `dependent_launch` as given) and calls
/// state->init(init_args..., error, error_size). On failure the State is deleted and *state_out
/// stays null.
template <typename State, typename... InitArgs>
int32_t create_session(const void* device_weights, uint64_t weights_bytes, bool dependent_launch,
                       void** state_out, char* error, size_t error_size,
                       const InitArgs&... init_args) {
  if (state_out == nullptr) {
    write_error(error, error_size, "session_create: null state pointer");
    return INFERNO_MODEL_BAD_ARGUMENT;
  }
  *state_out = nullptr;
  if (weights_bytes > 0 && device_weights == nullptr) {
    write_error(error, error_size, "session_create: null weights");
    return INFERNO_MODEL_BAD_ARGUMENT;
  }
  State* state = new (std::nothrow) State{};
  if (state == nullptr) {
    write_error(error, error_size, "session_create: out of host memory");
    return INFERNO_MODEL_CUDA_ERROR;
  }
  state->weights = static_cast<const unsigned char*>(device_weights);
  state->dependent_launch = dependent_launch;
  const int32_t status = state->init(init_args..., error, error_size);
  if (status != INFERNO_MODEL_OK) {
    delete state;
    return status;
  }
  *state_out = state;
  return INFERNO_MODEL_OK;
}

/// create_session with the weights' size after the error buffer, so that a macro can pass the
/// size and the init arguments as one list.
template <typename State, typename... InitArgs>
int32_t create_session_sized(const void* device_weights, void** state_out, char* error,
                             size_t error_size, uint64_t weights_bytes,
                             const InitArgs&... init_args) {
  return create_session<State>(device_weights, weights_bytes,
                               ::inferno::kernels::dependent_launch_available(), state_out, error,
                               error_size, init_args...);
}

/// session_destroy: frees what create_session<State> made. Accepts null.
template <typename State>
void destroy_session(void* state) {
  delete static_cast<State*>(state);
}

/// The run() arguments besides the state that a model reads, for begin_run to check (or 0).
constexpr unsigned kRunInputs = 1u;   // args->inputs
constexpr unsigned kRunOutputs = 2u;  // args->outputs
constexpr unsigned kRunArena = 4u;    // args->arena
constexpr unsigned kRunStates = 8u;   // args->states

/// run()'s first step: refuses a null state, argument struct, or a null one of the arguments in
/// `reads` (kRun* flags), then clears a stale CUDA error left by earlier work on this thread. A
/// sticky one cannot be cleared: the device is lost and run() fails.
inline int32_t begin_run(const void* state, const inferno_model_run_args* args, unsigned reads,
                         char* error, size_t error_size) {
  if (state == nullptr || args == nullptr ||
      ((reads & kRunInputs) != 0 && args->inputs == nullptr) ||
      ((reads & kRunOutputs) != 0 && args->outputs == nullptr) ||
      ((reads & kRunArena) != 0 && args->arena == nullptr) ||
      ((reads & kRunStates) != 0 && args->states == nullptr)) {
    write_error(error, error_size, "run: null state, arguments, buffer list, arena or states");
    return INFERNO_MODEL_BAD_ARGUMENT;
  }
  const cudaError_t earlier = cudaGetLastError();  // clears a stale error; a sticky one stays
  if (is_sticky(earlier)) return cuda_failure(earlier, "run", error, error_size);
  return INFERNO_MODEL_OK;
}

}  // namespace inferno::model_support

// A model's session_create and session_destroy for its State: `...` is the weights' size, then
// what State::init takes (GemmState: the GEMM specs and the workspace size).
#define INFERNO_MODEL_SESSION_FUNCTIONS(State, ...)                                                \
  int32_t session_create(const void* device_weights, void** state_out, char* error,                \
                         size_t error_size) {                                                      \
    return ::inferno::model_support::create_session_sized<State>(device_weights, state_out, error, \
                                                                 error_size, __VA_ARGS__);         \
  }                                                                                                \
  void session_destroy(void* state) { ::inferno::model_support::destroy_session<State>(state); }
