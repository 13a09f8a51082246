// Passes: IR text in, IR text out, and the same numbers before and after on the reference
// interpreter; the default pipeline is idempotent on every fixture.
#include <string>
#include <vector>

#include "frontend/frontend.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "passes/pipeline.h"
#include "reference/interpreter.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno {
namespace {

ir::Graph parse(const std::string& text) {
  auto graph = ir::parse_graph(text);
  INFO((graph ? "" : graph.status().to_string()));
  REQUIRE(graph.has_value());
  return std::move(*graph);
}

/// Runs `passes` on `input` and checks the printed result against `expected` (parsed and printed
/// again, so the expectation may be written loosely) and the outputs on random inputs.
void check_pass(const std::vector<std::string>& passes, const std::string& input, const std::string& expected) {
  ir::Graph before = parse(input);
  ir::Graph after = parse(input);
  const Status status = passes::run_passes(after, passes, {});
  INFO(status.to_string());
  REQUIRE(status.is_ok());
  CHECK(ir::print_graph(after) == ir::print_graph(parse(expected)));

  std::vector<ir::Tensor> inputs;
  for (ir::ValueId v : before.inputs()) inputs.push_back(test::random_tensor(before.type(v), 7 + v));
  auto want = reference::evaluate(before, inputs);
  auto got = reference::evaluate(after, inputs);
  REQUIRE(want.has_value());
  REQUIRE(got.has_value());
  REQUIRE(want->size() == got->size());
  for (size_t i = 0; i < want->size(); ++i) CHECK(test::compare_close((*got)[i], (*want)[i], 0, 0).empty());
}

TEST_CASE("cse merges equal constants and equal nodes") {
  check_pass({"cse"}, R"(
graph(%x: f32[4]) {
  %half: f32[] = constant [0.5]
  %half_1: f32[] = constant [0.5]
  %two: f32[] = constant [2.0]
  %a: f32[4] = mul(%x, %half)
  %b: f32[4] = mul(%x, %half_1)
  %c: f32[4] = add(%a, %b)
  %d: f32[4] = gelu(%c) {approximate="none"}
  %e: f32[4] = gelu(%c) {approximate="tanh"}
  %f: f32[4] = gelu(%c) {approximate="none"}
  %g: f32[4] = mul(%d, %two)
  return %g, %e, %f
})",
             R"(
graph(%x: f32[4]) {
  %half: f32[] = constant [0.5]
  %two: f32[] = constant [2.0]
  %a: f32[4] = mul(%x, %half)
  %c: f32[4] = add(%a, %a)
  %d: f32[4] = gelu(%c) {approximate="none"}
  %e: f32[4] = gelu(%c) {approximate="tanh"}
  %g: f32[4] = mul(%d, %two)
  return %g, %e, %d
})");
}

TEST_CASE("cse keeps constants of equal bytes but different types apart") {
  // 0.0f and int32 0 have the same four bytes.
  const std::string text = R"(
graph(%x: f32[2], %i: i32[2]) {
  %zf: f32[] = constant [0.0]
  %zi: i32[] = constant [0]
  %a: f32[2] = add(%x, %zf)
  %b: i32[2] = add(%i, %zi)
  return %a, %b
})";
  check_pass({"cse"}, text, text);
}

TEST_CASE("fold-constants evaluates constant subgraphs; dce drops what is unused") {
  check_pass({"fold-constants", "dce"}, R"(
graph(%x: f32[2]) {
  %s: f32[2] = constant [1.0, 2.0]
  %one: f32[] = constant [1.0]
  %unused: f32[2] = constant [5.0, 6.0]
  %t: f32[2] = add(%s, %one)
  %y: f32[2] = mul(%x, %t)
  %dead: f32[2] = exp(%x)
  return %y
})",
             R"(
graph(%x: f32[2]) {
  %t_1: f32[2] = constant [2.0, 3.0]
  %y: f32[2] = mul(%x, %t_1)
  return %y
})");  // the folded value is a new constant; its node's output keeps the name %t
}

TEST_CASE("the default pipeline is idempotent on every fixture") {
  for (const std::string model : {"mm_relu", "mlp2", "mlp_gelu_silu_softmax", "elementwise_chain", "bmm_matmul"}) {
    for (const std::string form : {"model.pt2", "model_decomposed.pt2"}) {
      INFO(model << "/" << form);
      auto graph = frontend::load_model(test::fixture_path(model + "/" + form), {});
      REQUIRE(graph.has_value());
      REQUIRE(passes::run_default_pipeline(*graph, {}).is_ok());
      const std::string once = ir::print_graph(*graph);
      REQUIRE(passes::run_default_pipeline(*graph, {}).is_ok());
      CHECK(ir::print_graph(*graph) == once);
    }
  }
}

}  // namespace
}  // namespace inferno
