// A hand-written test double of an LLM compiled from transformers' ExecuTorch recipe (model ABI 2):
// entry points for 4 tokens (the model), 1 token (the decode step) and 8 tokens (variants), with
// inputs input_ids i64[1,S] and cache_position i64[S] and logits [1,S,1000]; two states. S is a
// dynamic dim of the export, "seq_length" in 1..31 (the dims table, inferno/model_dims.h).
//
//   cache   i64[32], zeros: a run writes cache[p] = id + 1 for each of its (id, position p) pairs,
//           like a KV cache (32 is max_positions).
//   counter i64[1], initially 5 (from the weights): every run adds 1 (state that is no KV cache).
//
// Row s (position p) of the logits peaks at target = (sum over j <= p of cache[j] * (j + 1)) * 31
// + 7 p + counter, mod 1000: logits[s][v] = -min(d^2, 2000) / 2 with d = |v - target|. So a
// token depends on every earlier one (causally) and on how many runs came before; the tests
// recompute it on the host (test_llm_reference.h).
//
//   TEST_LLM_F16   logits in f16 (exact: multiples of 0.5 up to 1000)
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <new>

#include "inferno/model_abi.h"
#include "inferno/model_dims.h"
#include "test_llm_shape.h"
#include "test_model_manifest.h"

#ifndef TEST_SM_ARCHS
#define TEST_SM_ARCHS 90
#endif

