// The Hugging Face fixtures (tools/export_hf_fixtures.py: transformers 5.17, torch 2.11, small
// random-weight configs): GPT-2, Llama, Qwen2 and Phi-3 (input ids -> logits) and BERT and a T5
// encoder (-> last hidden state), each exported plainly and after run_decompositions(), without
// and with an attention mask (the batch's second row right-padded). Every form loads, verifies,
// reproduces PyTorch's outputs on the reference as loaded and after the default pipeline, and
// the optimized graph generates CUDA. (GPT-2 has no decomposed form: torch 2.11 could not make
// one. The decoder*.pt2 exports, with a KV cache in mutable buffers, are not tested here.)
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "frontend/frontend.h"
#include "integration_helpers.h"
#include "ir/verifier.h"
#include "passes/pipeline.h"
#include "reference/interpreter.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno {
namespace {

/// The largest |actual - expected| over the outputs, for the log.
double max_error(const std::vector<ir::Tensor>& actual, const std::vector<ir::Tensor>& expected) {
  double worst = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    for (int64_t j = 0; j < expected[i].numel(); ++j)
      worst = std::max(worst, std::fabs(actual[i].get(j) - expected[i].get(j)));
  }
  return worst;
}

/// hf/<model>/<export>.pt2 and <export>_decomposed.pt2 (where exported) against PyTorch's outputs
/// (<prefix>output*.npy for inputs <prefix>input*.npy).
void check_export(const std::string& model, const std::string& export_name,
                  const std::string& prefix) {
  const std::string dir = "hf/" + model;
  const std::vector<ir::Tensor> inputs = test::read_fixture_tensors(dir, prefix + "input");
  const std::vector<ir::Tensor> expected = test::read_fixture_tensors(dir, prefix + "output");
  REQUIRE(!inputs.empty());
  REQUIRE(expected.size() == 1);
  frontend::LoadOptions options;
  for (const ir::Tensor& t : inputs) options.inputs.push_back({"", t.type});
  int forms = 0;
  for (const std::string& form : {export_name + ".pt2", export_name + "_decomposed.pt2"}) {
    const std::string path = test::fixture_path(dir + "/" + form);
    if (!std::filesystem::exists(path)) continue;
    ++forms;
    for (const bool optimized : {false, true}) {
      INFO(dir << "/" << form << (optimized ? " after the default pipeline" : " as loaded"));
      auto graph = frontend::load_model(path, options);
      INFO((graph ? "" : graph.status().to_string()));
      REQUIRE(graph.has_value());
      REQUIRE(ir::verify(*graph).is_ok());
      if (optimized) {
        REQUIRE(passes::run_default_pipeline(*graph, {}).is_ok());
        const auto generated = codegen::generate(*graph, {});
        INFO((generated ? "" : generated.status().to_string()));
        CHECK(generated.has_value());
      }
      auto outputs = reference::evaluate(*graph, inputs);
      INFO((outputs ? "" : outputs.status().to_string()));
      REQUIRE(outputs.has_value());
      REQUIRE(outputs->size() == 1);
      // f32 tolerances of torch.testing, per element: the reference accumulates in f64, PyTorch's
      // CPU kernels in f32, over width-32 (64 in the MLPs) dot products and <= 7-key softmaxes.
      const std::string mismatch = test::compare_close((*outputs)[0], expected[0], 1.3e-6, 1e-5);
      INFO("max |error| " << max_error(*outputs, expected) << "; " << mismatch);
      CHECK(mismatch.empty());
    }
  }
  CHECK(forms > 0);
}

void check_model(const std::string& model) {
  SECTION("without a mask") { check_export(model, "model", ""); }
  SECTION("with an attention mask") { check_export(model, "masked", "masked_"); }
}

}  // namespace

TEST_CASE("Hugging Face GPT-2 exports match PyTorch on the reference", "[hf]") {
  check_model("gpt2");
}
TEST_CASE("Hugging Face Llama exports match PyTorch on the reference", "[hf]") {
  check_model("llama");
}
TEST_CASE("Hugging Face Qwen2 exports match PyTorch on the reference", "[hf]") {
  check_model("qwen2");
}
TEST_CASE("Hugging Face Phi-3 exports match PyTorch on the reference", "[hf]") {
  check_model("phi3");
}
TEST_CASE("Hugging Face BERT exports match PyTorch on the reference", "[hf]") {
  check_model("bert");
}
TEST_CASE("Hugging Face T5 encoder exports match PyTorch on the reference", "[hf]") {
  check_model("t5_encoder");
}

}  // namespace inferno
