// The next-token kernel of generation: one block reads one row of logits, chooses a token (greedy
// argmax, or sampled with temperature, top-k, top-p and a seed; see sample_math.h) and feeds it
// back: the token into the one-token input buffer, its position (the row's plus one) into the
// position buffer, and the token into the caller-visible token list. It runs inside the decode
// step's CUDA graph, so the host only reads the 8-byte token back.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace inferno::runtime {

/// What the kernel reads and advances, in device memory: written by the host once per generate
/// call (so a captured graph stays valid across calls), `step` advanced by each launch.
struct SampleParams {
  float scale;  // log2(e) / temperature
  int32_t greedy;
  int32_t top_k;  // 0: off
  float top_p;    // 1: off
  uint64_t seed;
  int64_t* tokens;  // token `step` goes to tokens[step] (mapped host memory) while step < capacity
  int64_t capacity;
  int64_t step;
};

struct SampleLaunch {
  const void* logits;  // [rows, vocab] of logits_dtype
  int32_t logits_dtype;
  int64_t row;
  int32_t vocab;
  SampleParams* params;
  int64_t* ids;        // ids[0] = the token
  int64_t* positions;  // positions[0] = positions[row] + 1
};

/// Enqueues the kernel on `stream` (may be capturing). Throws Error when the launch fails.
void enqueue_sample(const SampleLaunch& launch, cudaStream_t stream);

}  // namespace inferno::runtime