namespace {

using namespace inferno::test::llm;

#ifdef TEST_LLM_F16
using Logit = __half;
constexpr int32_t kLogitDtype = INFERNO_DTYPE_F16;
#else
using Logit = float;
constexpr int32_t kLogitDtype = INFERNO_DTYPE_F32;
#endif

struct alignas(256) Weights {
  int64_t counter_init[32];
};
constexpr Weights make_weights() {
  Weights w{};
  w.counter_init[0] = kCounterInit;
  return w;
}
alignas(256) constexpr Weights kWeights = make_weights();

const int32_t kArchs[] = {TEST_SM_ARCHS};
const int64_t kCacheShape[] = {kMaxPositions};
const int64_t kCounterShape[] = {1};
const inferno_state_desc kStates[] = {
    {{"cache", INFERNO_DTYPE_I64, 1, kCacheShape}, INFERNO_STATE_INIT_ZERO},
    {{"counter", INFERNO_DTYPE_I64, 1, kCounterShape}, 0}};

__global__ void write_cache(const int64_t* ids, const int64_t* positions, int64_t* cache, int n) {
  const int s = threadIdx.x;
  if (s >= n) return;
  const int64_t p = positions[s];
  if (p >= 0 && p < kMaxPositions) cache[p] = ids[s] + 1;  // out-of-range rows write nothing
}

__device__ float logit_of(int64_t v, int64_t target) {
  const int64_t d = v > target ? v - target : target - v;
  return -0.5f * static_cast<float>(d * d < 2000 ? d * d : 2000);
}

// Block s: row s. The arena holds each row's target (scratch that every entry point uses).
__global__ void compute_targets(const int64_t* positions, const int64_t* cache,
                                const int64_t* counter, int64_t* targets) {
  const int s = blockIdx.x;
  if (threadIdx.x != 0) return;
  const int64_t p = positions[s];
  int64_t acc = 0;
  for (int64_t j = 0; j <= p && j < kMaxPositions; ++j) acc += cache[j] * (j + 1);
  targets[s] = ((acc * 31 + 7 * p + counter[0]) % kVocab + kVocab) % kVocab;
}

__global__ void write_logits(const int64_t* targets, Logit* logits) {
  const int s = blockIdx.x;
  for (int v = threadIdx.x; v < kVocab; v += blockDim.x) {
    logits[static_cast<int64_t>(s) * kVocab + v] = static_cast<Logit>(logit_of(v, targets[s]));
  }
}

__global__ void count_run(int64_t* counter) { counter[0] += 1; }

int32_t session_create(const void* device_weights, void** state, char* error, size_t error_size) {
  if (device_weights == nullptr || state == nullptr) {
    std::snprintf(error, error_size, "null weights or state");
    return INFERNO_MODEL_BAD_ARGUMENT;
  }
  *state = new (std::nothrow) int{0};
  return *state != nullptr ? INFERNO_MODEL_OK : INFERNO_MODEL_BAD_ARGUMENT;
}

template <int S>
int32_t run(void*, const inferno_model_run_args* args, char* error, size_t error_size) {
  auto stream = static_cast<cudaStream_t>(args->stream);
  const auto* ids = static_cast<const int64_t*>(args->inputs[0]);
  const auto* positions = static_cast<const int64_t*>(args->inputs[1]);
  auto* cache = static_cast<int64_t*>(args->states[0]);
  auto* counter = static_cast<int64_t*>(args->states[1]);
  auto* targets = static_cast<int64_t*>(args->arena);
  write_cache<<<1, 32, 0, stream>>>(ids, positions, cache, S);
  compute_targets<<<S, 32, 0, stream>>>(positions, cache, counter, targets);
  write_logits<<<S, 256, 0, stream>>>(targets, static_cast<Logit*>(args->outputs[0]));
  count_run<<<1, 1, 0, stream>>>(counter);
  const cudaError_t launched = cudaGetLastError();
  if (launched == cudaSuccess) return INFERNO_MODEL_OK;
  std::snprintf(error, error_size, "%s", cudaGetErrorString(launched));
  return INFERNO_MODEL_CUDA_ERROR;
}

void session_destroy(void* state) { delete static_cast<int*>(state); }

// One entry point's shapes, kept alive with the descriptors that point at them.
template <int S>
struct Shapes {
  static constexpr int64_t ids[] = {1, S};
  static constexpr int64_t positions[] = {S};
  static constexpr int64_t logits[] = {1, S, kVocab};
  static constexpr inferno_tensor_desc inputs[] = {
      {"input_ids", INFERNO_DTYPE_I64, 2, ids},
      {"cache_position", INFERNO_DTYPE_I64, 1, positions}};
  static constexpr inferno_tensor_desc outputs[] = {{"logits", kLogitDtype, 3, logits}};
};

template <int S>
inferno_model make_entry() {
  inferno_model m{};
  m.abi_version = INFERNO_MODEL_ABI_VERSION;
  m.struct_size = sizeof(inferno_model);
  m.manifest = inferno::test::test_manifest(kArchs, &kWeights, sizeof(kWeights));
  m.num_inputs = 2;
  m.inputs = Shapes<S>::inputs;
  m.num_outputs = 1;
  m.outputs = Shapes<S>::outputs;
  m.arena_bytes = 8 * S;  // the targets
  m.weights_bytes = sizeof(kWeights);
  m.weights = &kWeights;
  m.session_create = session_create;
  m.run = run<S>;
  m.session_destroy = session_destroy;
  m.num_states = 2;
  m.states = kStates;
  m.max_positions = kMaxPositions;
  return m;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const inferno_model* INFERNO_MODEL_ENTRY(void) {
  static const inferno_model decode = make_entry<1>();
  static const inferno_model long_prefill = make_entry<8>();
  static const inferno_model* const variants[] = {&decode, &long_prefill};
  static const inferno_model model = [] {
    inferno_model m = make_entry<kModelLength>();
    m.num_variants = 2;
    m.variants = variants;
    return m;
  }();
  return &model;
}

extern "C" __attribute__((visibility("default"))) const inferno_model_dims*
INFERNO_MODEL_DIMS_ENTRY(void) {
  static const inferno_model_dim dims[] = {{"seq_length", 1, kMaxPositions - 1}};
  static const inferno_model_dim_use uses[] = {{0, 1, 0}, {1, 0, 0}};
  static const inferno_model_dims table{
      INFERNO_MODEL_DIMS_VERSION, sizeof(inferno_model_dims), 1, dims, 2, uses, -1};
  return &table;
}
