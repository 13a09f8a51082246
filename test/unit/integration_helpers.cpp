#include "integration_helpers.h"

#include "frontend/frontend.h"
#include "ir/verifier.h"
#include "passes/pipeline.h"
#include "reference/interpreter.h"
#include "support/model_loading.h"

namespace inferno::test {

void check_torchscript_fixture(const std::string& model, size_t num_outputs, double rtol,
                               double atol, const GraphCheck& check_graph) {
  const std::vector<ir::Tensor> inputs = read_fixture_tensors(model, "input");
  const std::vector<ir::Tensor> expected = read_fixture_tensors(model, "output");
  REQUIRE(!inputs.empty());
  REQUIRE(expected.size() == num_outputs);
  frontend::LoadOptions options;
  for (const ir::Tensor& t : inputs) options.inputs.push_back({"", t.type});
  for (const bool optimized : {false, true}) {
    INFO(model << (optimized ? " after the default pipeline" : " as loaded"));
    auto graph = test::load_model(fixture_path(model + "/model.pt"), options);
    INFO((graph ? "" : graph.status().to_string()));
    REQUIRE(graph.has_value());
    REQUIRE(ir::verify(*graph).is_ok());
    if (optimized) REQUIRE(passes::run_default_pipeline(*graph, {}).is_ok());
    if (check_graph) check_graph(*graph, optimized);
    auto outputs = reference::evaluate(*graph, inputs);
    INFO((outputs ? "" : outputs.status().to_string()));
    REQUIRE(outputs.has_value());
    REQUIRE(outputs->size() == expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      // Outputs are saved as f32; an output of another floating dtype is compared in f32.
      REQUIRE((*outputs)[i].type.shape == expected[i].type.shape);
      ir::Tensor actual = ir::Tensor::zeros(expected[i].type);
      for (int64_t j = 0; j < actual.numel(); ++j) actual.set(j, (*outputs)[i].get(j));
      const std::string mismatch = compare_close(actual, expected[i], rtol, atol);
      INFO("output " << i << ": " << mismatch);
      CHECK(mismatch.empty());
    }
  }
}

}  // namespace inferno::test
