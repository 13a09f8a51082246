// fused_elementwise in the reference interpreter: a fused node gives bit-identical results to the
// unfused graph of its steps (f16/bf16 intermediates rounded through casts and promotion,
// broadcasting, integer wrap-around, intermediates read many times), on hand-written and on
// random bodies; and a bad body in an unverified graph is an error, not a crash.
#include <cmath>
#include <string>
#include <vector>

#include "ir/builder.h"
#include "ir/fused_expr.h"
#include "reference/interpreter.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using ir::Attributes;
using ir::DType;
using ir::OpKind;
using ir::Tensor;
using ir::TensorType;
using ir::ValueId;

bool bit_equal(const Tensor& x, const Tensor& y) { return x.type == y.type && x.data == y.data; }

Tensor eval(const ir::Graph& graph, const std::vector<Tensor>& inputs) {
  Expected<std::vector<Tensor>> out = reference::evaluate(graph, inputs);
  INFO((out ? std::string() : out.status().to_string()));
  REQUIRE(out.has_value());
  return std::move((*out)[0]);
}

/// One fused_elementwise node with body `expr` over graph inputs of `types`.
ir::Graph fused_graph(const std::vector<TensorType>& types, const std::string& expr) {
  ir::Graph g;
  std::vector<ValueId> ids;
  for (const TensorType& t : types) ids.push_back(g.add_input("in", t));
  Attributes a;
  a.set("expr", expr);
  Expected<ValueId> out = ir::build_value(g, OpKind::kFusedElementwise, ids, a, "fused");
  INFO(expr << ": " << (out ? std::string() : out.status().to_string()));
  REQUIRE(out.has_value());
  g.set_outputs({*out});
  return g;
}

/// The same body as one node per step: the graph the fusion pass would have started from.
ir::Graph unfused_graph(const std::vector<TensorType>& types, const std::string& expr) {
  ir::Graph g;
  std::vector<ValueId> inputs, steps;
  for (const TensorType& t : types) inputs.push_back(g.add_input("in", t));
  Expected<ir::FusedExpr> body = ir::parse_fused_expr(expr, types);
  REQUIRE(body.has_value());
  for (const ir::FusedStep& step : body->steps) {
    std::vector<ValueId> operands;
    for (const ir::FusedOperand& o : step.operands) {
      operands.push_back(o.kind == ir::FusedOperand::Kind::kInput ? inputs[o.index]
                                                                  : steps[o.index]);
    }
    Expected<ValueId> v = ir::build_value(g, step.op, operands, step.attrs, "step");
    REQUIRE(v.has_value());
    steps.push_back(*v);
  }
  g.set_outputs({steps.back()});
  return g;
}

std::vector<Tensor> random_inputs(const std::vector<TensorType>& types, uint64_t seed) {
  std::vector<Tensor> out;
  for (const TensorType& t : types) out.push_back(test::random_tensor(t, seed++));
  return out;
}

void check_matches_unfused(const std::vector<TensorType>& types, const std::string& expr,
                           uint64_t seed) {
  INFO("expr: " << expr);
  const std::vector<Tensor> inputs = random_inputs(types, seed);
  CHECK(
      bit_equal(eval(fused_graph(types, expr), inputs), eval(unfused_graph(types, expr), inputs)));
}

