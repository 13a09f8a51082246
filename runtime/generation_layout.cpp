#include "runtime/generation_layout.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "runtime/descriptor.h"
#include "runtime/error.h"

namespace inferno::runtime {
namespace {

int32_t find_input(const inferno_model& m, const char* name) {
  for (int32_t i = 0; i < m.num_inputs; ++i) {
    if (std::strcmp(m.inputs[i].name, name) == 0) return i;
  }
  return -1;
}

bool is_float(int32_t dtype) {
  return dtype == INFERNO_DTYPE_F32 || dtype == INFERNO_DTYPE_F16 || dtype == INFERNO_DTYPE_BF16;
}

// The entry point's role in generation, or a reason it has none.
std::string read_entry(const inferno_model& m, int32_t index, GenerationEntry& out, int64_t& vocab,
                       int32_t& logits_dtype) {
  const std::string where = "variant " + std::to_string(index);
  if (m.num_inputs != 2 || m.num_outputs != 1) {
    return where + " does not take (input_ids, cache_position) and return logits";
  }
  int32_t ids = find_input(m, "input_ids");
  int32_t positions = find_input(m, "cache_position");
  if (ids < 0 || positions < 0) {
    ids = 0;
    positions = 1;
  }
  const inferno_tensor_desc& a = m.inputs[ids];
  const inferno_tensor_desc& p = m.inputs[positions];
  const inferno_tensor_desc& y = m.outputs[0];
  if (a.dtype != INFERNO_DTYPE_I64 || a.rank != 2 || a.shape[0] != 1 || a.shape[1] < 1) {
    return where + " takes token ids " + type_text(a.dtype, a.rank, a.shape) + ", not i64[1,S]";
  }
  const int64_t length = a.shape[1];
  if (p.dtype != INFERNO_DTYPE_I64 || p.rank != 1 || p.shape[0] != length) {
    return where + " takes positions " + type_text(p.dtype, p.rank, p.shape) + ", not i64[" +
           std::to_string(length) + "]";
  }
  if (!is_float(y.dtype) || y.rank != 3 || y.shape[0] != 1 || y.shape[1] != length ||
      y.shape[2] < 1 || y.shape[2] > INT32_MAX) {
    return where + " returns " + type_text(y.dtype, y.rank, y.shape) + ", not logits [1," +
           std::to_string(length) + ",vocab]";
  }
  out = {index, length, ids, positions};
  vocab = y.shape[2];
  logits_dtype = y.dtype;
  return "";
}

[[noreturn]] void refuse(const std::string& message) {
  fail(INFERNO_STATUS_INVALID_ARGUMENT, message);
}

}  // namespace

GenerationLayout analyze_generation(const EntryPoints& entries, int64_t max_positions) {
  GenerationLayout layout;
  layout.max_positions = max_positions;
  for (size_t e = 0; e < entries.size(); ++e) {
    GenerationEntry entry{};
    int64_t vocab = 0;
    int32_t dtype = 0;
    const std::string problem =
        read_entry(*entries[e], static_cast<int32_t>(e), entry, vocab, dtype);
    if (!problem.empty()) {
      layout.problem = "the model is not an LLM to generate with: " + problem;
      return layout;
    }
    if (e > 0 && (vocab != layout.vocab || dtype != layout.logits_dtype)) {
      layout.problem = "the model's variants disagree on the logits' vocabulary or dtype";
      return layout;
    }
    layout.vocab = vocab;
    layout.logits_dtype = dtype;
    layout.lengths.push_back(entry);
  }
  std::sort(layout.lengths.begin(), layout.lengths.end(),
            [](const GenerationEntry& a, const GenerationEntry& b) { return a.length < b.length; });
  if (layout.lengths.front().length != 1) {
    layout.problem = "the model has no one-token (decode) variant: its variants take " +
                     std::to_string(layout.lengths.front().length) + " tokens or more";
    return layout;
  }
  layout.supported = true;
  return layout;
}

std::vector<PrefillChunk> plan_prefill(const GenerationLayout& layout, int64_t prompt_len) {
  std::vector<PrefillChunk> chunks;
  const auto n = static_cast<int32_t>(layout.lengths.size());
  for (int64_t start = 0; start < prompt_len;) {
    const int64_t left = prompt_len - start;
    const int64_t room = layout.max_positions > 0 ? layout.max_positions - start : INT64_MAX;
    int32_t pick = 0;  // the decode step always fits: start < prompt_len <= max_positions
    for (int32_t s = 0; s < n && layout.lengths[s].length <= room; ++s) {
      pick = s;
      if (layout.lengths[s].length >= left) break;  // the shortest that takes the rest
    }
    const int64_t tokens = std::min(left, layout.lengths[pick].length);
    chunks.push_back({pick, start, tokens});
    start += tokens;
  }
  return chunks;
}

void check_generate_request(const GenerationLayout& layout, const int64_t* prompt,
                            int32_t prompt_len, const inferno_generate_options& o) {
  if (!layout.supported) refuse(layout.problem);
  if (prompt_len < 1) refuse("the prompt is empty (generate needs at least one token)");
  if (prompt == nullptr) refuse("prompt is null");
  if (o.max_new_tokens < 1 || o.max_new_tokens > kMaxNewTokens) {
    refuse("max_new_tokens is " + std::to_string(o.max_new_tokens) + ", not in 1.." +
           std::to_string(kMaxNewTokens));
  }
  if (!std::isfinite(o.temperature) || o.temperature < 0) {
    refuse("temperature must be 0 (greedy) or positive");
  }
  if (o.top_k < 0) refuse("top_k must be 0 (off) or positive");
  if (!(o.top_p > 0 && o.top_p <= 1)) refuse("top_p must be in (0, 1]");
  if (o.num_stop_tokens < 0 || o.num_stop_tokens > kMaxStopTokens) {
    refuse("num_stop_tokens must be in 0.." + std::to_string(kMaxStopTokens));
  }
  if (o.num_stop_tokens > 0 && o.stop_tokens == nullptr) refuse("stop_tokens is null");
  const int64_t total = int64_t{prompt_len} + o.max_new_tokens;
  if (layout.max_positions > 0 && total > layout.max_positions) {
    refuse("the prompt (" + std::to_string(prompt_len) + " tokens) and max_new_tokens (" +
           std::to_string(o.max_new_tokens) + ") exceed the model's max_positions " +
           std::to_string(layout.max_positions) + " (its KV cache length)");
  }
  for (int32_t i = 0; i < prompt_len; ++i) {
    if (prompt[i] < 0 || prompt[i] >= layout.vocab) {
      refuse("prompt token " + std::to_string(i) + " is " + std::to_string(prompt[i]) +
             ", outside the vocabulary [0, " + std::to_string(layout.vocab) + ")");
    }
  }
}

}  // namespace inferno::runtime
