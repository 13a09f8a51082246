// The default pipeline on every fixture model in every form: idempotent, equivalent on the
// reference interpreter, and the plain and decomposed torch.export forms of one model optimize to
// the same IR.
#include <string>
#include <vector>

#include "ir/printer.h"
#include "passes/pipeline.h"
#include "passes_helpers.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using test::check_pass;

ir::Graph optimized(const std::string& model, const std::string& form) {
  ir::Graph graph = test::load_fixture(model, form);
  const Status status = passes::run_default_pipeline(graph, {});
  INFO(model << "/" << form << ": " << status.to_string());
  REQUIRE(status.is_ok());
  return graph;
}

TEST_CASE("the default pipeline is idempotent and keeps the outputs on every fixture") {
  for (const std::string& model : test::fixture_models()) {
    for (const std::string& form : test::fixture_forms()) {
      INFO(model << "/" << form);
      const ir::Graph loaded = test::load_fixture(model, form);
      ir::Graph graph = optimized(model, form);
      const std::string once = ir::print_graph(graph);
      REQUIRE(passes::run_default_pipeline(graph, {}).is_ok());
      CHECK(ir::print_graph(graph) == once);
      // Fused epilogues round once where the model rounded twice: fp32 tolerance.
      std::vector<ir::Tensor> inputs;
      for (ir::ValueId v : loaded.inputs())
        inputs.push_back(test::random_tensor(loaded.type(v), 11 + v));
      test::check_same_outputs(loaded, graph, inputs, test::kFp32);
    }
  }
}

TEST_CASE("the plain and decomposed torch.export forms of a model optimize to the same IR") {
  for (const std::string& model : test::fixture_models()) {
    INFO(model);
    const std::string plain = test::canonical_text(optimized(model, "model.pt2"));
    const std::string decomposed = test::canonical_text(optimized(model, "model_decomposed.pt2"));
    CHECK(plain == decomposed);
  }
}

TEST_CASE("mm_relu optimizes to a single gemm with a relu epilogue") {
  for (const std::string& form : test::fixture_forms()) {
    INFO(form);
    const ir::Graph graph = optimized("mm_relu", form);
    REQUIRE(graph.nodes().size() == 1);
    const ir::Node& node = graph.nodes().front();
    CHECK(node.op == ir::OpKind::kGemm);
    CHECK(node.attrs.get_string("activation") == "relu");
    CHECK(node.inputs.size() == 2);
  }
}

// The passes together, as a transformer block's residual would meet them: torch.export's
// decomposed linear (permute + addmm), the residual add, relu, and an elementwise tail.
TEST_CASE("the default pipeline folds a decomposed linear with a residual and relu into one gemm") {
  check_pass(std::vector<std::string>(passes::default_pipeline().begin(),
                                      passes::default_pipeline().end()),
             R"ir(
graph(%x: f32[4,6], %y: f32[4,8]) {
  %w: f32[6,8] = constant [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48]
  %b: f32[6] = constant [0.5, -0.5, 1, -1, 2, -2]
  %one: f32[] = constant [1.0]
  %wt: f32[8,6] = permute(%w) {dims=[1, 0]} loc("linear.py":134)
  %addmm: f32[4,6] = addmm(%b, %y, %wt) {alpha=1.0, beta=1.0} loc("linear.py":134)
  %res: f32[4,6] = add(%x, %addmm) loc("model.py":5)
  %relu: f32[4,6] = relu(%res) loc("model.py":5)
  %scaled: f32[4,6] = mul(%relu, %one) loc("model.py":6)
  %s: f32[4,6] = sigmoid(%scaled) loc("model.py":7)
  %silu: f32[4,6] = mul(%scaled, %s) loc("model.py":7)
  %t: f32[4,6] = tanh(%silu) loc("model.py":8)
  return %t
})ir",
             R"ir(
graph(%x: f32[4,6], %y: f32[4,8]) {
  %w: f32[6,8] = constant [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48]
  %b: f32[6] = constant [0.5, -0.5, 1, -1, 2, -2]
  %relu: f32[4,6] = gemm(%y, %w, %b, %x) {activation="relu", alpha=1.0, beta=1.0, trans_b=true} loc("linear.py":134)
  %t: f32[4,6] = fused_elementwise(%relu) {expr="silu($0); tanh(#0)"} loc("model.py":8)
  return %t
})ir",
             test::kFp32);
}

}  // namespace
}  // namespace inferno
