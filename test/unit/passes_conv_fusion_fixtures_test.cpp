// The default pipeline (through fuse-epilogues) on the CNN fixtures, as the frontends load them:
// every inference BatchNorm is folded into its convolution (no mul or add is left in cnn_block),
// ResNet's residual add and ReLU and the squeeze-and-excitation gate end up inside conv2d nodes,
// and the optimized graph computes what the loaded one does on the reference interpreter (fp32
// tolerances: every fold rounds once where the graph rounded after each node).
#include <string>
#include <string_view>
#include <vector>

#include "passes/pipeline.h"
#include "passes_helpers.h"
#include "support/catch.h"
#include "support/model_loading.h"

namespace inferno {
namespace {

struct ConvCounts {
  int convs = 0, residual = 0, gate = 0, relu = 0, muls = 0, adds = 0;
  std::vector<std::string> activations;
};

ConvCounts count(const ir::Graph& graph) {
  ConvCounts c;
  for (const ir::Node& node : graph.nodes()) {
    c.muls += node.op == ir::OpKind::kMul;
    c.adds += node.op == ir::OpKind::kAdd;
    if (node.op != ir::OpKind::kConv2d) continue;
    ++c.convs;
    c.residual += node.attrs.get_bool("residual");
    c.gate += node.attrs.get_bool("gate");
    c.activations.push_back(node.attrs.get_string("activation"));
    c.relu += c.activations.back() == "relu";
  }
  return c;
}

// The default pipeline up to and including fuse-epilogues: what later passes do with a conv2d
// (its layout, lowering a 1x1 one as a gemm) is theirs to test.
ir::Graph optimized(const ir::Graph& graph) {
  std::vector<std::string> names;
  for (const std::string_view name : passes::default_pipeline()) {
    names.emplace_back(name);
    if (name == "fuse-epilogues") break;
  }
  REQUIRE(names.back() == "fuse-epilogues");
  ir::Graph after = graph;
  const Status status = passes::run_passes(after, names, {});
  INFO(status.to_string());
  REQUIRE(status.is_ok());
  return after;
}

std::vector<ir::Tensor> random_inputs(const ir::Graph& graph) {
  std::vector<ir::Tensor> inputs;
  uint64_t seed = 7;
  for (const ir::ValueId v : graph.inputs()) {
    inputs.push_back(test::random_tensor(graph.type(v), seed++));
  }
  return inputs;
}

TEST_CASE("pipeline: cnn_block's BatchNorms fold, its residual add and relus fuse") {
  for (const char* form : {"model.pt2", "model_decomposed.pt2", "model.pt"}) {
    if (!test::can_load(form)) continue;
    INFO(form);
    const ir::Graph loaded = test::load_fixture("cnn_block", form);
    const ir::Graph after = optimized(loaded);
    const ConvCounts c = count(after);
    CHECK(c.convs == 4);
    CHECK(c.muls == 0);  // four BatchNorms: no scale left
    CHECK(c.adds == 0);  // nor shift, nor the residual add
    CHECK(c.residual == 1);
    CHECK(c.relu == 3);  // stem, conv1 and the block's output
    test::check_same_outputs(loaded, after, random_inputs(loaded), test::kFp32);
  }
}

TEST_CASE("pipeline: cnn_mixed's squeeze-and-excitation gate, residual and activations fuse") {
  const ir::Graph loaded = test::load_fixture("cnn_mixed", "model.pt2");
  const ir::Graph after = optimized(loaded);
  const ConvCounts c = count(after);
  CHECK(c.gate == 1);
  CHECK(c.residual == 1);
  CHECK(c.muls == 0);
  auto has = [&](const std::string& activation) {
    for (const std::string& a : c.activations) {
      if (a == activation) return true;
    }
    return false;
  };
  CHECK(has("relu6"));
  CHECK(has("hardswish"));
  CHECK(has("hardsigmoid"));
  test::check_same_outputs(loaded, after, random_inputs(loaded), test::kFp32);
}

}  // namespace
}  // namespace inferno
