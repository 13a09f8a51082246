// The .pt2 transformer fixtures (tools/export_fixtures.py with torch 2.x: transformer_sdpa with
// every SDPA mask and causal form, transformer_gpt2, transformer_llama, transformer_encoder),
// plain and core-ATen-decomposed: each lowers (SDPA onto the IR's attention op; the decomposed
// and written-out forms as matmuls and softmax), and the reference interpreter reproduces PyTorch's
// outputs after the default pipeline. A fixture not yet exported is reported, not failed.
#include <filesystem>
#include <string>
#include <vector>

#include "frontend/frontend.h"
#include "integration_helpers.h"
#include "ir/verifier.h"
#include "passes/pipeline.h"
#include "reference/interpreter.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno {
namespace {

void check_pt2(const std::string& model, const std::string& file) {
  INFO(model << "/" << file);
  if (!std::filesystem::exists(test::fixture_path(model + "/" + file))) {
    WARN("fixture " << model << "/" << file << " not exported (tools/export_fixtures.py)");
    return;
  }
  const std::vector<ir::Tensor> inputs = test::read_fixture_tensors(model, "input");
  const std::vector<ir::Tensor> expected = test::read_fixture_tensors(model, "output");
  REQUIRE(!inputs.empty());
  REQUIRE(!expected.empty());
  auto graph = frontend::load_model(test::fixture_path(model + "/" + file), {});
  INFO((graph ? "" : graph.status().to_string()));
  REQUIRE(graph.has_value());
  REQUIRE(ir::verify(*graph).is_ok());
  REQUIRE(passes::run_default_pipeline(*graph, {}).is_ok());
  auto outputs = reference::evaluate(*graph, inputs);
  INFO((outputs ? "" : outputs.status().to_string()));
  REQUIRE(outputs.has_value());
  REQUIRE(outputs->size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    REQUIRE((*outputs)[i].type.shape == expected[i].type.shape);
    const std::string mismatch = test::compare_close((*outputs)[i], expected[i], 1e-4, 1e-5);
    INFO("output " << i << ": " << mismatch);
    CHECK(mismatch.empty());
  }
}

TEST_CASE("the .pt2 transformer fixtures match PyTorch on the reference interpreter") {
  for (const char* model :
       {"transformer_sdpa", "transformer_gpt2", "transformer_llama", "transformer_encoder"}) {
    for (const char* file : {"model.pt2", "model_decomposed.pt2"}) check_pt2(model, file);
  }
}

}  // namespace
}  // namespace inferno
