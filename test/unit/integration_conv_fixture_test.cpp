// The conv_net fixture (tools/export_conv_fixture.py: TorchScript only, traced and scripted) loads,
// survives the default pipeline, and the reference interpreter reproduces PyTorch's outputs: 3x3,
// 1x1 without bias, stride 2, depthwise, grouped, dilated, padding='same', conv1d, and
// conv_transpose2d / conv_transpose1d with output_padding.
#include <filesystem>
#include <string>
#include <vector>

#include "cli/tensor_io.h"
#include "frontend/frontend.h"
#include "integration_helpers.h"
#include "ir/verifier.h"
#include "passes/pipeline.h"
#include "reference/interpreter.h"
#include "support/catch.h"
#include "support/model_loading.h"
#include "support/test_support.h"

namespace inferno {
namespace {

TEST_CASE("conv_net fixture matches PyTorch on the reference interpreter", "[torchscript]") {
  const std::vector<ir::Tensor> inputs = test::read_fixture_tensors("conv_net", "input");
  const std::vector<ir::Tensor> expected = test::read_fixture_tensors("conv_net", "output");
  REQUIRE(inputs.size() == 2);
  REQUIRE(expected.size() == 2);
  frontend::LoadOptions options;
  for (const ir::Tensor& t : inputs) options.inputs.push_back({"", t.type});
  for (const std::string form : {"model.pt", "model_scripted.pt"}) {
    for (bool optimized : {false, true}) {
      INFO(form << (optimized ? " after the default pipeline" : " as loaded"));
      auto graph = test::load_model(test::fixture_path("conv_net/" + form), options);
      INFO((graph ? std::string() : graph.status().to_string()));
      REQUIRE(graph.has_value());
      REQUIRE(ir::verify(*graph).is_ok());
      if (optimized) REQUIRE(passes::run_default_pipeline(*graph, {}).is_ok());
      int convs = 0;
      int transposed = 0;
      int gemms = 0;  // legalize, last in the pipeline, makes the 1x1 conv a gemm
      for (const ir::Node& node : graph->nodes()) {
        convs += node.op == ir::OpKind::kConv2d;
        transposed += node.op == ir::OpKind::kConvTranspose2d;
        gemms += node.op == ir::OpKind::kGemm;
      }
      CHECK(convs == (optimized ? 7 : 8));
      CHECK(gemms == (optimized ? 1 : 0));
      CHECK(transposed == 2);
      auto outputs = reference::evaluate(*graph, inputs);
      INFO((outputs ? std::string() : outputs.status().to_string()));
      REQUIRE(outputs.has_value());
      REQUIRE(outputs->size() == expected.size());
      for (size_t i = 0; i < expected.size(); ++i) {
        // PyTorch sums in f32 over up to 72 terms per conv, eight convs deep; the reference in f64.
        const std::string mismatch = test::compare_close((*outputs)[i], expected[i], 1e-5, 1e-5);
        INFO("output " << i << ": " << mismatch);
        CHECK(mismatch.empty());
      }
    }
  }
}

}  // namespace
}  // namespace inferno
