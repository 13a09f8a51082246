// Hugging Face decoders exported with transformers' own recipe for ahead-of-time runtimes
// (tools/export_hf_fixtures.py: TorchExportableModuleForDecoderOnlyLM, a static KV cache in
// buffers written in place): their buffers become graph state, and a session on the reference
// interpreter (a prompt, then one-token steps, each run fed the previous run's state) reproduces
// the logits the eager recipe module gave at every step, as loaded and after the default pipeline.
#include <string>
#include <vector>

#include "cli/tensor_io.h"
#include "frontend/frontend.h"
#include "passes/pipeline.h"
#include "reference/interpreter.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno {
namespace {

ir::Tensor read_trace(const std::string& model, const std::string& key) {
  Expected<ir::Tensor> t =
      cli::read_tensor(test::fixture_path("hf/" + model + "/trace_" + key + ".npy"));
  REQUIRE(t.has_value());
  return std::move(*t);
}

// The decoder bound to `length` tokens per run (its one dynamic dim), optionally optimized.
ir::Graph load_decoder(const std::string& path, int64_t length, bool optimized) {
  frontend::LoadOptions load;
  load.inputs = {{"input_ids", {ir::DType::kI64, {1, length}}},
                 {"cache_position", {ir::DType::kI64, {length}}}};
  Expected<ir::Graph> graph = frontend::load_model(path, load);
  INFO((graph ? std::string() : graph.status().to_string()));
  REQUIRE(graph.has_value());
  if (optimized) {
    const Status s = passes::run_default_pipeline(*graph, {});
    INFO(s.to_string());
    REQUIRE(s.is_ok());
  }
  return std::move(*graph);
}

// One run: the user inputs and `state` in, the logits out; `state` becomes the updates.
ir::Tensor run(const ir::Graph& graph, const std::vector<ir::Tensor>& inputs,
               std::vector<ir::Tensor>& state) {
  std::vector<ir::Tensor> feed = inputs;
  feed.insert(feed.end(), state.begin(), state.end());
  Expected<std::vector<ir::Tensor>> out = reference::evaluate(graph, feed);
  INFO((out ? std::string() : out.status().to_string()));
  REQUIRE(out.has_value());
  REQUIRE(out->size() == graph.num_user_outputs() + graph.num_states());
  state.assign(out->begin() + static_cast<std::ptrdiff_t>(graph.num_user_outputs()), out->end());
  return std::move(out->front());
}

ir::Tensor positions(int64_t first, int64_t count) {
  ir::Tensor t = ir::Tensor::zeros({ir::DType::kI64, {count}});
  for (int64_t i = 0; i < count; ++i) t.set(i, static_cast<double>(first + i));
  return t;
}

void check_session(const std::string& model, const std::string& file, bool optimized) {
  INFO(model << "/" << file << (optimized ? ", optimized" : ", as loaded"));
  const std::string path = test::fixture_path("hf/" + model + "/" + file);
  const ir::Tensor prompt = read_trace(model, "prompt");
  const int64_t length = prompt.type.shape.at(1);
  const ir::Graph prefill = load_decoder(path, length, optimized);
  const ir::Graph decode = load_decoder(path, 1, optimized);
  // Two layers, each with a key and a value cache and the cache's position counter.
  CHECK(prefill.num_states() == 6);
  REQUIRE(decode.num_states() == prefill.num_states());

  std::vector<ir::Tensor> state = reference::initial_states(prefill);
  // f32 through two layers of GEMMs and softmax, accumulated in double here and in f32 by
  // PyTorch: rtol 1e-4 as the other transformer fixtures.
  const ir::Tensor logits = run(prefill, {prompt, positions(0, length)}, state);
  CHECK(test::compare_close(logits, read_trace(model, "prefill_logits"), 1e-4, 1e-5) == "");
  for (int step = 0; step < 4; ++step) {
    INFO("decode step " << step);
    const std::string key = "step" + std::to_string(step);
    const ir::Tensor out = run(
        decode, {read_trace(model, key + "_token"), read_trace(model, key + "_position")}, state);
    CHECK(test::compare_close(out, read_trace(model, key + "_logits"), 1e-4, 1e-5) == "");
  }
}

TEST_CASE("HF decoder recipe exports keep their KV cache as state and decode like PyTorch") {
  for (const std::string model : {"gpt2", "llama", "qwen2"}) {
    for (const bool optimized : {false, true}) {
      check_session(model, "decoder.pt2", optimized);
      check_session(model, "decoder_decomposed.pt2", optimized);
    }
  }
}

TEST_CASE("the one-token step folds every norm into its GEMV, a 64-token prompt keeps them") {
  // fuse-norm-gemv: each layer's two norms and the final one, read only by GEMV-shaped products
  // (the session test above holds the optimized graphs' logits to PyTorch's).
  for (const std::string model : {"gpt2", "llama", "qwen2"}) {
    INFO(model);
    const std::string path = test::fixture_path("hf/" + model + "/decoder.pt2");
    auto count = [](const ir::Graph& graph) {
      int norms = 0, fused = 0;
      for (const ir::Node& node : graph.nodes()) {
        norms += node.op == ir::OpKind::kLayerNorm || node.op == ir::OpKind::kRmsNorm ? 1 : 0;
        fused += node.op == ir::OpKind::kNormGemm ? 1 : 0;
      }
      return std::pair{norms, fused};
    };
    CHECK(count(load_decoder(path, 1, /*optimized=*/true)) == std::pair{0, 5});
    CHECK(count(load_decoder(path, 64, /*optimized=*/true)) == std::pair{5, 0});
  }
}

TEST_CASE("a written KV cache is state and its update an in-place index_copy") {
  const ir::Graph graph =
      load_decoder(test::fixture_path("hf/llama/decoder.pt2"), 1, /*optimized=*/true);
  REQUIRE(graph.num_states() == 6);
  int index_copies_of_state = 0;
  for (const ir::Node& node : graph.nodes()) {
    if (node.op != ir::OpKind::kIndexCopy) continue;
    for (size_t i = 0; i < graph.num_states(); ++i)
      index_copies_of_state += node.inputs[0] == graph.state_value(i) ? 1 : 0;
  }
  CHECK(index_copies_of_state == 4);         // each layer's key and value cache
  CHECK(graph.state(0).initial == nullptr);  // the caches start as zeros
}

}  // namespace
}  // namespace inferno
