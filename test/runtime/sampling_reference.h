// Host references for the runtime's next-token choice (runtime/sample_kernel.cu): a mirror that
// must choose the very token the GPU kernel chooses (same arithmetic from runtime/sample_math.h,
// sequential instead of parallel), and the textbook definition of top-k / top-p (sort, double
// precision, Hugging Face's semantics) that the mirror's kept set is checked against.
#pragma once

#include <cstdint>
#include <vector>

namespace inferno::test {

struct SamplingOptions {
  float temperature = 0;  // 0: greedy
  int32_t top_k = 0;
  float top_p = 1;
  uint64_t seed = 0;
};

/// The token the kernel chooses from one row of logits at generation step `step`.
int64_t mirror_token(const std::vector<float>& logits, const SamplingOptions& options,
                     uint64_t step);
/// The tokens the mirror may sample from (keys at or above its threshold), ascending.
std::vector<int32_t> mirror_kept(const std::vector<float>& logits, const SamplingOptions& options);
/// The tokens top-k then top-p keep by definition: the k highest logits (ties with the k-th
/// kept), then the fewest most likely of those whose probability reaches top_p; ascending.
std::vector<int32_t> textbook_kept(const std::vector<float>& logits,
                                   const SamplingOptions& options);
/// softmax(logits / temperature) restricted to `kept` and renormalized, in double precision.
std::vector<double> textbook_probabilities(const std::vector<float>& logits,
                                           const SamplingOptions& options,
                                           const std::vector<int32_t>& kept);

}  // namespace inferno::test