TEST_CASE("fused node is bit-identical to its hand-built unfused graph") {
  // x: f16, b: bf16, s: f32 scalar. Every intermediate rounds: mul to f16 (the rank-0 f32 does
  // not widen), add to f32 (f16 + bf16), gelu in f32, then bf16 through a cast, sigmoid in bf16,
  // sub back to f32, a cast to f16, mul in f16.
  const std::vector<TensorType> types = {
      {DType::kF16, {4, 8}}, {DType::kBF16, {8}}, {DType::kF32, {}}};
  const std::string expr =
      "mul($0, $2); add(#0, $1); gelu_tanh(#1); cast[bf16](#2); sigmoid(#3); sub(#4, $0); "
      "cast[f16](#5); mul(#6, #0)";
  const std::vector<Tensor> in = random_inputs(types, 1);

  ir::Graph g;
  const ValueId x = g.add_input("x", types[0]), b = g.add_input("b", types[1]),
                s = g.add_input("s", types[2]);
  auto node = [&](OpKind op, std::vector<ValueId> args, Attributes a = {}) {
    Expected<ValueId> v = ir::build_value(g, op, std::move(args), std::move(a), "v");
    REQUIRE(v.has_value());
    return *v;
  };
  Attributes to_bf16, to_f16;
  to_bf16.set("dtype", DType::kBF16);
  to_f16.set("dtype", DType::kF16);
  const ValueId scaled = node(OpKind::kMul, {x, s});
  const ValueId act = node(OpKind::kGeluTanh, {node(OpKind::kAdd, {scaled, b})});
  const ValueId sig = node(OpKind::kSigmoid, {node(OpKind::kCast, {act}, to_bf16)});
  g.set_outputs(
      {node(OpKind::kMul, {node(OpKind::kCast, {node(OpKind::kSub, {sig, x})}, to_f16), scaled})});

  const Tensor fused = eval(fused_graph(types, expr), in);
  CHECK(fused.type == TensorType{DType::kF16, {4, 8}});
  CHECK(bit_equal(fused, eval(g, in)));

  // The intermediate rounding matters here: the same steps carried in f64 and rounded once at
  // the end give different bits, so the comparison above would catch a kernel that skipped it.
  const std::vector<TensorType> wide = {
      {DType::kF64, {4, 8}}, {DType::kF64, {8}}, {DType::kF64, {}}};
  std::vector<Tensor> wide_in;
  for (const Tensor& t : in) {
    wide_in.push_back(Tensor::zeros({DType::kF64, t.type.shape}));
    for (int64_t i = 0; i < t.numel(); ++i) wide_in.back().set(i, t.get(i));
  }
  const Tensor exact = eval(
      fused_graph(wide,
                  "mul($0, $2); add(#0, $1); gelu_tanh(#1); sigmoid(#2); sub(#3, $0); mul(#4, #0)"),
      wide_in);
  Tensor rounded_once = Tensor::zeros(fused.type);
  for (int64_t i = 0; i < exact.numel(); ++i) rounded_once.set(i, exact.get(i));
  CHECK_FALSE(bit_equal(fused, rounded_once));
}

TEST_CASE("fused nodes match unfused graphs: broadcasting, integers, shared intermediates") {
  const TensorType f32_23{DType::kF32, {2, 3}};
  check_matches_unfused({{DType::kF32, {4, 1}}, {DType::kF16, {5}}, {DType::kBF16, {}}},
                        "add($0, $1); mul(#0, $2); silu(#1)", 10);
  check_matches_unfused({f32_23}, "neg($0); mul(#0, #0); add(#1, #0); sub(#2, #0); div(#3, #1)",
                        20);
  check_matches_unfused({{DType::kI32, {6}}, {DType::kI64, {}}},
                        "mul($0, $0); mul(#0, #0); mul(#1, #1); add(#2, $1); neg(#3); abs(#4)",
                        30);  // wraps
  check_matches_unfused({{DType::kI32, {6}}, {DType::kI32, {6}}},
                        "div($0, $1); cast[i32](#0); relu(#1)", 40);
  check_matches_unfused({{DType::kBool, {3}}, {DType::kF16, {3}}},
                        "cast[f16]($0); exp($1); mul(#0, #1); tanh(#2)", 50);
  check_matches_unfused({{DType::kF32, {0, 3}}, {DType::kF32, {3}}}, "add($0, $1)", 60);  // empty
  check_matches_unfused({{DType::kF64, {3}}}, "gelu($0); cast[f16](#0); cast[f64](#1); sigmoid(#2)",
                        70);
}

