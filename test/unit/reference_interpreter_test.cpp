// reference::evaluate on whole graphs: an MLP checked against plain loops written here, value
// lifetimes (shared intermediates, inputs and constants as outputs, dead nodes), rounding on
// every store, and the user errors (input count and types, elided constants).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ir/builder.h"
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

ValueId build(ir::Graph& g, OpKind op, std::vector<ValueId> inputs, Attributes attrs = {}) {
  Expected<ValueId> v = ir::build_value(g, op, std::move(inputs), std::move(attrs), "v");
  REQUIRE(v.has_value());
  return *v;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_CASE("evaluate: MLP linear -> relu -> linear -> softmax matches plain loops") {
  const int64_t batch = 3, in = 4, hidden = 5, out = 3;
  const Tensor w1 = test::random_tensor({DType::kF32, {hidden, in}}, 1),
               b1 = test::random_tensor({DType::kF32, {hidden}}, 2);
  const Tensor w2 = test::random_tensor({DType::kF32, {out, hidden}}, 3),
               b2 = test::random_tensor({DType::kF32, {out}}, 4);
  const Tensor x = test::random_tensor({DType::kF32, {batch, in}}, 5);

  ir::Graph g;
  const ValueId xv = g.add_input("x", x.type);
  const ValueId h =
      build(g, OpKind::kLinear, {xv, g.add_constant("w1", w1), g.add_constant("b1", b1)});
  const ValueId r = build(g, OpKind::kRelu, {h});
  const ValueId logits =
      build(g, OpKind::kLinear, {r, g.add_constant("w2", w2), g.add_constant("b2", b2)});
  Attributes dim1;
  dim1.set("dim", int64_t{1});
  g.set_outputs({build(g, OpKind::kSoftmax, {logits}, dim1)});

  Expected<std::vector<Tensor>> result = reference::evaluate(g, {x});
  REQUIRE(result.has_value());
  REQUIRE(result->size() == 1);

  // The same computation with plain loops; every node's result is stored as f32.
  Tensor expected = Tensor::zeros({DType::kF32, {batch, out}});
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<float> act(static_cast<size_t>(hidden));
    for (int64_t j = 0; j < hidden; ++j) {
      double acc = b1.get(j);
      for (int64_t k = 0; k < in; ++k) acc += x.get(b * in + k) * w1.get(j * in + k);
      act[static_cast<size_t>(j)] = std::max(static_cast<float>(acc), 0.0f);
    }
    std::vector<float> z(static_cast<size_t>(out));
    for (int64_t o = 0; o < out; ++o) {
      double acc = b2.get(o);
      for (int64_t j = 0; j < hidden; ++j)
        acc += act[static_cast<size_t>(j)] * w2.get(o * hidden + j);
      z[static_cast<size_t>(o)] = static_cast<float>(acc);
    }
    const double max = *std::max_element(z.begin(), z.end());
    double sum = 0;
    for (float v : z) sum += std::exp(v - max);
    for (int64_t o = 0; o < out; ++o)
      expected.set(b * out + o, std::exp(z[static_cast<size_t>(o)] - max) / sum);
  }
  CHECK(test::compare_close((*result)[0], expected, 1.3e-6, 1e-5) == "");
}

TEST_CASE("evaluate: shared intermediates, dead nodes, inputs and constants as outputs") {
  ir::Graph g;
  const TensorType t{DType::kF32, {2, 2}};
  const Tensor x = test::random_tensor(t, 9);
  const Tensor w = test::random_tensor(t, 10);
  const ValueId xv = g.add_input("x", t);
  const ValueId wv = g.add_constant("w", w);
  const ValueId a = build(g, OpKind::kAdd, {xv, xv});  // 2x, read by three later nodes
  const ValueId b = build(g, OpKind::kMul, {a, a});    // 4x^2
  build(g, OpKind::kExp, {a});                         // dead: freed right away
  const ValueId c = build(g, OpKind::kSub, {b, a});    // 4x^2 - 2x
  g.set_outputs({c, a, xv, wv, c});

  Expected<std::vector<Tensor>> result = reference::evaluate(g, {x});
  REQUIRE(result.has_value());
  REQUIRE(result->size() == 5);
  Tensor expected_c = Tensor::zeros(t), expected_a = Tensor::zeros(t);
  for (int64_t i = 0; i < 4; ++i) {
    const auto two_x = static_cast<float>(2 * x.get(i));
    expected_a.set(i, two_x);
    expected_c.set(i, static_cast<float>(two_x * two_x) - two_x);
  }
  CHECK(test::compare_close((*result)[0], expected_c, 1.3e-6, 1e-5) == "");
  CHECK(test::compare_close((*result)[1], expected_a, 0, 0) == "");
  CHECK((*result)[2].data == x.data);
  CHECK((*result)[3].data == w.data);
  CHECK((*result)[4].data == (*result)[0].data);
}

