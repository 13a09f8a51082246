// Generation on a GPU with the test LLM (test_llm.cu): tokens equal to the host reference for
// every prompt plan (greedy and seeded sampling, f32 and f16 logits, with and without graphs),
// stop tokens, the callback, the stats, and bad requests refused with nothing launched.
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpu_test_support.h"
#include "inferno/runtime.hpp"
#include "llm_test_support.h"
#include "runtime/handles.h"
#include "runtime_test_support.h"
#include "test_llm_reference.h"

using inferno::test::contains;
using inferno::test::model_path;
using inferno::test::reference_generate;
using inferno::test::SamplingOptions;
using inferno::test::Stream;

namespace {

std::vector<int64_t> prompt_of(int length) {
  std::vector<int64_t> prompt;
  for (int i = 0; i < length; ++i) prompt.push_back((37 * i + 11) % 1000);
  return prompt;
}

// The message of what `body` throws; "" when it does not throw.
template <typename Body>
std::string error_of(Body&& body) {
  try {
    body();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

inferno::GenerateOptions options_of(int32_t n, const SamplingOptions& s) {
  inferno::GenerateOptions o;
  o.max_new_tokens = n;
  o.temperature = s.temperature;
  o.top_k = s.top_k;
  o.top_p = s.top_p;
  o.seed = s.seed;
  return o;
}

}  // namespace

TEST_CASE("gpu: greedy generation equals the reference for every prompt plan", "[runtime][gpu]") {
  INFERNO_REQUIRE_GPU();
  for (const char* name : {"llm", "llm_f16"}) {
    inferno::Model model(model_path(name), 0);
    for (bool graph : {true, false}) {
      inferno::Session session(model, graph);
      Stream stream;
      for (int length : {1, 3, 4, 5, 8, 9, 13, 20, 31}) {
        const int32_t n = 32 - length;
        INFO(name << " graph " << graph << " prompt " << length);
        const auto result = session.generate(stream.get(), prompt_of(length), options_of(n, {}));
        CHECK(result.tokens == reference_generate(prompt_of(length), n, {}));
        CHECK(result.stats.prompt_tokens == length);
        CHECK(result.stats.new_tokens == n);
        CHECK(result.stats.time_to_first_token_ms > 0);
        CHECK(result.stats.prefill_ms > 0);
      }
    }
  }
}

TEST_CASE("gpu: generation resets the state, runs and generations interleave", "[runtime][gpu]") {
  INFERNO_REQUIRE_GPU();
  inferno::Model model(model_path("llm"), 0);
  inferno::Session session(model);
  inferno::test::LlmBuffers buffers;
  Stream stream;
  const auto expected = reference_generate(prompt_of(6), 10, {});
  CHECK(session.generate(stream.get(), prompt_of(6), options_of(10, {})).tokens == expected);
  buffers.peaks(session, stream.get(), {1}, {20});  // changes the state
  CHECK(session.generate(nullptr, prompt_of(6), options_of(10, {})).tokens == expected);
  CHECK(session.generate(stream.get(), prompt_of(6), options_of(10, {})).tokens == expected);
  const auto result = session.generate(stream.get(), prompt_of(9), options_of(3, {}));
  CHECK(result.stats.prefill_runs == 2);  // 8 tokens, then 1
  CHECK(result.stats.decode_ms_per_token > 0);
}

TEST_CASE("gpu: seeded sampling equals the reference and repeats per seed", "[runtime][gpu]") {
  INFERNO_REQUIRE_GPU();
  const SamplingOptions cases[] = {{1.0f, 0, 1.0f, 1}, {2.0f, 0, 1.0f, 2}, {3.0f, 5, 1.0f, 3},
                                   {1.5f, 0, 0.8f, 4}, {4.0f, 8, 0.9f, 5}, {0.5f, 0, 0.5f, 6},
                                   {2.0f, 1, 1.0f, 7}, {8.0f, 0, 1.0f, 8}};
  for (const char* name : {"llm", "llm_f16"}) {
    inferno::Model model(model_path(name), 0);
    inferno::Session session(model);
    Stream stream;
    for (const SamplingOptions& s : cases) {
      INFO(name << " temperature " << s.temperature << " top_k " << s.top_k << " top_p "
                << s.top_p);
      const auto tokens = session.generate(stream.get(), prompt_of(5), options_of(20, s)).tokens;
      CHECK(tokens == reference_generate(prompt_of(5), 20, s));
      CHECK(session.generate(stream.get(), prompt_of(5), options_of(20, s)).tokens == tokens);
    }
    SamplingOptions other = cases[7];
    other.seed = 99;
    CHECK(session.generate(stream.get(), prompt_of(5), options_of(20, cases[7])).tokens !=
          session.generate(stream.get(), prompt_of(5), options_of(20, other)).tokens);
    // top-k 1 is greedy.
    CHECK(session.generate(stream.get(), prompt_of(5), options_of(20, cases[6])).tokens ==
          reference_generate(prompt_of(5), 20, {}));
  }
}

TEST_CASE("gpu: stop tokens and the callback end generation after their token", "[runtime][gpu]") {
  INFERNO_REQUIRE_GPU();
  inferno::Model model(model_path("llm"), 0);
  inferno::Session session(model);
  Stream stream;
  const auto all = reference_generate(prompt_of(3), 20, {});
  inferno::GenerateOptions o = options_of(20, {});
  o.stop_tokens = {all[4], 100000};
  auto result = session.generate(stream.get(), prompt_of(3), o);
  CHECK(result.tokens == std::vector<int64_t>(all.begin(), all.begin() + 5));
  CHECK(result.stats.new_tokens == 5);

  std::vector<int64_t> seen;
  o = options_of(20, {});
  o.on_token = [&](int32_t index, int64_t token) {
    CHECK(index == static_cast<int32_t>(seen.size()));
    seen.push_back(token);
    return index < 6;  // stop after the 7th token
  };
  result = session.generate(stream.get(), prompt_of(3), o);
  CHECK(result.tokens == std::vector<int64_t>(all.begin(), all.begin() + 7));
  CHECK(seen == result.tokens);

  o.on_token = [](int32_t, int64_t) -> bool { throw std::runtime_error("from the callback"); };
  CHECK(error_of([&] { session.generate(stream.get(), prompt_of(3), o); }) == "from the callback");
  // The session goes on after a stop in the middle.
  CHECK(session.generate(stream.get(), prompt_of(3), options_of(20, {})).tokens == all);
}

TEST_CASE("gpu: bad requests are refused naming the limit, and the session goes on",
          "[runtime][gpu]") {
  INFERNO_REQUIRE_GPU();
  inferno::Model model(model_path("llm"), 0);
  inferno::Session session(model);
  Stream stream;
  inferno::test::LlmBuffers buffers;
  inferno::test::LlmReference reference;
  // Some state first: a refused request must not reset it (nothing is launched).
  CHECK(buffers.peaks(session, stream.get(), {5}, {0}) == reference.run({5}, {0}));

  const int64_t captures = session.handle()->session.graph_captures();
  inferno_generate_options o{};
  REQUIRE(inferno_generate_options_default(&o) == INFERNO_STATUS_OK);
  int64_t tokens[64];
  int32_t n = -1;
  const auto refused = [&](const std::vector<int64_t>& prompt, int32_t max_new,
                           const std::string& message) {
    o.max_new_tokens = max_new;
    std::memset(tokens, 0xab, sizeof tokens);
    INFO(message);
    CHECK(inferno_session_generate(session.handle(), stream.get(), prompt.data(),
                                   static_cast<int32_t>(prompt.size()), &o, tokens, &n,
                                   nullptr) == INFERNO_STATUS_INVALID_ARGUMENT);
    CHECK(contains(inferno_last_error(), message));
    CHECK(n == 0);
    CHECK(tokens[0] == static_cast<int64_t>(0xabababababababab));
  };
  refused(prompt_of(20), 13, "exceed the model's max_positions 32");
  refused({}, 4, "the prompt is empty");
  refused({1, 1000}, 4, "prompt token 1 is 1000, outside the vocabulary [0, 1000)");
  refused({-5}, 4, "prompt token 0 is -5, outside the vocabulary [0, 1000)");
  refused({1}, 0, "max_new_tokens is 0");
  o.top_p = 0;
  refused({1}, 4, "top_p must be in (0, 1]");
  o.top_p = 1;
  inferno_generate_stats stats{};
  CHECK(inferno_session_generate(session.handle(), stream.get(), tokens, 1, &o, tokens, &n,
                                 &stats) == INFERNO_STATUS_INVALID_ARGUMENT);
  CHECK(contains(inferno_last_error(), "stats.struct_size is 0"));
  CHECK(session.handle()->session.graph_captures() == captures);
  CHECK(buffers.peaks(session, stream.get(), {6}, {1}) == reference.run({6}, {1}));

  CHECK(session.generate(stream.get(), prompt_of(20), options_of(12, {})).tokens ==
        reference_generate(prompt_of(20), 12, {}));
}

TEST_CASE("gpu: a model that is no LLM refuses to generate, saying why", "[runtime][gpu]") {
  INFERNO_REQUIRE_GPU();
  inferno::Model model(model_path("good"), 0);
  inferno::Session session(model);
  CHECK(contains(error_of([&] {
                   session.generate(nullptr, {1, 2});
                 }),
                 "the model is not an LLM to generate with"));
}

TEST_CASE("gpu: generation on a stream the caller captures is refused", "[runtime][gpu]") {
  INFERNO_REQUIRE_GPU();
  inferno::Model model(model_path("llm"), 0);
  inferno::Session session(model);
  Stream stream;
  CUDA_REQUIRE(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal));
  CHECK(contains(error_of([&] {
                   session.generate(stream.get(), {1, 2});
                 }),
                 "cannot run on a stream that is being captured"));
  cudaGraph_t graph = nullptr;
  CUDA_REQUIRE(cudaStreamEndCapture(stream.get(), &graph));
  cudaGraphDestroy(graph);
}