/// A random valid body over `types`: random elementwise steps on random earlier values, then
/// adds that join every value no step has read yet, so all inputs and steps are used.
std::string random_body(const std::vector<TensorType>& types, uint64_t& state) {
  auto next = [&](uint64_t bound) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (state >> 33) % bound;
  };
  static const char* const kUnary[] = {"relu",       "gelu",      "gelu_tanh", "silu", "sigmoid",
                                       "tanh",       "exp",       "abs",       "neg",  "cast[f16]",
                                       "cast[bf16]", "cast[f32]", "cast[i32]"};
  static const char* const kBinary[] = {"add", "sub", "mul", "div"};
  std::vector<std::string> values, steps;
  std::vector<bool> read;
  for (size_t i = 0; i < types.size(); ++i) {
    values.push_back("$" + std::to_string(i));
    read.push_back(false);
  }
  auto use = [&](size_t v) {
    read[v] = true;
    return values[v];
  };
  auto add_step = [&](const std::string& text) {
    values.push_back("#" + std::to_string(steps.size()));
    read.push_back(false);
    steps.push_back(text);
  };
  for (uint64_t n = 1 + next(6); n > 0; --n) {
    if (next(2) == 0) {
      add_step(std::string(kUnary[next(std::size(kUnary))]) + "(" + use(next(values.size())) + ")");
    } else {
      const std::string a = use(next(values.size())), b = use(next(values.size()));
      add_step(std::string(kBinary[next(std::size(kBinary))]) + "(" + a + ", " + b + ")");
    }
  }
  for (size_t v = 0; v + 1 < values.size(); ++v) {
    if (!read[v]) add_step("add(" + use(v) + ", " + use(values.size() - 1) + ")");
  }
  std::string text;
  for (const std::string& s : steps) text += (text.empty() ? "" : "; ") + s;
  return text;
}

TEST_CASE("random fused bodies match their unfused graphs bit for bit") {
  const std::vector<TensorType> kTypes[] = {
      {{DType::kF16, {2, 3}}, {DType::kF32, {3}}},
      {{DType::kBF16, {4}}, {DType::kF16, {4}}, {DType::kF32, {}}},
      {{DType::kI32, {2, 1}}, {DType::kF16, {1, 3}}},
      {{DType::kF32, {5}}},
  };
  uint64_t state = 7;
  int checked = 0;
  for (int round = 0; round < 300; ++round) {
    const std::vector<TensorType>& types = kTypes[round % std::size(kTypes)];
    const std::string body = random_body(types, state);
    INFO("expr: " << body);
    if (!ir::parse_fused_expr(body, types)) continue;  // e.g. exp of an integer step
    check_matches_unfused(types, body, static_cast<uint64_t>(round));
    ++checked;
  }
  CHECK(checked > 150);
}

TEST_CASE("evaluating an unverified fused node with a bad body is an error that names the node") {
  ir::Graph g;
  const ValueId x = g.add_input("x", {DType::kF32, {4}});
  const ValueId y = g.add_node_output("y", {DType::kF32, {4}});
  ir::Node node{OpKind::kFusedElementwise, {x}, {y}, {}, {"model.py", 3}};
  // A body typed for two inputs on a node that has one.
  const ir::TensorType f32x4{DType::kF32, {4}};
  node.attrs.set("expr", ir::make_fused_body(*ir::parse_fused_expr("add($0, $1)", {f32x4, f32x4})));
  g.append_node(node);
  g.set_outputs({y});
  const std::vector<Tensor> in = {test::random_tensor({DType::kF32, {4}}, 1)};
  Expected<std::vector<Tensor>> out = reference::evaluate(g, in);
  REQUIRE_FALSE(out.has_value());
  CHECK(out.status().code() == ErrorCode::kInvalidInput);
  CHECK(out.status().message() == "fused_elementwise: step 0 'add($0, $1)': $1 is out of range");
  CHECK(out.status().node() == "y");

  // Valid, but not the declared type.
  g.mutable_nodes()[0].attrs.set(
      "expr", ir::make_fused_body(*ir::parse_fused_expr("cast[f16]($0)", {f32x4})));
  out = reference::evaluate(g, in);
  REQUIRE_FALSE(out.has_value());
  CHECK(out.status().message() == "fused_elementwise: the body produces f16[4], not f32[4]");
}

}  // namespace
}  // namespace inferno
