// Generation's host logic without a GPU: which models generate, the prompt's plan of runs, and
// the requests generate refuses before launching anything.
#include "runtime/generation_layout.h"

#include <string>
#include <vector>

#include "fake_models.h"
#include "runtime/error.h"
#include "runtime_test_support.h"
#include "support/catch.h"

using inferno::test::contains;
using inferno::test::FakeLlm;
namespace rt = inferno::runtime;

namespace {

// The plan as (length, start, tokens) triples.
std::vector<std::vector<int64_t>> plan(const rt::GenerationLayout& layout, int64_t prompt) {
  std::vector<std::vector<int64_t>> out;
  for (const rt::PrefillChunk& c : rt::plan_prefill(layout, prompt)) {
    out.push_back({layout.lengths[c.slot].length, c.start, c.tokens});
  }
  return out;
}

// The message check_generate_request throws ("" when it accepts the request).
std::string refusal(const rt::GenerationLayout& layout, const std::vector<int64_t>& prompt,
                    inferno_generate_options options) {
  try {
    rt::check_generate_request(layout, prompt.data(), static_cast<int32_t>(prompt.size()), options);
  } catch (const rt::Error& e) {
    CHECK(e.status() == INFERNO_STATUS_INVALID_ARGUMENT);
    return e.what();
  }
  return "";
}

inferno_generate_options defaults(int32_t max_new_tokens) {
  inferno_generate_options o{};
  o.struct_size = sizeof o;
  o.max_new_tokens = max_new_tokens;
  o.top_p = 1.0f;
  return o;
}

}  // namespace

TEST_CASE("generation: an LLM's entry points sorted by length, the decode step first",
          "[runtime]") {
  FakeLlm llm({16, 1, 64}, 50);
  const rt::GenerationLayout layout = rt::analyze_generation(llm.entries(), 32);
  REQUIRE(layout.supported);
  REQUIRE(layout.lengths.size() == 3);
  CHECK(layout.lengths[0].length == 1);
  CHECK(layout.lengths[0].entry == 1);
  CHECK(layout.lengths[2].entry == 2);
  CHECK(layout.lengths[0].ids_input == 0);
  CHECK(layout.lengths[0].positions_input == 1);
  CHECK(layout.vocab == 50);
  CHECK(layout.max_length() == 64);
}

TEST_CASE("generation: inputs are found by name, else taken in order", "[runtime]") {
  FakeLlm llm({4, 1}, 50);
  for (size_t i = 0; i < 2; ++i) {  // swap the inputs' order in both entry points
    inferno_model& m = i == 0 ? llm.model() : llm.variant(0);
    auto* inputs = const_cast<inferno_tensor_desc*>(m.inputs);
    std::swap(inputs[0], inputs[1]);
  }
  rt::GenerationLayout layout = rt::analyze_generation(llm.entries(), 32);
  REQUIRE(layout.supported);
  CHECK(layout.lengths[0].ids_input == 1);
  CHECK(layout.lengths[0].positions_input == 0);
  for (size_t i = 0; i < 2; ++i) {  // unnamed: ids must come first, so now the order is wrong
    inferno_model& m = i == 0 ? llm.model() : llm.variant(0);
    auto* inputs = const_cast<inferno_tensor_desc*>(m.inputs);
    inputs[0].name = inputs[1].name = "x";
  }
  layout = rt::analyze_generation(llm.entries(), 32);
  CHECK_FALSE(layout.supported);
  CHECK(contains(layout.problem, "variant 0 takes token ids i64[4], not i64[1,S]"));
}

TEST_CASE("generation: models that cannot generate say why", "[runtime]") {
  FakeLlm no_decode({4, 8}, 50);
  rt::GenerationLayout layout = rt::analyze_generation(no_decode.entries(), 32);
  CHECK_FALSE(layout.supported);
  CHECK(contains(layout.problem, "no one-token (decode) variant"));

  FakeLlm logits({4, 1}, 50);
  auto* out = const_cast<inferno_tensor_desc*>(logits.variant(0).outputs);
  out->dtype = INFERNO_DTYPE_I64;
  layout = rt::analyze_generation(logits.entries(), 32);
  CHECK(contains(layout.problem, "variant 1 returns i64[1,1,50], not logits [1,1,vocab]"));
  out->dtype = INFERNO_DTYPE_F16;
  layout = rt::analyze_generation(logits.entries(), 32);
  CHECK(contains(layout.problem, "disagree on the logits' vocabulary or dtype"));

  FakeLlm one_input({4, 1}, 50);
  one_input.model().num_inputs = 1;
  layout = rt::analyze_generation(one_input.entries(), 32);
  CHECK(contains(layout.problem, "variant 0 does not take (input_ids, cache_position)"));
  CHECK(refusal(layout, {1}, defaults(1)) == layout.problem);
}

