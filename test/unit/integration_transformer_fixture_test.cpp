// The TorchScript transformer fixtures (tools/export_ts_fixtures.py, torch 1.13):
// mha_fastpath (nn.MultiheadAttention's fast path, aten::_native_multi_head_attention, with bool
// and float key padding masks and cross-attention) and encoder_fastpath
// (nn.TransformerEncoderLayer's fast path, aten::_transformer_encoder_layer_fwd: post-norm relu
// layers, a pre-norm gelu layer, key padding masks). They load, and the reference interpreter
// reproduces PyTorch's outputs before and after the default pipeline: this holds the fast paths'
// mask polarity (true = padded key, masked out) and their decomposition to PyTorch's own kernels.
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

void check_fixture(const std::string& model, size_t num_outputs) {
  const std::vector<ir::Tensor> inputs = test::read_fixture_tensors(model, "input");
  const std::vector<ir::Tensor> expected = test::read_fixture_tensors(model, "output");
  REQUIRE(!inputs.empty());
  REQUIRE(expected.size() == num_outputs);
  frontend::LoadOptions options;
  for (const ir::Tensor& t : inputs) options.inputs.push_back({"", t.type});
  for (const bool optimized : {false, true}) {
    INFO(model << (optimized ? " after the default pipeline" : " as loaded"));
    auto graph = frontend::load_model(test::fixture_path(model + "/model.pt"), options);
    INFO((graph ? "" : graph.status().to_string()));
    REQUIRE(graph.has_value());
    REQUIRE(ir::verify(*graph).is_ok());
    bool has_attention = false;
    for (const ir::Node& node : graph->nodes()) has_attention |= node.op == ir::OpKind::kAttention;
    CHECK(has_attention);
    if (optimized) REQUIRE(passes::run_default_pipeline(*graph, {}).is_ok());
    auto outputs = reference::evaluate(*graph, inputs);
    INFO((outputs ? "" : outputs.status().to_string()));
    REQUIRE(outputs.has_value());
    REQUIRE(outputs->size() == expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      // PyTorch's CPU kernels accumulate in f32 through several GEMMs and softmaxes.
      REQUIRE((*outputs)[i].type.shape == expected[i].type.shape);
      const std::string mismatch = test::compare_close((*outputs)[i], expected[i], 1e-4, 1e-5);
      INFO("output " << i << ": " << mismatch);
      CHECK(mismatch.empty());
    }
  }
}

TEST_CASE("the TorchScript mha_fastpath fixture matches PyTorch on the reference interpreter") {
  check_fixture("mha_fastpath", 4);
}

TEST_CASE("the TorchScript encoder_fastpath fixture matches PyTorch on the reference") {
  check_fixture("encoder_fastpath", 3);
}

}  // namespace
}  // namespace inferno