TEST_CASE("evaluate: f16 values round on every store") {
  ir::Graph g;
  const ValueId x = g.add_input("x", {DType::kF16, {1}});
  const ValueId eps =
      ir::add_scalar_constant(g, 0x1p-11, DType::kF32, "eps");  // half an f16 ulp at 1
  const ValueId once = build(g, OpKind::kAdd, {x, eps});        // f16: 1 + 2^-11 ties to 1
  g.set_outputs({build(g, OpKind::kAdd, {once, eps})});         // 1 again, not 1 + 2^-10
  Tensor one = Tensor::zeros({DType::kF16, {1}});
  one.set(0, 1.0);
  Expected<std::vector<Tensor>> result = reference::evaluate(g, {one});
  REQUIRE(result.has_value());
  CHECK((*result)[0].type == TensorType{DType::kF16, {1}});
  CHECK((*result)[0].get(0) == 1.0);
}

TEST_CASE("evaluate_node evaluates one node on given tensors") {
  ir::Graph g;
  const ValueId a = g.add_input("a", {DType::kF32, {2}});
  const ValueId b = g.add_input("b", {DType::kF32, {2}});
  g.set_outputs({build(g, OpKind::kDiv, {a, b})});
  const Tensor ta = test::random_tensor(g.type(a), 1), tb = test::random_tensor(g.type(b), 2);
  Expected<std::vector<Tensor>> out = reference::evaluate_node(g, g.nodes()[0], {&ta, &tb});
  REQUIRE(out.has_value());
  REQUIRE(out->size() == 1);
  CHECK((*out)[0].get(1) == static_cast<float>(ta.get(1) / tb.get(1)));
}

TEST_CASE("evaluate: input and constant errors") {
  ir::Graph g;
  const ValueId x = g.add_input("x", {DType::kF32, {2, 3}});
  g.set_outputs({build(g, OpKind::kRelu, {x})});
  const Tensor good = test::random_tensor({DType::kF32, {2, 3}}, 1);

  SECTION("wrong input count") {
    Expected<std::vector<Tensor>> r = reference::evaluate(g, {good, good});
    REQUIRE_FALSE(r.has_value());
    CHECK(r.status().code() == ErrorCode::kInvalidInput);
    CHECK(contains(r.status().message(), "takes 1, got 2"));
  }
  SECTION("wrong shape or dtype names the input and both types") {
    for (const TensorType& wrong :
         {TensorType{DType::kF32, {2, 4}}, TensorType{DType::kF16, {2, 3}}}) {
      Expected<std::vector<Tensor>> r = reference::evaluate(g, {test::random_tensor(wrong, 2)});
      REQUIRE_FALSE(r.has_value());
      CHECK(r.status().code() == ErrorCode::kInvalidInput);
      CHECK(contains(r.status().message(), "%x"));
      CHECK(contains(r.status().message(), wrong.to_string()));
      CHECK(contains(r.status().message(), "f32[2,3]"));
    }
  }
  SECTION("data that does not match the type") {
    Tensor short_data = good;
    short_data.data.resize(4);
    Expected<std::vector<Tensor>> r = reference::evaluate(g, {short_data});
    REQUIRE_FALSE(r.has_value());
    CHECK(r.status().code() == ErrorCode::kInvalidInput);
    CHECK(contains(r.status().message(), "bytes of data"));
  }
  SECTION("an elided constant is refused by name") {
    ir::Graph h;
    const ValueId hx = h.add_input("x", {DType::kF32, {3}});
    const ValueId w = h.add_constant("weight", {DType::kF32, {3}}, nullptr);
    h.set_outputs({build(h, OpKind::kAdd, {hx, w})});
    Expected<std::vector<Tensor>> r =
        reference::evaluate(h, {test::random_tensor({DType::kF32, {3}}, 3)});
    REQUIRE_FALSE(r.has_value());
    CHECK(r.status().code() == ErrorCode::kInvalidInput);
    CHECK(contains(r.status().message(), "%weight"));
    CHECK(contains(r.status().message(), "elided"));
  }
}

TEST_CASE("evaluate: an output too large to hold is an error, not a crash") {
  ir::Graph g;
  const ValueId x = g.add_input("x", {DType::kF32, {1}});
  Attributes unaddressable;
  unaddressable.set("shape", ir::IntList{int64_t{1} << 40, int64_t{1} << 40});
  Expected<ValueId> rejected = ir::build_value(g, OpKind::kExpand, {x}, unaddressable, "v");
  REQUIRE_FALSE(rejected.has_value());
  CHECK(contains(rejected.status().message(), "too large"));
  Attributes shape;  // 4 TiB: a valid IR type, but more than the interpreter holds in memory
  shape.set("shape", ir::IntList{int64_t{1} << 20, int64_t{1} << 20});
  g.set_outputs({build(g, OpKind::kExpand, {x}, shape)});
  Expected<std::vector<Tensor>> r =
      reference::evaluate(g, {test::random_tensor({DType::kF32, {1}}, 1)});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.status().code() == ErrorCode::kInvalidInput);
  CHECK(contains(r.status().message(), "too large"));
}

}  // namespace
}  // namespace inferno
