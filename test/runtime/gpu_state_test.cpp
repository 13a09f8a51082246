// Model ABI 2 on a GPU with the test LLM: state that carries over between runs, resets, stays
// apart between sessions and starts from the weights; variants chosen by input shapes, each with
// its own captured graphs.
#include <string>
#include <vector>

#include "gpu_test_support.h"
#include "inferno/runtime.hpp"
#include "llm_test_support.h"
#include "runtime/handles.h"
#include "runtime_test_support.h"
#include "test_llm_reference.h"

using inferno::test::contains;
using inferno::test::LlmBuffers;
using inferno::test::LlmReference;
using inferno::test::model_path;
using inferno::test::Stream;

TEST_CASE("gpu: state carries over between runs and a reset restores it", "[runtime][gpu]") {
  INFERNO_REQUIRE_GPU();
  inferno::Model model(model_path("llm"), 0);
  for (bool graph : {true, false}) {
    INFO("use_cuda_graph " << graph);
    inferno::Session session(model, graph);
    Stream stream;
    LlmBuffers buffers;
    LlmReference reference;
    const std::vector<int64_t> tokens{3, 14, 15, 92, 65, 35};
    std::vector<int64_t> first;
    for (int64_t p = 0; p < 6; ++p) {
      const auto rows = buffers.peaks(session, stream.get(), {tokens[p]}, {p});
      CHECK(rows == reference.run({tokens[p]}, {p}));
      first.push_back(rows[0]);
    }
    // From the second run on, the same token at the same position gives another result.
    CHECK(buffers.peaks(session, stream.get(), {3}, {0}) != std::vector<int64_t>{first[0]});
    session.reset_state(stream.get());
    for (int64_t p = 0; p < 6; ++p) {
      CHECK(buffers.peaks(session, stream.get(), {tokens[p]}, {p}) ==
            std::vector<int64_t>{first[p]});
    }
    session.reset_state(nullptr);  // on the legacy default stream, ordered with the next run
    CHECK(buffers.peaks(session, stream.get(), {tokens[0]}, {0}) == std::vector<int64_t>{first[0]});
  }
}

TEST_CASE("gpu: two sessions of one model keep their own state", "[runtime][gpu]") {
  INFERNO_REQUIRE_GPU();
  inferno::Model model(model_path("llm"), 0);
  inferno::Session a(model), b(model);
  Stream stream;
  LlmBuffers buffers;
  LlmReference ref_a, ref_b;
  for (int64_t p = 0; p < 8; ++p) {
    CHECK(buffers.peaks(a, stream.get(), {p + 1}, {p}) == ref_a.run({p + 1}, {p}));
    CHECK(buffers.peaks(b, stream.get(), {7 * p}, {p}) == ref_b.run({7 * p}, {p}));
  }
}

TEST_CASE("gpu: a run picks the variant its input shapes match, each with its own graph",
          "[runtime][gpu]") {
  INFERNO_REQUIRE_GPU();
  inferno::Model model(model_path("llm"), 0);
  CHECK(model.num_variants() == 3);
  inferno::Session session(model);
  Stream stream;
  LlmBuffers buffers;  // the same addresses for every variant
  LlmReference reference;
  const std::vector<int64_t> four{5, 6, 7, 8}, eight{1, 2, 3, 4, 5, 6, 7, 8};
  for (int round = 0; round < 2; ++round) {
    const int64_t at = 13 * round;
    CHECK(buffers.peaks(session, stream.get(), four, {at, at + 1, at + 2, at + 3}) ==
          reference.run(four, {at, at + 1, at + 2, at + 3}));
    std::vector<int64_t> positions;
    for (int64_t j = 0; j < 8; ++j) positions.push_back(at + 4 + j);
    CHECK(buffers.peaks(session, stream.get(), eight, positions) ==
          reference.run(eight, positions));
    CHECK(buffers.peaks(session, stream.get(), {9}, {at + 12}) == reference.run({9}, {at + 12}));
  }
  CHECK(session.handle()->session.graph_captures() == 3);

  std::vector<int64_t> rows;
  CHECK(buffers.run(session, stream.get(), {1, 2, 3}, {0, 1, 2}, rows) ==
        INFERNO_STATUS_INVALID_ARGUMENT);
  const std::string message = inferno_last_error();
  INFO(message);
  // In the terms of the export's dynamic dim (the test LLM's dims table).
  CHECK(message ==
        "seq_length = 3 (input 'input_ids' dim 1) is in the range the model was exported for "
        "(1..31), but this library was compiled for seq_length = 4, 1, 8 only (infernoc "
        "--specialize seq_length=... compiles other sizes)");
  // Nothing ran: the state is where the reference says.
  CHECK(buffers.peaks(session, stream.get(), {4}, {26}) == reference.run({4}, {26}));
}

TEST_CASE("gpu: sessions of a stateful model stay usable on the legacy default stream",
          "[runtime][gpu]") {
  INFERNO_REQUIRE_GPU();
  inferno::Model model(model_path("llm"), 0);
  inferno::Session session(model);
  LlmBuffers buffers;
  LlmReference reference;
  for (int64_t p = 0; p < 4; ++p) {
    CHECK(buffers.peaks(session, nullptr, {p}, {p}) == reference.run({p}, {p}));
  }
}
