// DOT export: the expected nodes and edges, deterministic output, and escaping of hostile
// model-provided strings.
#include <sstream>
#include <string>

#include "ir/builder.h"
#include "ir/dot.h"
#include "support/catch.h"

namespace inferno::ir {
namespace {

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

Graph small_mlp(SourceLocation loc) {
  Graph g;
  const ValueId x = g.add_input("x", {DType::kF32, {4, 16}});
  const ValueId w = g.add_constant("fc1.weight", Tensor::zeros({DType::kF32, {32, 16}}));
  const ValueId lin = *build_value(g, OpKind::kLinear, {x, w}, {}, "linear", loc);
  Attributes a;
  a.set("dims", IntList{1});
  a.set("keepdim", true);
  const ValueId s = *build_value(g, OpKind::kSum, {lin}, a, "s");
  g.set_outputs({s, x});
  return g;
}

TEST_CASE("dot has one shape per value kind and edges along data flow") {
  const std::string dot = graph_to_dot(small_mlp({"model.py", 12}));
  INFO(dot);
  CHECK(dot.rfind("digraph G {\n", 0) == 0);
  CHECK(dot.ends_with("}\n"));
  CHECK(contains(dot, "v0 [shape=ellipse, label=\"%x\\nf32[4,16]\"];"));
  CHECK(contains(dot,
                 "v1 [shape=ellipse, style=filled, fillcolor=lightgrey, "
                 "label=\"%fc1.weight\\nf32[32,16]\"];"));
  CHECK(contains(
      dot, "n0 [shape=box, label=\"linear\\n%linear: f32[4,32]\\nloc(\\\"model.py\\\":12)\"];"));
  CHECK(contains(dot, "n1 [shape=box, label=\"sum\\n%s: f32[4,1]\\ndims=[1], keepdim=true\"];"));
  CHECK(contains(dot, "out0 [shape=doubleoctagon, label=\"output 0\"];"));
  CHECK(contains(dot, "out1 [shape=doubleoctagon, label=\"output 1\"];"));
  for (const char* edge : {"v0 -> n0;", "v1 -> n0;", "n0 -> n1;", "n1 -> out0;", "v0 -> out1;"}) {
    INFO(edge);
    CHECK(contains(dot, edge));
  }
}

TEST_CASE("dot output is deterministic") {
  CHECK(graph_to_dot(small_mlp({})) == graph_to_dot(small_mlp({})));
}

TEST_CASE("dot escapes hostile names and locations") {
  Graph g = small_mlp({"a\"b\n<x>{|}\\", 3});
  g.mutable_value(g.inputs()[0]).name = "evil\"];\nx -> y [label=\"<b>";  // bypasses sanitizing
  const std::string dot = graph_to_dot(g);
  INFO(dot);
  CHECK(contains(dot, "loc(\\\"a\\\\\\\"b\\\\n&lt;x&gt;&#123;&#124;&#125;\\\\\\\\\\\":3)"));
  CHECK_FALSE(contains(dot, "<x>"));
  CHECK_FALSE(contains(dot, "<b>"));
  // Every line is one statement: no label smuggled a raw newline or closed its quotes early.
  std::istringstream lines(dot);
  std::string line;
  while (std::getline(lines, line)) {
    INFO(line);
    const bool framing = line == "digraph G {" || line == "}";
    CHECK((framing || line.ends_with(";")));
    size_t unescaped_quotes = 0;
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '\\') {
        ++i;
      } else if (line[i] == '"') {
        ++unescaped_quotes;
      }
    }
    CHECK(unescaped_quotes % 2 == 0);
  }
}

TEST_CASE("dot shows a gemm's options compactly and a fused body one step per line") {
  Graph g;
  const ValueId x = g.add_input("x", {DType::kF32, {4, 16}});
  const ValueId w = g.add_input("w", {DType::kF32, {8, 16}});
  Attributes gemm;
  gemm.set("trans_b", true);
  gemm.set("alpha", 1.0);
  gemm.set("beta", 1.0);
  gemm.set("activation", std::string("gelu_tanh"));
  const ValueId y = *build_value(g, OpKind::kGemm, {x, w}, gemm, "y");
  gemm.set("trans_b", false);
  gemm.set("activation", std::string("none"));
  const ValueId z = *build_value(g, OpKind::kGemm, {y, w}, gemm, "z");
  Attributes fused;
  fused.set("expr", std::string("sigmoid($0); mul($0, #0); add(#1, $1)"));
  g.set_outputs({*build_value(g, OpKind::kFusedElementwise, {z, x}, fused, "f")});
  const std::string dot = graph_to_dot(g);
  INFO(dot);
  CHECK(contains(
      dot, "n0 [shape=box, label=\"gemm b^T +gelu_tanh\\n%y: f32[4,8]\\nalpha=1.0, beta=1.0\"];"));
  CHECK(contains(dot, "n1 [shape=box, label=\"gemm\\n%z: f32[4,16]\\nalpha=1.0, beta=1.0\"];"));
  CHECK(contains(dot,
                 "n2 [shape=box, label=\"fused_elementwise\\n%f: f32[4,16]\\n#0 = sigmoid($0)\\n"
                 "#1 = mul($0, #0)\\n#2 = add(#1, $1)\"];"));
}

TEST_CASE("dot escapes a hostile fused body and gemm activation") {
  Graph g;
  const ValueId x = g.add_input("x", {DType::kF32, {2}});
  const ValueId y = g.add_node_output("y", {DType::kF32, {2}});
  Node fused{OpKind::kFusedElementwise, {x}, {y}, {}, {}};  // unverified: any bytes may be there
  fused.attrs.set("expr", std::string("relu($0)\"]; evil -> x; <b>{|}\n; ") +
                              std::string(100, 'a') + "; \x01\xff");
  g.append_node(fused);
  const ValueId z = g.add_node_output("z", {DType::kF32, {2}});
  Node gemm{OpKind::kGemm, {x, x}, {z}, {}, {}};
  gemm.attrs.set("activation", std::string("\"<x>"));
  g.append_node(gemm);
  g.set_outputs({y, z});
  const std::string dot = graph_to_dot(g);
  INFO(dot);
  CHECK_FALSE(contains(dot, "<b>"));
  CHECK_FALSE(contains(dot, "<x>"));
  // Unverified, the text is a plain string attribute: shown shortened, its quote escaped.
  CHECK(contains(dot, "expr=\\\"relu($0)\\\\\\\"]"));
  CHECK(contains(dot, "gemm +\\\\\\\"&lt;x&gt;"));
  std::istringstream lines(dot);
  std::string line;
  while (std::getline(lines, line)) {
    INFO(line);
    CHECK((line == "digraph G {" || line == "}" || line.ends_with(";")));
  }
}

TEST_CASE("dot survives values with no producer") {
  Graph g;
  const ValueId x = g.add_input("x", {DType::kF32, {2}});
  g.set_outputs({x, g.add_node_output("orphan", {DType::kF32, {2}})});
  const std::string dot = graph_to_dot(g);
  CHECK(contains(dot, "v0 -> out0;"));
  CHECK(contains(dot, "out1 [shape=doubleoctagon"));
}

}  // namespace
}  // namespace inferno::ir
