// A hand-written test double of a generated model.so: y = x * w + b, elementwise on f32[4,8], with
// w and b in an embedded weights blob. Two kernels through the arena (t = x * w; y = t + b) so the
// tests also see per-session scratch and a multi-node CUDA graph.
//
// Compile definitions make the broken variants the runtime must refuse:
//   TEST_ABI_VERSION=999        wrong ABI version
//   TEST_CORRUPT_CHECKSUM       manifest checksum with one bit flipped
//   TEST_SM_ARCHS=75            the archs the manifest claims (default 90)
//   TEST_EXTERNAL_WEIGHTS=name  weights in a file beside the .so instead of embedded
//   TEST_FAULT                  writes through a bad pointer: a sticky illegal-address fault
#include <cuda_runtime.h>

#include <cstdio>
#include <new>

#include "inferno/model_abi.h"
#include "test_model_manifest.h"

#ifndef TEST_ABI_VERSION
#define TEST_ABI_VERSION INFERNO_MODEL_ABI_VERSION
#endif
#ifndef TEST_SM_ARCHS
#define TEST_SM_ARCHS 90
#endif

namespace {

constexpr int kRows = 4;
constexpr int kCols = 8;
constexpr int kElements = kRows * kCols;

// The blob: w then b. Exact binary fractions, so host and device agree bitwise.
struct Weights {
  float w[kElements];
  float b[kElements];
};
constexpr Weights make_weights() {
  Weights weights{};
  for (int i = 0; i < kElements; ++i) {
    weights.w[i] = 0.5f + 0.25f * static_cast<float>(i % 7);
    weights.b[i] = -1.0f + 0.125f * static_cast<float>(i);
  }
  return weights;
}
alignas(256) constexpr Weights kWeights = make_weights();

const int64_t kShape[] = {kRows, kCols};
const inferno_tensor_desc kInputs[] = {{"x", INFERNO_DTYPE_F32, 2, kShape}};
const inferno_tensor_desc kOutputs[] = {{"y", INFERNO_DTYPE_F32, 2, kShape}};
const int32_t kArchs[] = {TEST_SM_ARCHS};

struct State {
  const Weights* weights;  // device copy
};

__global__ void multiply(const float* x, const float* w, float* t) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kElements) t[i] = x[i] * w[i];
}

__global__ void add(const float* t, const float* b, float* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kElements) y[i] = t[i] + b[i];
}

int32_t cuda_status(cudaError_t error, char* message, size_t size) {
  std::snprintf(message, size, "%s", cudaGetErrorString(error));
  return error == cudaErrorIllegalAddress || error == cudaErrorLaunchFailure
             ? INFERNO_MODEL_DEVICE_LOST
             : INFERNO_MODEL_CUDA_ERROR;
}

int32_t session_create(const void* device_weights, void** state, char* error, size_t error_size) {
  if (device_weights == nullptr || state == nullptr) {
    std::snprintf(error, error_size, "null weights or state");
    return INFERNO_MODEL_BAD_ARGUMENT;
  }
  *state = new (std::nothrow) State{static_cast<const Weights*>(device_weights)};
  return *state != nullptr ? INFERNO_MODEL_OK : INFERNO_MODEL_BAD_ARGUMENT;
}

int32_t run(void* state, const inferno_model_run_args* args, char* error, size_t error_size) {
  const Weights* weights = static_cast<State*>(state)->weights;
  auto stream = static_cast<cudaStream_t>(args->stream);
  auto* t = static_cast<float*>(args->arena);
  multiply<<<1, kElements, 0, stream>>>(static_cast<const float*>(args->inputs[0]), weights->w, t);
#ifdef TEST_FAULT
  float* y = reinterpret_cast<float*>(uintptr_t{256});  // no allocation lives there
#else
  float* y = static_cast<float*>(args->outputs[0]);
#endif
  add<<<1, kElements, 0, stream>>>(t, weights->b, y);
  const cudaError_t launched = cudaGetLastError();
  return launched == cudaSuccess ? INFERNO_MODEL_OK : cuda_status(launched, error, error_size);
}

void session_destroy(void* state) { delete static_cast<State*>(state); }

inferno_model make_model() {
  inferno_model m{};
  m.abi_version = TEST_ABI_VERSION;
  m.struct_size = sizeof(inferno_model);
  m.manifest = inferno::test::test_manifest(kArchs, &kWeights, sizeof(kWeights));
#ifdef TEST_CORRUPT_CHECKSUM
  m.manifest.weights_checksum ^= 1;
#endif
  m.num_inputs = 1;
  m.inputs = kInputs;
  m.num_outputs = 1;
  m.outputs = kOutputs;
  m.arena_bytes = 256 * 4;
  m.workspace_bytes = 0;
  m.weights_bytes = sizeof(kWeights);
#ifdef TEST_EXTERNAL_WEIGHTS
  m.weights_file = TEST_EXTERNAL_WEIGHTS;
#else
  m.weights = &kWeights;
#endif
  m.session_create = session_create;
  m.run = run;
  m.session_destroy = session_destroy;
  return m;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const inferno_model* INFERNO_MODEL_ENTRY(void) {
  static const inferno_model model = make_model();
  return &model;
}
