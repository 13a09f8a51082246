// How an LLM's entry points generate tokens: which entry point takes how many tokens and where
// its token ids, positions and logits are; the prompt's plan of runs; and the checks a generate
// request passes before anything is launched. Pure host logic, so the CPU tests reach all of it.
//
// An LLM compiled from transformers' ExecuTorch recipe has, per entry point, inputs input_ids
// i64[1,S] and cache_position i64[S] (found by those names, else in that order) and one output,
// logits [1,S,vocab] (f32, f16 or bf16). One entry point has S = 1 (the decode step).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "inferno/runtime.h"
#include "runtime/entry_points.h"

namespace inferno::runtime {

/// Most new tokens one generate call makes, and most stop tokens it takes.
constexpr int32_t kMaxNewTokens = 1 << 20;
constexpr int32_t kMaxStopTokens = 1024;

/// One entry point of an LLM: it takes `length` tokens at a time.
struct GenerationEntry {
  int32_t entry;  // index into the model's entry points
  int64_t length;
  int32_t ids_input;
  int32_t positions_input;
};

struct GenerationLayout {
  bool supported = false;
  std::string problem;                   // why the model cannot generate, when !supported
  std::vector<GenerationEntry> lengths;  // by length, ascending: lengths[0] is the decode step
  int64_t vocab = 0;                     // the logits' last dimension
  int32_t logits_dtype = 0;
  int64_t max_positions = 0;  // 0: unbounded
  int64_t max_length() const { return lengths.back().length; }
};
/// Whether (and how) the entry points of a validated model generate.
GenerationLayout analyze_generation(const EntryPoints& entries, int64_t max_positions);

/// One run over the prompt: `tokens` prompt tokens from `start` on, padded to the entry's length.
struct PrefillChunk {
  int32_t slot;  // index into GenerationLayout::lengths
  int64_t start;
  int64_t tokens;
};
/// The prompt's runs: while more is left than the longest entry takes, runs of the longest; then
/// the shortest entry that takes the rest in one run, its tail padded. Padded positions must stay
/// below max_positions, so near the end of the cache a shorter entry (down to the decode step) is
/// used instead. `prompt_len` must be at least 1 and fit (see check_generate_request).
std::vector<PrefillChunk> plan_prefill(const GenerationLayout& layout, int64_t prompt_len);

/// Throws INVALID_ARGUMENT for a request generate must refuse: a model that cannot generate, an
/// empty prompt, a token outside [0, vocab), a prompt plus max_new_tokens beyond max_positions, or
/// options outside their ranges. `options` are already defaulted (never null).
void check_generate_request(const GenerationLayout& layout, const int64_t* prompt,
                            int32_t prompt_len, const inferno_generate_options& options);

}  // namespace inferno::runtime
