// GPU test helpers for the test LLM (test_llm.cu): buffers for its inputs and logits, and one run
// through inferno_session_run that returns each row's peak token.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "inferno/runtime.hpp"
#include "test_llm_shape.h"

namespace inferno::test {

/// Device buffers for up to 8 tokens: ids, positions and f32 logits, freed on destruction.
class LlmBuffers {
 public:
  LlmBuffers();
  ~LlmBuffers();
  LlmBuffers(const LlmBuffers&) = delete;
  LlmBuffers& operator=(const LlmBuffers&) = delete;

  /// Runs `session` on (ids, positions) with the shapes [1,S], [S] -> [1,S,1000] (S = ids.size())
  /// and returns each row's argmax, or the status of a refused run (rows then empty).
  inferno_status run(inferno::Session& session, cudaStream_t stream,
                     const std::vector<int64_t>& ids, const std::vector<int64_t>& positions,
                     std::vector<int64_t>& rows);
  /// run() that must succeed.
  std::vector<int64_t> peaks(inferno::Session& session, cudaStream_t stream,
                             const std::vector<int64_t>& ids,
                             const std::vector<int64_t>& positions);

 private:
  int64_t* ids_ = nullptr;
  int64_t* positions_ = nullptr;
  float* logits_ = nullptr;
};

}  // namespace inferno::test
