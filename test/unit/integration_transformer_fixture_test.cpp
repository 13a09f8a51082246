// The TorchScript transformer fixtures (tools/export_ts_fixtures.py, torch 1.13):
// mha_fastpath (nn.MultiheadAttention's fast path, aten::_native_multi_head_attention, with bool
// and float key padding masks and cross-attention) and encoder_fastpath
// (nn.TransformerEncoderLayer's fast path, aten::_transformer_encoder_layer_fwd: post-norm relu
// layers, a pre-norm gelu layer, key padding masks). They load, and the reference interpreter
// reproduces PyTorch's outputs before and after the default pipeline: this holds the fast paths'
// mask polarity (true = padded key, masked out) and their decomposition to PyTorch's own kernels.
#include <string>

#include "integration_helpers.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno {
namespace {

// PyTorch's CPU kernels accumulate in f32 through several GEMMs and softmaxes: rtol 1e-4.
void check_fixture(const std::string& model, size_t num_outputs) {
  test::check_torchscript_fixture(model, num_outputs, 1e-4, 1e-5, [](const ir::Graph& graph, bool) {
    bool has_attention = false;
    for (const ir::Node& node : graph.nodes()) has_attention |= node.op == ir::OpKind::kAttention;
    CHECK(has_attention);
  });
}

TEST_CASE("the TorchScript mha_fastpath fixture matches PyTorch on the reference interpreter",
          "[torchscript]") {
  check_fixture("mha_fastpath", 4);
}

TEST_CASE("the TorchScript encoder_fastpath fixture matches PyTorch on the reference",
          "[torchscript]") {
  check_fixture("encoder_fastpath", 3);
}

}  // namespace
}  // namespace inferno