TEST_CASE("generation: the prompt's runs: longest first, the tail padded to the shortest fit",
          "[runtime]") {
  FakeLlm llm({16, 1, 4}, 50);
  const rt::GenerationLayout layout = rt::analyze_generation(llm.entries(), 40);
  using P = std::vector<std::vector<int64_t>>;
  CHECK(plan(layout, 1) == P{{1, 0, 1}});
  CHECK(plan(layout, 3) == P{{4, 0, 3}});
  CHECK(plan(layout, 4) == P{{4, 0, 4}});
  CHECK(plan(layout, 5) == P{{16, 0, 5}});
  CHECK(plan(layout, 16) == P{{16, 0, 16}});
  CHECK(plan(layout, 17) == P{{16, 0, 16}, {1, 16, 1}});
  CHECK(plan(layout, 35) == P{{16, 0, 16}, {16, 16, 16}, {4, 32, 3}});
  CHECK(plan(layout, 38) == P{{16, 0, 16}, {16, 16, 16}, {4, 32, 4}, {4, 36, 2}});
  CHECK(plan(layout, 40) == P{{16, 0, 16}, {16, 16, 16}, {4, 32, 4}, {4, 36, 4}});
  // Near the end of the cache (35 positions) a padded run may not pass it: shorter runs instead.
  const rt::GenerationLayout short_cache = rt::analyze_generation(llm.entries(), 35);
  CHECK(plan(short_cache, 34) == P{{16, 0, 16}, {16, 16, 16}, {1, 32, 1}, {1, 33, 1}});

  const rt::GenerationLayout unbounded = rt::analyze_generation(llm.entries(), 0);
  CHECK(plan(unbounded, 38) == P{{16, 0, 16}, {16, 16, 16}, {16, 32, 6}});
}

TEST_CASE("generation: bad requests are refused with the limit they break", "[runtime]") {
  FakeLlm llm({4, 1}, 50);
  const rt::GenerationLayout layout = rt::analyze_generation(llm.entries(), 32);
  CHECK(refusal(layout, {1, 2, 3}, defaults(29)).empty());
  CHECK(refusal(layout, {1, 2, 3}, defaults(30)) ==
        "the prompt (3 tokens) and max_new_tokens (30) exceed the model's max_positions 32 (its "
        "KV cache length)");
  CHECK(refusal(layout, {}, defaults(4)) ==
        "the prompt is empty (generate needs at least one token)");
  CHECK(refusal(layout, {1, 50}, defaults(4)) ==
        "prompt token 1 is 50, outside the vocabulary [0, 50)");
  CHECK(refusal(layout, {-1}, defaults(4)) ==
        "prompt token 0 is -1, outside the vocabulary [0, 50)");
  CHECK(contains(refusal(layout, {1}, defaults(0)), "max_new_tokens is 0, not in 1..1048576"));

  inferno_generate_options o = defaults(4);
  o.temperature = -1;
  CHECK(contains(refusal(layout, {1}, o), "temperature"));
  o = defaults(4);
  o.top_p = 0;
  CHECK(contains(refusal(layout, {1}, o), "top_p must be in (0, 1]"));
  o.top_p = 1.5f;
  CHECK(contains(refusal(layout, {1}, o), "top_p"));
  o = defaults(4);
  o.top_k = -2;
  CHECK(contains(refusal(layout, {1}, o), "top_k"));
  o = defaults(4);
  o.num_stop_tokens = 2;
  CHECK(refusal(layout, {1}, o) == "stop_tokens is null");
  o.num_stop_tokens = 1025;
  CHECK(contains(refusal(layout, {1}, o), "num_stop_tokens must be in 0..1024"));
}
