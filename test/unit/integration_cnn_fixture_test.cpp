// The TorchScript-only fixtures (tools/export_ts_fixtures.py, traced with torch 1.13): cnn_ops
// (BatchNorm in its 2-D and 1-D forms, every pooling op in its edge cases, the size arithmetic of
// a traced view, a tuple of nine outputs), joins (cat with dtype promotion, constant padding
// that pads and crops), resize (nearest and bilinear upsampling by sizes and scale factors), norms
// (layer_norm and group_norm in their module, functional and native forms), slicing (select,
// slice, narrow, unbind, chunk, split, a channel shuffle) and dict_out (a dict output and traced
// size arithmetic). It loads, and the reference interpreter reproduces PyTorch's outputs before and
// after the default pipeline, which folds every BatchNorm into constants.
#include <string>

#include "integration_helpers.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno {
namespace {

// torch.testing's f32 tolerances (PyTorch's CPU kernels accumulate in f32); after the default
// pipeline every BatchNorm is folded: no rsqrt is left to compute at run time.
void check_fixture(const std::string& model, size_t num_outputs) {
  test::check_torchscript_fixture(model, num_outputs, 1.3e-6, 1e-5,
                                  [](const ir::Graph& graph, bool optimized) {
                                    if (!optimized) return;
                                    for (const ir::Node& node : graph.nodes())
                                      CHECK(node.op != ir::OpKind::kRsqrt);
                                  });
}

TEST_CASE("the TorchScript CNN-ops fixture matches PyTorch on the reference interpreter",
          "[torchscript]") {
  check_fixture("cnn_ops", 9);
}

TEST_CASE("the TorchScript joins fixture matches PyTorch on the reference interpreter",
          "[torchscript]") {
  check_fixture("joins", 6);
}

TEST_CASE("the TorchScript resize fixture matches PyTorch on the reference interpreter",
          "[torchscript]") {
  check_fixture("resize", 8);
}

// layer_norm (ConvNeXt's channels-last form, several dims, no or partial affine parameters, the
// native 3-output form) and group_norm (several groupings, [N, C, L], the native form with N, C
// and HxW), against PyTorch.
TEST_CASE("the TorchScript norms fixture matches PyTorch on the reference interpreter",
          "[torchscript]") {
  check_fixture("norms", 10);
}

// var, std, var_mean and std_mean (dims, unbiased, keepdim), vector norms of orders 0, 1, 2, 3
// and +-inf (linalg_vector_norm, norm, F.normalize), logsumexp (with -inf rows), one_hot,
// InstanceNorm (affine, and plain on [N, C, L]), batch_norm with batch statistics, and floor,
// ceil, round (ties to even), trunc and sign (of floats and integers), against PyTorch.
TEST_CASE("the TorchScript statistics fixture matches PyTorch on the reference interpreter",
          "[torchscript]") {
  test::check_torchscript_fixture("statistics", 21, 1.3e-6, 1e-5, nullptr);
}

// log2, log10, exp2, tan, asin, acos, atan, sinh and cosh, each over its domain, against PyTorch.
TEST_CASE("the TorchScript unary-math fixture matches PyTorch on the reference interpreter",
          "[torchscript]") {
  test::check_torchscript_fixture("unary_math", 9, 1.3e-6, 1e-5, nullptr);
}

// select, slice, narrow, unbind, chunk and split (list results through prim::ListUnpack) and
// ShuffleNet's channel shuffle: copies, so the outputs are PyTorch's exactly.
TEST_CASE("the TorchScript slicing fixture matches PyTorch on the reference interpreter",
          "[torchscript]") {
  check_fixture("slicing", 7);
}

// A segmentation model's shape: sizes read from x.shape, a floor division on a size feeding a
// reshape, and a dict output {"out", "aux"} whose values are the outputs in insertion order.
TEST_CASE("the TorchScript dict-output fixture matches PyTorch on the reference interpreter",
          "[torchscript]") {
  check_fixture("dict_out", 2);
}

}  // namespace
}  // namespace inferno
