// fuse-elementwise: IR text in, IR text out, and bit-identical outputs on the reference
// interpreter (a fused step rounds to its dtype as the node it came from did).
#include <string>

#include "ir/fused_expr.h"
#include "ir/printer.h"
#include "passes/pipeline.h"
#include "passes_helpers.h"
#include "support/catch.h"

namespace inferno {
namespace {

using test::check_pass;
using test::check_unchanged;

TEST_CASE("fuse-elementwise turns a chain into one node named and located as its last op") {
  check_pass({"fuse-elementwise"}, R"ir(
graph(%x: f32[4,8], %y: f32[8]) {
  %half: f32[] = constant [0.5]
  %a: f32[4,8] = add(%x, %y) loc("model.py":1)
  %s: f32[4,8] = sigmoid(%a) loc("model.py":2)
  %m: f32[4,8] = mul(%s, %half) loc("model.py":3)
  %e: f32[4,8] = exp(%m) loc("model.py":4)
  return %e
})ir",
             R"ir(
graph(%x: f32[4,8], %y: f32[8]) {
  %half: f32[] = constant [0.5]
  %e: f32[4,8] = fused_elementwise(%x, %y, %half) {expr="add($0, $1); sigmoid(#0); mul(#1, $2); exp(#2)"} loc("model.py":4)
  return %e
})ir");
}

TEST_CASE("fuse-elementwise fuses trees and shared values, broadcasting as the nodes did") {
  check_pass({"fuse-elementwise"}, R"ir(
graph(%x: f32[4], %col: f32[3,1], %h: f16[3,4]) {
  %a: f32[4] = exp(%x)
  %b: f32[4] = neg(%a)
  %c: f32[4] = mul(%a, %b)
  %d: f32[3,4] = add(%col, %c)
  %k: f16[3,4] = cast(%d) {dtype=f16}
  %t: f16[3,4] = gelu_tanh(%k)
  %u: f16[3,4] = sub(%t, %h)
  return %u
})ir",
             R"ir(
graph(%x: f32[4], %col: f32[3,1], %h: f16[3,4]) {
  %u: f16[3,4] = fused_elementwise(%x, %col, %h) {expr="exp($0); neg(#0); mul(#0, #1); add($1, #2); cast[f16](#3); gelu_tanh(#4); sub(#5, $2)"}
  return %u
})ir");
}

TEST_CASE("fuse-elementwise stops at values read outside the group, graph outputs and other ops") {
  check_pass({"fuse-elementwise"}, R"ir(
graph(%x: f32[4,8]) {
  %a: f32[4,8] = exp(%x)
  %b: f32[4,8] = neg(%a)
  %s: f32[4] = sum(%b) {dims=[1], keepdim=false}
  %c: f32[4,8] = relu(%b)
  %t: f32[4,8] = tanh(%c)
  %u: f32[4,8] = abs(%t)
  %v: f32[4,8] = softmax(%u) {dim=1}
  %w: f32[4,8] = sigmoid(%v)
  return %w, %s, %c
})ir",
             R"ir(
graph(%x: f32[4,8]) {
  %b: f32[4,8] = fused_elementwise(%x) {expr="exp($0); neg(#0)"}
  %s: f32[4] = sum(%b) {dims=[1], keepdim=false}
  %c: f32[4,8] = relu(%b)
  %u: f32[4,8] = fused_elementwise(%c) {expr="tanh($0); abs(#0)"}
  %v: f32[4,8] = softmax(%u) {dim=1}
  %w: f32[4,8] = sigmoid(%v)
  return %w, %s, %c
})ir");
}

TEST_CASE("fuse-elementwise inlines fused nodes into the group that reads them") {
  check_pass({"fuse-elementwise"}, R"ir(
graph(%x: f32[4], %y: f32[4]) {
  %f: f32[4] = fused_elementwise(%y, %x) {expr="sub($0, $1); exp(#0)"}
  %g: f32[4] = mul(%f, %x)
  %h: f32[4] = fused_elementwise(%g, %f) {expr="add($0, $1); neg(#0)"}
  return %h
})ir",
             R"ir(
graph(%x: f32[4], %y: f32[4]) {
  %h: f32[4] = fused_elementwise(%y, %x) {expr="sub($0, $1); exp(#0); mul(#1, $1); add(#2, #1); neg(#3)"}
  return %h
})ir");
}

TEST_CASE("fuse-elementwise leaves lone elementwise nodes as they are") {
  check_unchanged({"fuse-elementwise"}, R"ir(
graph(%x: f32[4,8]) {
  %a: f32[4,8] = relu(%x)
  %s: f32[4,8] = softmax(%a) {dim=1}
  %b: f32[4,8] = add(%s, %a)
  return %b
})ir");
}

/// A chain x -> op -> op -> ... of `length` nodes, each reading the previous one and, for adds,
/// a fresh graph input.
std::string chain(int length, bool fresh_inputs) {
  std::string header = "graph(%x: f32[4]", body;
  std::string prev = "%x";
  for (int i = 0; i < length; ++i) {
    const std::string name = "%n" + std::to_string(i);
    if (fresh_inputs) {
      header += ", %i" + std::to_string(i) + ": f32[4]";
      body += "  " + name + ": f32[4] = add(" + prev + ", %i" + std::to_string(i) + ")\n";
    } else {
      body += "  " + name + ": f32[4] = " + (i % 2 ? "neg(" : "exp(") + prev + ")\n";
    }
    prev = name;
  }
  return header + ") {\n" + body + "  return " + prev + "\n}\n";
}

/// Runs fuse-elementwise; checks the result against the input numerically and that a second run
/// changes nothing, and returns the graph.
ir::Graph fuse_and_check(const std::string& text) {
  ir::Graph graph = test::parse(text);
  REQUIRE(passes::run_passes(graph, {"fuse-elementwise"}, {}).is_ok());
  const std::string once = ir::print_graph(graph);
  check_pass({"fuse-elementwise"}, text, once);
  ir::Graph again = test::parse(once);
  REQUIRE(passes::run_passes(again, {"fuse-elementwise"}, {}).is_ok());
  CHECK(ir::print_graph(again) == once);
  return graph;
}

TEST_CASE("fuse-elementwise keeps groups within the step and input limits") {
  SECTION("steps") {
    const ir::Graph graph = fuse_and_check(chain(ir::kMaxFusedSteps + 6, false));
    REQUIRE(graph.nodes().size() == 2);
    // Grown from the last node backwards: the second group is full.
    auto steps = [&](size_t i) { return graph.nodes()[i].attrs.get_body("expr").steps.size(); };
    CHECK(steps(0) == 6);
    CHECK(steps(1) == ir::kMaxFusedSteps);
  }
  SECTION("inputs") {
    const ir::Graph graph = fuse_and_check(chain(40, true));
    REQUIRE(graph.nodes().size() == 2);
    CHECK(graph.nodes()[0].inputs.size() == 10);  // x and i0..i8 for n0..n8
    CHECK(graph.nodes()[1].inputs.size() == static_cast<size_t>(ir::kMaxFusedInputs));
  }
}

}  // namespace
}  // namespace inferno
