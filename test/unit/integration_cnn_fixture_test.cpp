// The TorchScript-only fixtures (tools/export_ts_fixtures.py, traced with torch 1.13): cnn_ops
// (BatchNorm in its 2-D and 1-D forms, every pooling op in its edge cases, the size arithmetic of
// a traced view, a tuple of nine outputs), joins (cat with dtype promotion, constant padding
// that pads and crops), resize (nearest and bilinear upsampling by sizes and scale factors), norms
// (layer_norm and group_norm in their module, functional and native forms), slicing (select,
// slice, narrow, unbind, chunk, split, a channel shuffle) and dict_out (a dict output and traced
// size arithmetic). It loads, and the reference interpreter reproduces PyTorch's outputs before and
// after the default pipeline, which folds every BatchNorm into constants.
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
#include "support/test_support.h"

namespace inferno {
namespace {

// Runs a TorchScript-only fixture through the frontend and the reference, before and after the
// default pipeline, against PyTorch's outputs.
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
    if (optimized) {
      REQUIRE(passes::run_default_pipeline(*graph, {}).is_ok());
      // Every BatchNorm folded: no rsqrt is left to compute at run time.
      for (const ir::Node& node : graph->nodes()) CHECK(node.op != ir::OpKind::kRsqrt);
    }
    auto outputs = reference::evaluate(*graph, inputs);
    INFO((outputs ? "" : outputs.status().to_string()));
    REQUIRE(outputs.has_value());
    REQUIRE(outputs->size() == expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      // torch.testing's f32 tolerances; PyTorch's CPU kernels accumulate in f32. (Outputs are
      // saved as f32; an f64 output compares within them too.)
      ir::Tensor actual = ir::Tensor::zeros(expected[i].type);
      REQUIRE((*outputs)[i].type.shape == expected[i].type.shape);
      for (int64_t j = 0; j < actual.numel(); ++j) actual.set(j, (*outputs)[i].get(j));
      const std::string mismatch = test::compare_close(actual, expected[i], 1.3e-6, 1e-5);
      INFO("output " << i << ": " << mismatch);
      CHECK(mismatch.empty());
    }
  }
}

TEST_CASE("the TorchScript CNN-ops fixture matches PyTorch on the reference interpreter") {
  check_fixture("cnn_ops", 9);
}

TEST_CASE("the TorchScript joins fixture matches PyTorch on the reference interpreter") {
  check_fixture("joins", 6);
}

TEST_CASE("the TorchScript resize fixture matches PyTorch on the reference interpreter") {
  check_fixture("resize", 8);
}

// layer_norm (ConvNeXt's channels-last form, several dims, no or partial affine parameters, the
// native 3-output form) and group_norm (several groupings, [N, C, L], the native form with N, C
// and HxW), against PyTorch.
TEST_CASE("the TorchScript norms fixture matches PyTorch on the reference interpreter") {
  check_fixture("norms", 10);
}

// select, slice, narrow, unbind, chunk and split (list results through prim::ListUnpack) and
// ShuffleNet's channel shuffle: copies, so the outputs are PyTorch's exactly.
TEST_CASE("the TorchScript slicing fixture matches PyTorch on the reference interpreter") {
  check_fixture("slicing", 7);
}

// A segmentation model's shape: sizes read from x.shape, a floor division on a size feeding a
// reshape, and a dict output {"out", "aux"} whose values are the outputs in insertion order.
TEST_CASE("the TorchScript dict-output fixture matches PyTorch on the reference interpreter") {
  check_fixture("dict_out", 2);
}

}  // namespace
}  // namespace inferno
