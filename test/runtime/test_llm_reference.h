// The test LLM (test_llm.cu) recomputed on the host: its state, its runs, and the tokens the
// runtime's generate must produce from it (greedy, or sampled as the kernel samples).
#pragma once

#include <cstdint>
#include <vector>

#include "sampling_reference.h"
#include "test_llm_shape.h"

namespace inferno::test {

class LlmReference {
 public:
  LlmReference() { reset(); }
  /// The state as a new session (or a reset) has it.
  void reset();
  /// One run over (id, position) pairs: updates the state, returns each row's peak token.
  std::vector<int64_t> run(const std::vector<int64_t>& ids, const std::vector<int64_t>& positions);
  /// A row of logits peaking at `target`.
  static std::vector<float> logits(int64_t target);

 private:
  int64_t cache_[llm::kMaxPositions];
  int64_t counter_;
};

/// The tokens inferno_session_generate makes from `prompt`: the prompt in runs of 8, 4 or 1 tokens
/// (the shortest holding the rest, padded with its last token; the longest that fits otherwise),
/// then one-token steps; each token as the kernel chooses it. Stops after a stop token.
std::vector<int64_t> reference_generate(const std::vector<int64_t>& prompt, int32_t max_new_tokens,
                                        const SamplingOptions& options,
                                        const std::vector<int64_t>& stop_tokens = {});

}  // namespace inferno::test
