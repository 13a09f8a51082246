// The test LLM's constants (test_llm.cu), shared with the tests that recompute its tokens.
#pragma once

#include <cstdint>

namespace inferno::test::llm {

constexpr int64_t kVocab = 1000;
constexpr int64_t kMaxPositions = 32;
constexpr int64_t kCounterInit = 5;
constexpr int kModelLength = 4;  // the model's own entry point; variants take 1 and 8 tokens

}  // namespace inferno::test::llm
