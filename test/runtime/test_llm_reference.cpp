#include "test_llm_reference.h"

#include <algorithm>

namespace inferno::test {

using llm::kMaxPositions;
using llm::kVocab;

void LlmReference::reset() {
  std::fill(cache_, cache_ + kMaxPositions, 0);
  counter_ = llm::kCounterInit;
}

std::vector<int64_t> LlmReference::run(const std::vector<int64_t>& ids,
                                       const std::vector<int64_t>& positions) {
  for (size_t s = 0; s < ids.size(); ++s) {
    if (positions[s] >= 0 && positions[s] < kMaxPositions) cache_[positions[s]] = ids[s] + 1;
  }
  std::vector<int64_t> targets;
  for (const int64_t p : positions) {
    int64_t acc = 0;
    for (int64_t j = 0; j <= p && j < kMaxPositions; ++j) acc += cache_[j] * (j + 1);
    targets.push_back(((acc * 31 + 7 * p + counter_) % kVocab + kVocab) % kVocab);
  }
  ++counter_;
  return targets;
}

std::vector<float> LlmReference::logits(int64_t target) {
  std::vector<float> row(kVocab);
  for (int64_t v = 0; v < kVocab; ++v) {
    const int64_t d = v > target ? v - target : target - v;
    row[v] = -0.5f * static_cast<float>(std::min<int64_t>(d * d, 2000));
  }
  return row;
}

std::vector<int64_t> reference_generate(const std::vector<int64_t>& prompt, int32_t max_new_tokens,
                                        const SamplingOptions& options,
                                        const std::vector<int64_t>& stop_tokens) {
  const int64_t lengths[] = {1, 4, 8};
  LlmReference model;
  const auto length = static_cast<int64_t>(prompt.size());
  int64_t target = 0;
  for (int64_t start = 0; start < length;) {
    const int64_t left = length - start, room = kMaxPositions - start;
    int64_t pick = 1;
    for (const int64_t s : lengths) {
      if (s > room) break;
      pick = s;
      if (s >= left) break;
    }
    const int64_t tokens = std::min(left, pick);
    std::vector<int64_t> ids, positions;
    for (int64_t j = 0; j < pick; ++j) {
      ids.push_back(prompt[start + std::min(j, tokens - 1)]);
      positions.push_back(start + j);
    }
    target = model.run(ids, positions)[tokens - 1];
    start += tokens;
  }
  std::vector<int64_t> out;
  int64_t position = length;
  for (int32_t step = 0; step < max_new_tokens; ++step) {
    if (step > 0) target = model.run({out.back()}, {position++})[0];
    out.push_back(mirror_token(LlmReference::logits(target), options, step));
    if (std::find(stop_tokens.begin(), stop_tokens.end(), out.back()) != stop_tokens.end()) break;
  }
  return out;
}

}  // namespace inferno::test
