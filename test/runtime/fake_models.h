// Model descriptors built in host memory for the CPU tests of the runtime's internals (no .so, no
// GPU): an LLM-shaped family of entry points (input_ids i64[1,S], cache_position i64[S] -> logits
// f32[1,S,vocab]) with states, whose fields the tests then break one at a time.
#pragma once

#include <deque>
#include <vector>

#include "inferno/model_abi.h"

namespace inferno::test {

class FakeLlm {
 public:
  /// Entry points of `lengths` tokens (the first is the model itself), `vocab` logits each.
  FakeLlm(const std::vector<int64_t>& lengths, int64_t vocab, int64_t max_positions = 32);
  FakeLlm(const FakeLlm&) = delete;
  FakeLlm& operator=(const FakeLlm&) = delete;

  inferno_model& model() { return entries_.front(); }
  inferno_model& variant(size_t i) { return entries_[i + 1]; }
  /// The entry points as the runtime lists them.
  std::vector<const inferno_model*> entries() const;
  /// States: cache f32[max_positions, 4] (zeros) and counter i64[1] (weights at offset 8).
  std::vector<inferno_state_desc> states;
  std::vector<unsigned char> weights = std::vector<unsigned char>(64);

 private:
  struct Shapes {
    int64_t ids[2];
    int64_t positions[1];
    int64_t logits[3];
    inferno_tensor_desc inputs[2];
    inferno_tensor_desc outputs[1];
  };
  std::deque<Shapes> shapes_;  // stable addresses
  std::deque<inferno_model> entries_;
  std::vector<const inferno_model*> variant_pointers_;
  int64_t cache_shape_[2];
  int64_t counter_shape_[1] = {1};
};

}  // namespace inferno::test
