// The verifier: each broken invariant gives its own message, naming the offending node.
#include <string>

#include "ir/builder.h"
#include "ir/verifier.h"
#include "support/catch.h"

namespace inferno::ir {
namespace {

const TensorType kVec4{DType::kF32, {4}};

/// Appends `op(inputs) -> outputs` without any checking, as a buggy pass might.
void append_raw(Graph& g, OpKind op, std::vector<ValueId> inputs, std::vector<ValueId> outputs) {
  g.append_node(Node{op, std::move(inputs), std::move(outputs), {}, {"m.py", 5}});
}

void require_error(const Graph& g, const std::string& message, const std::string& node = {}) {
  const Status status = verify(g);
  INFO(status.to_string());
  REQUIRE_FALSE(status.is_ok());
  CHECK(status.code() == ErrorCode::kInvalidInput);
  CHECK(status.message().find(message) != std::string::npos);
  if (!node.empty()) CHECK(status.node() == node);
}

TEST_CASE("a well-formed graph verifies") {
  Graph g;
  const ValueId x = g.add_input("x", kVec4);
  const ValueId c = g.add_constant("c", Tensor::zeros(kVec4));
  const ValueId y = *build_value(g, OpKind::kAdd, {x, c}, {}, "y");
  g.set_outputs({y, x});
  CHECK(verify(g).is_ok());
}

TEST_CASE("use before definition") {
  Graph g;
  const ValueId x = g.add_input("x", kVec4);
  const ValueId a = g.add_node_output("a", kVec4);
  const ValueId b = g.add_node_output("b", kVec4);
  append_raw(g, OpKind::kRelu, {b}, {a});
  append_raw(g, OpKind::kRelu, {x}, {b});
  require_error(g, "%b is used before it is defined", "a");
  CHECK(verify(g).location() == SourceLocation{"m.py", 5});
}

TEST_CASE("wrong recorded type") {
  Graph g;
  const ValueId x = g.add_input("x", kVec4);
  append_raw(g, OpKind::kRelu, {x}, {g.add_node_output("y", {DType::kF32, {8}})});
  require_error(g, "%y has type f32[8] but relu produces f32[4]", "y");
}

TEST_CASE("duplicate definition") {
  Graph g;
  const ValueId x = g.add_input("x", kVec4);
  const ValueId y = g.add_node_output("y", kVec4);
  append_raw(g, OpKind::kRelu, {x}, {y});
  append_raw(g, OpKind::kNeg, {x}, {y});
  require_error(g, "%y is defined twice", "y");
}

TEST_CASE("undefined graph output") {
  Graph g;
  g.add_input("x", kVec4);
  g.set_outputs({g.add_node_output("orphan", kVec4)});
  require_error(g, "graph output 0 (%orphan) is not defined");
}

TEST_CASE("other structural errors") {
  SECTION("wrong arity") {
    Graph g;
    const ValueId x = g.add_input("x", kVec4);
    append_raw(g, OpKind::kRelu, {x, x}, {g.add_node_output("y", kVec4)});
    require_error(g, "relu: takes 1 inputs, got 2", "y");
  }
  SECTION("missing attribute") {
    Graph g;
    const ValueId x = g.add_input("x", kVec4);
    append_raw(g, OpKind::kSoftmax, {x}, {g.add_node_output("y", kVec4)});
    require_error(g, "needs attribute 'dim' of type int", "y");
  }
  SECTION("too many outputs") {
    Graph g;
    const ValueId x = g.add_input("x", kVec4);
    append_raw(g, OpKind::kRelu, {x},
               {g.add_node_output("a", kVec4), g.add_node_output("b", kVec4)});
    require_error(g, "relu has 2 outputs, expected 1", "a");
  }
  SECTION("node without outputs") {
    Graph g;
    const ValueId x = g.add_input("x", kVec4);
    append_raw(g, OpKind::kRelu, {x}, {});
    require_error(g, "relu node has no outputs");
  }
  SECTION("output that is a graph input") {
    Graph g;
    const ValueId x = g.add_input("x", kVec4);
    append_raw(g, OpKind::kRelu, {x}, {x});
    require_error(g, "bad output value", "x");
  }
  SECTION("duplicate value names") {
    Graph g;
    g.add_input("x", kVec4);
    const ValueId z = g.add_input("z", kVec4);
    g.mutable_value(z).name = "x";
    require_error(g, "duplicate value name %x");
  }
  SECTION("constant data of the wrong size") {
    Graph g;
    const ValueId c = g.add_constant("c", Tensor::zeros(kVec4));
    Tensor short_data = Tensor::zeros(kVec4);
    short_data.data.resize(8);
    g.mutable_value(c).constant = std::make_shared<const Tensor>(std::move(short_data));
    require_error(g, "constant %c data does not match its type f32[4]");
  }
}

}  // namespace
}  // namespace inferno::ir
