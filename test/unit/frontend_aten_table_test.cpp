// The ATen table: AtenCall -> IR for every supported op (types, node ops, attributes), argument
// binding (positional, keyword, defaults, errors) and the unsupported-op message.
#include <string>

#include "frontend/aten_table.h"
#include "ir/verifier.h"
#include "reference/interpreter.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno::frontend {
namespace {

using ir::DType;
using ir::OpKind;
using ir::ValueId;
using Kw = std::vector<std::pair<std::string, AtenArg>>;

// A graph with some inputs, and a shorthand to lower calls into it.
struct G {
  ir::Graph g;
  ValueId in(ir::Shape shape, DType dtype = DType::kF32) {
    return g.add_input("in" + std::to_string(g.inputs().size()), {dtype, std::move(shape)});
  }
  Expected<std::vector<ValueId>> lower(std::string op, std::vector<AtenArg> pos, Kw kw = {},
                                       std::string overload = "") {
    AtenCall call{std::move(op), std::move(overload), std::move(pos), std::move(kw),
                  "node",        {"model.py", 7}};
    return lower_aten_call(g, call);
  }
  // Lowers a call that must succeed with one output; returns it.
  ValueId one(std::string op, std::vector<AtenArg> pos, Kw kw = {}, std::string overload = "") {
    auto out = lower(op, std::move(pos), std::move(kw), std::move(overload));
    INFO(op << ": " << (out ? std::string() : out.status().to_string()));
    REQUIRE(out.has_value());
    REQUIRE(out->size() == 1);
    return out->front();
  }
  std::string type(ValueId v) const { return g.type(v).to_string(); }
  // Op of the node defining `v`.
  OpKind op_of(ValueId v) const {
    for (const ir::Node& n : g.nodes()) {
      for (ValueId o : n.outputs) {
        if (o == v) return n.op;
      }
    }
    FAIL("value is not a node output");
    return OpKind::kAdd;
  }
  const ir::Node& node_of(ValueId v) const {
    for (const ir::Node& n : g.nodes()) {
      if (n.outputs.front() == v) return n;
    }
    FAIL("value is not a node output");
    return g.nodes().front();
  }
  void verify() {
    g.set_outputs({});
    const Status s = ir::verify(g);
    INFO(s.to_string());
    CHECK(s.is_ok());
  }
};

AtenArg ints(std::vector<int64_t> v) { return AtenArg{std::move(v)}; }
AtenArg i64(int64_t v) { return AtenArg{v}; }

// Operand `i` of the node defining `v`: its type, and its value when it is a rank-0 constant.
std::string operand_type(const G& t, ValueId v, size_t i) {
  return t.type(t.node_of(v).inputs.at(i));
}
double constant_operand(const G& t, ValueId v, size_t i) {
  const ir::Value& value = t.g.value(t.node_of(v).inputs.at(i));
  REQUIRE(value.kind == ir::ValueKind::kConstant);
  REQUIRE(value.type.rank() == 0);
  return value.constant->get(0);
}
// An unsupported-argument error (exit 2) that names the op, the node and the source line.
void check_unsupported(const Expected<std::vector<ValueId>>& out, const std::string& op,
                       const std::string& needle) {
  REQUIRE(!out);
  INFO(out.status().to_string());
  CHECK(out.status().code() == ErrorCode::kUnsupported);
  CHECK(out.status().message().find(op) != std::string::npos);
  CHECK(out.status().message().find(needle) != std::string::npos);
  CHECK(out.status().node() == "node");
  CHECK(out.status().location().to_string() == "model.py:7");
}

}  // namespace

TEST_CASE("aten baddbmm computes beta * self + alpha * batch1 @ batch2", "[frontend][aten]") {
  G t;
  const ValueId self = t.in({1, 1, 2}), b1 = t.in({2, 1, 3}), b2 = t.in({2, 3, 2});
  t.g.set_outputs({t.one("aten::baddbmm", {self, b1, b2}, {{"beta", 0.5}, {"alpha", i64(2)}})});
  const auto tensor = [](ir::Shape shape, std::vector<double> v) {
    ir::Tensor x = ir::Tensor::zeros({DType::kF32, std::move(shape)});
    for (size_t k = 0; k < v.size(); ++k) x.set(static_cast<int64_t>(k), v[k]);
    return x;
  };
  // Batch 0: [1 2 3] @ [[1 0] [0 1] [1 1]] = [4 5]; batch 1: [0 1 -1] @ [[2 1] [1 2] [3 0]] =
  // [-2 2]. Times 2, plus 0.5 * [10 -4].
  auto out =
      reference::evaluate(t.g, {tensor({1, 1, 2}, {10, -4}), tensor({2, 1, 3}, {1, 2, 3, 0, 1, -1}),
                                tensor({2, 3, 2}, {1, 0, 0, 1, 1, 1, 2, 1, 1, 2, 3, 0})});
  INFO((out ? std::string() : out.status().to_string()));
  REQUIRE(out.has_value());
  REQUIRE(out->at(0).type.to_string() == "f32[2,1,2]");
  const double want[] = {13, 8, 1, 2};
  for (int64_t k = 0; k < 4; ++k) CHECK(out->at(0).get(k) == want[k]);
}

TEST_CASE("aten gemms", "[frontend][aten]") {
  G t;
  const ValueId x = t.in({4, 16}), w = t.in({32, 16}), b = t.in({32});
  ValueId y = t.one("aten::linear", {x, w, b});
  CHECK(t.type(y) == "f32[4,32]");
  CHECK(t.op_of(y) == OpKind::kLinear);
  CHECK(t.node_of(y).inputs.size() == 3);
  y = t.one("aten::linear", {x, w});
  CHECK(t.node_of(y).inputs.size() == 2);
  y = t.one("aten::linear", {x, w}, {{"bias", NoneArg{}}});
  CHECK(t.node_of(y).inputs.size() == 2);
  y = t.one("aten::linear", {x}, {{"weight", w}, {"bias", b}});
  CHECK(t.node_of(y).inputs.size() == 3);

  const ValueId m2 = t.in({16, 32}), bias = t.in({32});
  y = t.one("aten::addmm", {bias, x, m2});
  CHECK(t.type(y) == "f32[4,32]");
  CHECK(t.node_of(y).attrs.get_float("alpha") == 1.0);
  CHECK(t.node_of(y).attrs.get_float("beta") == 1.0);
  y = t.one("aten::addmm", {bias, x, m2}, {{"beta", 0.5}, {"alpha", i64(2)}});
  CHECK(t.node_of(y).attrs.get_float("alpha") == 2.0);
  CHECK(t.node_of(y).attrs.get_float("beta") == 0.5);

  CHECK(t.type(t.one("aten::mm", {x, m2})) == "f32[4,32]");
  const ValueId a3 = t.in({2, 4, 8}), b3 = t.in({2, 8, 6}), c3 = t.in({3, 8, 6});
  y = t.one("aten::bmm", {a3, b3});
  CHECK(t.type(y) == "f32[2,4,6]");
  CHECK(t.op_of(y) == OpKind::kMatMul);
  CHECK(t.type(t.one("aten::matmul", {a3, t.in({8, 5})})) == "f32[2,4,5]");
  CHECK(t.type(t.one("aten::matmul", {t.in({8}), t.in({8})})) == "f32[]");

  // baddbmm: the batched product, alpha's and beta's multiplies, then the sum; beta 0 drops self.
  const ValueId s3 = t.in({1, 4, 6});
  y = t.one("aten::baddbmm", {s3, a3, b3}, {{"beta", 0.5}, {"alpha", 0.25}});
  CHECK(t.type(y) == "f32[2,4,6]");
  CHECK(t.op_of(y) == OpKind::kAdd);
  CHECK(constant_operand(t, t.node_of(y).inputs[0], 1) == 0.5);
  CHECK(constant_operand(t, t.node_of(y).inputs[1], 1) == 0.25);
  CHECK(t.op_of(t.node_of(t.node_of(y).inputs[1]).inputs[0]) == OpKind::kMatMul);
  y = t.one("aten::baddbmm", {s3, a3, b3});
  CHECK(t.op_of(t.node_of(y).inputs[1]) == OpKind::kMatMul);  // alpha 1: no multiply
  CHECK(t.node_of(y).inputs[0] == s3);                        // beta 1: self as it is
  y = t.one("aten::baddbmm", {s3, a3, b3}, {{"beta", i64(0)}});
  CHECK(t.op_of(y) == OpKind::kMatMul);
  for (const ValueId self : {t.in({3, 4, 6}), t.in({2, 5, 4, 6})}) {
    auto wrong = t.lower("aten::baddbmm", {self, a3, b3});
    REQUIRE(!wrong);
    CHECK(wrong.status().message().find("does not broadcast to the product") != std::string::npos);
  }
  CHECK(!t.lower("aten::baddbmm", {s3, a3, c3}));  // batch sizes differ
  t.verify();

  auto bad = t.lower("aten::mm", {a3, m2});
  REQUIRE(!bad);
  CHECK(bad.status().code() == ErrorCode::kInvalidInput);
  CHECK(bad.status().message().find("aten::mm") != std::string::npos);
  CHECK(bad.status().node() == "node");
  bad = t.lower("aten::bmm", {a3, c3});
  REQUIRE(!bad);
  CHECK(bad.status().message().find("batch") != std::string::npos);
  bad = t.lower("aten::matmul", {x, x});  // inner dims 16 vs 4
  REQUIRE(!bad);
  CHECK(bad.status().code() == ErrorCode::kInvalidInput);
  CHECK(bad.status().location().line == 7);
  t.verify();
}

TEST_CASE("aten layout ops", "[frontend][aten]") {
  G t;
  const ValueId v = t.in({5}), m = t.in({4, 6}), x = t.in({2, 3, 4});
  CHECK(t.one("aten::t", {v}) == v);
  ValueId y = t.one("aten::t", {m});
  CHECK(t.type(y) == "f32[6,4]");
  CHECK(t.op_of(y) == OpKind::kTranspose);
  CHECK(t.lower("aten::t", {x}).status().code() == ErrorCode::kInvalidInput);

  y = t.one("aten::transpose", {x, i64(-1), i64(0)}, {}, "int");
  CHECK(t.type(y) == "f32[4,3,2]");
  CHECK(t.node_of(y).attrs.get_int("dim0") == 0);
  CHECK(t.node_of(y).attrs.get_int("dim1") == 2);
  CHECK(t.one("aten::transpose", {x, i64(1), i64(-2)}) == x);
  CHECK(t.lower("aten::transpose", {x, i64(3), i64(0)}).status().code() ==
        ErrorCode::kInvalidInput);

  y = t.one("aten::permute", {x, ints({-1, 0, 1})});
  CHECK(t.type(y) == "f32[4,2,3]");
  CHECK(t.node_of(y).attrs.get_ints("dims") == ir::IntList{2, 0, 1});
  CHECK(t.one("aten::permute", {x, ints({0, 1, 2})}) == x);
  CHECK(!t.lower("aten::permute", {x, ints({0, 0, 1})}));

  y = t.one("aten::view", {x, ints({6, -1})});
  CHECK(t.type(y) == "f32[6,4]");
  CHECK(t.op_of(y) == OpKind::kReshape);
  CHECK(t.type(t.one("aten::reshape", {x}, {{"shape", ints({-1})}})) == "f32[24]");
  CHECK(t.type(t.one("aten::_unsafe_view", {x, ints({4, 6})})) == "f32[4,6]");
  CHECK(t.type(t.one("aten::view_copy", {x, ints({2, 12})})) == "f32[2,12]");
  CHECK(t.one("aten::view", {x, ints({2, 3, 4})}) == x);
  CHECK(t.one("aten::view", {x, ints({2, -1, 4})}) == x);
  for (auto bad : {ints({-1, -1}), ints({5, -1}), ints({7}), ints({-2, 12}), ints({0, -1})}) {
    auto out = t.lower("aten::view", {x, bad});
    REQUIRE(!out);
    CHECK(out.status().code() == ErrorCode::kInvalidInput);
  }
  CHECK(t.lower("aten::view", {x, DType::kF16}, {}, "dtype").status().code() ==
        ErrorCode::kUnsupported);

  CHECK(t.type(t.one("aten::flatten", {x})) == "f32[24]");
  CHECK(t.type(t.one("aten::flatten", {x, i64(1)})) == "f32[2,12]");
  CHECK(t.type(t.one("aten::flatten", {x}, {{"start_dim", i64(0)}, {"end_dim", i64(-2)}})) ==
        "f32[6,4]");
  CHECK(t.type(t.one("aten::flatten", {t.in({})})) == "f32[1]");
  CHECK(!t.lower("aten::flatten", {x, i64(2), i64(1)}));

  CHECK(t.type(t.one("aten::unsqueeze", {x, i64(-1)})) == "f32[2,3,4,1]");
  CHECK(t.type(t.one("aten::unsqueeze", {x, i64(0)})) == "f32[1,2,3,4]");
  CHECK(!t.lower("aten::unsqueeze", {x, i64(4)}));

  const ValueId s = t.in({1, 3, 1});
  CHECK(t.type(t.one("aten::squeeze", {s})) == "f32[3]");
  CHECK(t.type(t.one("aten::squeeze", {s, i64(-1)}, {}, "dim")) == "f32[1,3]");
  CHECK(t.type(t.one("aten::squeeze", {s, ints({0, 2})}, {}, "dims")) == "f32[3]");
  CHECK(t.one("aten::squeeze", {s, i64(1)}) == s);  // size 3: a no-op

  const ValueId e = t.in({1, 20});
  y = t.one("aten::expand", {e, ints({2, 20})});
  CHECK(t.type(y) == "f32[2,20]");
  CHECK(t.op_of(y) == OpKind::kExpand);
  CHECK(t.type(t.one("aten::expand", {e, ints({3, 4, -1})})) == "f32[3,4,20]");
  CHECK(t.one("aten::expand", {e, ints({-1, -1})}) == e);
  CHECK(!t.lower("aten::expand", {e, ints({-1, 1, 20})}));
  CHECK(!t.lower("aten::expand", {e, ints({2, 21})}));
  t.verify();
}

TEST_CASE("aten identities and dropout", "[frontend][aten]") {
  G t;
  const ValueId x = t.in({4, 8});
  for (const char* op : {"aten::contiguous", "aten::clone", "aten::detach", "aten::alias",
                         "aten::lift_fresh_copy"}) {
    CHECK(t.one(op, {x}) == x);
  }
  CHECK(t.one("aten::clone", {x}, {{"memory_format", NoneArg{}}}) == x);
  CHECK(t.one("aten::dropout", {x, 0.1, false}) == x);
  CHECK(t.one("aten::feature_dropout", {x, 0.1, false}) == x);
  CHECK(t.one("aten::dropout_", {x, i64(0), false}) == x);
  auto train = t.lower("aten::dropout", {x, 0.1, true});
  REQUIRE(!train);
  CHECK(train.status().code() == ErrorCode::kUnsupported);
  CHECK(train.status().message().find("dropout in training mode") != std::string::npos);
  auto nd = t.lower("aten::native_dropout", {x, 0.5, false});
  REQUIRE(nd);
  REQUIRE(nd->size() == 2);
  CHECK((*nd)[0] == x);
  CHECK(t.type((*nd)[1]) == "bool[4,8]");
  CHECK(t.lower("aten::native_dropout", {x, 0.5, NoneArg{}}).status().code() ==
        ErrorCode::kUnsupported);
  t.verify();
}

TEST_CASE("aten unary ops", "[frontend][aten]") {
  G t;
  const ValueId x = t.in({4, 8}, DType::kF16);
  const std::pair<const char*, OpKind> ops[] = {
      {"aten::relu", OpKind::kRelu},       {"aten::silu", OpKind::kSilu},
      {"aten::sigmoid", OpKind::kSigmoid}, {"aten::tanh", OpKind::kTanh},
      {"aten::exp", OpKind::kExp},         {"aten::abs", OpKind::kAbs},
      {"aten::neg", OpKind::kNeg},         {"aten::relu_", OpKind::kRelu}};
  for (const auto& [name, kind] : ops) {
    const ValueId y = t.one(name, {x});
    CHECK(t.op_of(y) == kind);
    CHECK(t.type(y) == "f16[4,8]");
  }
  // gelu's approximate picks the op: none -> gelu, tanh -> gelu_tanh.
  ValueId y = t.one("aten::gelu", {x});
  CHECK(t.op_of(y) == OpKind::kGelu);
  CHECK(t.node_of(y).attrs.empty());
  y = t.one("aten::gelu", {x}, {{"approximate", std::string("tanh")}});
  CHECK(t.op_of(y) == OpKind::kGeluTanh);
  CHECK(t.type(y) == "f16[4,8]");
  CHECK(t.op_of(t.one("aten::gelu", {x, std::string("none")})) == OpKind::kGelu);
  auto erf = t.lower("aten::gelu", {x}, {{"approximate", std::string("erf")}});
  REQUIRE(!erf);
  CHECK(erf.status().code() == ErrorCode::kInvalidInput);
  CHECK(erf.status().message().find("'erf'") != std::string::npos);
  // sigmoid of an integer tensor computes in f32, as PyTorch does.
  CHECK(t.type(t.one("aten::sigmoid", {t.in({3}, DType::kI64)})) == "f32[3]");
  CHECK(t.type(t.one("aten::relu", {t.in({3}, DType::kI64)})) == "i64[3]");
  t.verify();
}

TEST_CASE("aten binary ops and scalar promotion", "[frontend][aten]") {
  G t;
  const ValueId x = t.in({4, 8}), y = t.in({8}), h = t.in({4, 8}, DType::kF16),
                n = t.in({4}, DType::kI64);
  ValueId r = t.one("aten::add", {x, y}, {}, "Tensor");
  CHECK(t.type(r) == "f32[4,8]");
  CHECK(t.op_of(r) == OpKind::kAdd);
  // A float scalar takes a floating tensor's dtype.
  r = t.one("aten::add", {h, 1.5}, {}, "Scalar");
  CHECK(t.type(r) == "f16[4,8]");
  CHECK(t.g.type(t.node_of(r).inputs[1]).to_string() == "f16[]");
  CHECK(t.g.value(t.node_of(r).inputs[1]).constant->get(0) == 1.5);
  // An int scalar keeps an int tensor's dtype; a float scalar makes it f32.
  CHECK(t.type(t.one("aten::mul", {n, i64(3)})) == "i64[4]");
  CHECK(t.type(t.one("aten::mul", {n, 0.5})) == "f32[4]");
  CHECK(t.type(t.one("aten::div", {n, i64(2)})) == "f32[4]");
  CHECK(t.type(t.one("aten::add", {h, x})) == "f32[4,8]");

  // alpha: x + 2*y as Mul then Add; folded into a scalar operand.
  r = t.one("aten::add", {x, y}, {{"alpha", i64(2)}});
  CHECK(t.op_of(r) == OpKind::kAdd);
  CHECK(t.op_of(t.node_of(r).inputs[1]) == OpKind::kMul);
  r = t.one("aten::sub", {x, i64(3), 0.5});
  CHECK(t.op_of(r) == OpKind::kSub);
  CHECK(t.g.value(t.node_of(r).inputs[1]).constant->get(0) == 1.5);
  // rsub(x, 1.0) = 1.0 - x.
  r = t.one("aten::rsub", {x, 1.0}, {}, "Scalar");
  CHECK(t.op_of(r) == OpKind::kSub);
  CHECK(t.g.value(t.node_of(r).inputs[0]).kind == ir::ValueKind::kConstant);
  CHECK(t.node_of(r).inputs[1] == x);
  r = t.one("aten::rsub", {x, y}, {{"alpha", 2.0}});
  CHECK(t.node_of(r).inputs[0] == y);
  CHECK(t.op_of(t.node_of(r).inputs[1]) == OpKind::kMul);

  // Decompositions put the number first: sub.Tensor(1.0, x).
  r = t.one("aten::sub", {1.0, h}, {}, "Tensor");
  CHECK(t.type(r) == "f16[4,8]");
  CHECK(t.g.value(t.node_of(r).inputs[0]).constant->get(0) == 1.0);
  CHECK(t.node_of(r).inputs[1] == h);
  CHECK(t.lower("aten::mul", {2.0, 3.0}).status().code() == ErrorCode::kInvalidInput);
  CHECK(t.type(t.one("aten::div", {x, y}, {{"rounding_mode", NoneArg{}}})) == "f32[4,8]");
  r = t.one("aten::div", {x, y}, {{"rounding_mode", std::string("floor")}}, "Tensor_mode");
  CHECK(t.op_of(r) == OpKind::kDivFloor);
  r = t.one("aten::div", {n, i64(2)}, {{"rounding_mode", std::string("trunc")}}, "Scalar_mode");
  CHECK(t.op_of(r) == OpKind::kDivTrunc);
  CHECK(t.type(r) == "i64[4]");  // a rounding division of integers stays integer
  CHECK(t.lower("aten::div", {x, y}, {{"rounding_mode", std::string("ceil")}}, "Tensor_mode")
            .status()
            .code() == ErrorCode::kInvalidInput);
  CHECK(t.op_of(t.one("aten::floor_divide", {n, i64(3)})) == OpKind::kDivFloor);
  CHECK(t.op_of(t.one("aten::remainder", {x, 1.5}, {}, "Scalar")) == OpKind::kRemainder);
  CHECK(t.lower("aten::add", {x, t.in({3})}).status().code() == ErrorCode::kInvalidInput);
  CHECK(t.type(t.one("aten::mul_", {x, 2.0})) == "f32[4,8]");
  t.verify();
}

TEST_CASE("aten reductions and softmax", "[frontend][aten]") {
  G t;
  const ValueId x = t.in({2, 3, 4});
  ValueId r = t.one("aten::sum", {x}, {}, "default");
  CHECK(t.type(r) == "f32[]");
  CHECK(t.node_of(r).attrs.get_ints("dims").empty());
  r = t.one("aten::sum", {x, ints({-1, 0, 2})}, {}, "dim_IntList");
  CHECK(t.type(r) == "f32[3]");
  CHECK(t.node_of(r).attrs.get_ints("dims") == ir::IntList{0, 2});
  r = t.one("aten::sum", {x, ints({1})}, {{"keepdim", true}});
  CHECK(t.type(r) == "f32[2,1,4]");
  CHECK(t.type(t.one("aten::sum", {x, NoneArg{}})) == "f32[]");
  CHECK(t.type(t.one("aten::sum", {x, ints({})})) == "f32[]");
  // TorchScript's sum(self, *, dtype) arrives positionally with an empty overload name.
  r = t.one("aten::sum", {x, DType::kF64});
  CHECK(t.type(r) == "f64[]");
  CHECK(t.op_of(t.node_of(r).inputs[0]) == OpKind::kCast);
  CHECK(t.type(t.one("aten::sum", {t.in({3}, DType::kBool)})) == "i64[]");
  r = t.one("aten::mean", {x, ints({1}), true}, {}, "dim");
  CHECK(t.type(r) == "f32[2,1,4]");
  CHECK(t.op_of(r) == OpKind::kMean);
  CHECK(t.type(t.one("aten::mean", {x}, {}, "default")) == "f32[]");
  CHECK(t.type(t.one("aten::mean", {x, i64(-1)}, {{"dtype", DType::kF16}})) == "f16[2,3]");
  CHECK(!t.lower("aten::sum", {x, ints({3})}));

  r = t.one("aten::softmax", {x, i64(-1)}, {}, "int");
  CHECK(t.op_of(r) == OpKind::kSoftmax);
  CHECK(t.node_of(r).attrs.get_int("dim") == 2);
  r = t.one("aten::_softmax", {x, i64(1), false});
  CHECK(t.node_of(r).attrs.get_int("dim") == 1);
  CHECK(t.lower("aten::_softmax", {x, i64(1), true}).status().code() == ErrorCode::kUnsupported);
  r = t.one("aten::log_softmax", {x, i64(0), DType::kF64});
  CHECK(t.op_of(r) == OpKind::kLogSoftmax);
  CHECK(t.type(r) == "f64[2,3,4]");
  CHECK(t.op_of(t.one("aten::_log_softmax", {x, i64(-2), false})) == OpKind::kLogSoftmax);
  t.verify();
}

TEST_CASE("aten dtype conversions", "[frontend][aten]") {
  G t;
  const ValueId x = t.in({4}), n = t.in({4}, DType::kI64);
  ValueId r = t.one("aten::to", {x, DType::kF16}, {}, "dtype");
  CHECK(t.type(r) == "f16[4]");
  CHECK(t.op_of(r) == OpKind::kCast);
  CHECK(t.one("aten::to", {x, DType::kF32}, {}, "dtype") == x);
  CHECK(t.one("aten::to", {x, std::string("cuda"), DType::kF32, false, false}, {}, "device") == x);
  CHECK(t.one("aten::to", {x}, {{"device", std::string("cuda")}}, "dtype_layout") == x);
  CHECK(t.type(t.one("aten::to", {x, n}, {}, "other")) == "i64[4]");
  CHECK(t.one("aten::to", {x, NoneArg{}, NoneArg{}, false, false}, {}, "prim_Device") == x);
  // TorchScript dtype constants are c10::ScalarType numbers: 5 is half.
  CHECK(t.type(t.one("aten::to", {x, i64(5), false, false, NoneArg{}}, {}, "dtype")) == "f16[4]");
  auto u8 = t.lower("aten::to", {x, i64(0)}, {}, "dtype");
  REQUIRE(!u8);
  CHECK(u8.status().code() == ErrorCode::kUnsupported);
  CHECK(u8.status().message().find("uint8") != std::string::npos);
  CHECK(t.type(t.one("aten::_to_copy", {x},
                     {{"dtype", DType::kBF16}, {"device", std::string("cpu")}})) == "bf16[4]");
  CHECK(t.one("aten::_to_copy", {x}, {{"layout", NoneArg{}}}) == x);
  CHECK(t.type(t.one("aten::type_as", {n, x})) == "f32[4]");
  // x.bool(), x.long(), x.int() and .to(torch.bool) as TorchScript and torch.export give them.
  CHECK(t.type(t.one("aten::to", {x, i64(11), false, false, NoneArg{}}, {}, "dtype")) == "bool[4]");
  CHECK(t.type(t.one("aten::to", {x, DType::kI64, false, false, NoneArg{}}, {}, "dtype")) ==
        "i64[4]");
  CHECK(t.type(t.one("aten::to", {x, NoneArg{}, DType::kI32, false, false}, {}, "prim_Device")) ==
        "i32[4]");
  CHECK(t.type(t.one("aten::_to_copy", {x}, {{"dtype", DType::kBool}})) == "bool[4]");
  CHECK(t.type(t.one("aten::_to_copy", {t.in({4}, DType::kBool)}, {{"dtype", DType::kF32}})) ==
        "f32[4]");
  t.verify();
}

TEST_CASE("aten activations with scalar parameters", "[frontend][aten]") {
  G t;
  const ValueId x = t.in({4, 8}), h = t.in({4, 8}, DType::kF16), n = t.in({4, 8}, DType::kI64);
  for (const auto& [name, kind] : {std::pair{"aten::hardswish", OpKind::kHardswish},
                                   {"aten::hardswish_", OpKind::kHardswish},
                                   {"aten::hardsigmoid", OpKind::kHardsigmoid}}) {
    const ValueId y = t.one(name, {h});
    CHECK(t.op_of(y) == kind);
    CHECK(t.type(y) == "f16[4,8]");
  }
  // Scalar parameters are rank-0 constant operands typed like the tensor.
  ValueId y = t.one("aten::leaky_relu", {x});
  CHECK(t.op_of(y) == OpKind::kLeakyRelu);
  REQUIRE(t.node_of(y).inputs.size() == 2);
  CHECK(operand_type(t, y, 1) == "f32[]");
  CHECK(constant_operand(t, y, 1) == static_cast<float>(0.01));
  y = t.one("aten::leaky_relu_", {h, 0.2});
  CHECK(t.type(y) == "f16[4,8]");
  CHECK(operand_type(t, y, 1) == "f16[]");
  y = t.one("aten::elu", {x, 0.5}, {{"input_scale", i64(2)}});
  CHECK(t.op_of(y) == OpKind::kElu);
  REQUIRE(t.node_of(y).inputs.size() == 4);
  CHECK(constant_operand(t, y, 1) == 0.5);
  CHECK(constant_operand(t, y, 2) == 1.0);
  CHECK(constant_operand(t, y, 3) == 2.0);
  CHECK(operand_type(t, y, 3) == "f32[]");
  y = t.one("aten::softplus", {x}, {{"beta", 2.0}});
  CHECK(t.op_of(y) == OpKind::kSoftplus);
  CHECK(constant_operand(t, y, 1) == 2.0);
  CHECK(constant_operand(t, y, 2) == 20.0);
  // Float ops on integer tensors compute in f32, as PyTorch does; parameters are f32 too.
  y = t.one("aten::softplus", {n});
  CHECK(t.type(y) == "f32[4,8]");
  CHECK(t.op_of(t.node_of(y).inputs[0]) == OpKind::kCast);
  CHECK(operand_type(t, y, 1) == "f32[]");
  CHECK(t.type(t.one("aten::hardswish", {t.in({3}, DType::kBool)})) == "f32[3]");
  t.verify();
}

TEST_CASE("aten clamp, hardtanh and relu6", "[frontend][aten]") {
  G t;
  const ValueId x = t.in({4, 8}), lo = t.in({8}), hi = t.in({4, 1}), n = t.in({4}, DType::kI64);
  ValueId y = t.one("aten::hardtanh", {x});
  CHECK(t.op_of(y) == OpKind::kClamp);
  CHECK(constant_operand(t, y, 1) == -1.0);
  CHECK(constant_operand(t, y, 2) == 1.0);
  CHECK(operand_type(t, y, 1) == "f32[]");
  y = t.one("aten::hardtanh_", {x, -2.0, 2.5});
  CHECK(constant_operand(t, y, 1) == -2.0);
  CHECK(constant_operand(t, y, 2) == 2.5);
  // relu6, and hardtanh/clamp with number bounds 0 and 6, are the relu6 op
  CHECK(t.op_of(t.one("aten::relu6", {x})) == OpKind::kRelu6);
  CHECK(t.op_of(t.one("aten::hardtanh", {x, 0.0, 6.0})) == OpKind::kRelu6);
  CHECK(t.op_of(t.one("aten::clamp", {x, i64(0), i64(6)})) == OpKind::kRelu6);
  CHECK(t.type(t.one("aten::relu6", {n})) == "i64[4]");
  // ... but a float bound next to an integer tensor promotes: a clamp
  y = t.one("aten::clamp", {n, 0.0, 6.0});
  CHECK(t.op_of(y) == OpKind::kClamp);
  CHECK(operand_type(t, y, 2) == "f32[]");
  // clamp: both bounds -> clamp, one -> maximum/minimum, none -> x.
  y = t.one("aten::clamp", {x, -1.5, 4.0});
  CHECK(t.op_of(y) == OpKind::kClamp);
  y = t.one("aten::clamp", {x}, {{"min", 0.5}});
  CHECK(t.op_of(y) == OpKind::kMaximum);
  CHECK(constant_operand(t, y, 1) == 0.5);
  y = t.one("aten::clamp", {x, NoneArg{}, i64(3)});
  CHECK(t.op_of(y) == OpKind::kMinimum);
  CHECK(operand_type(t, y, 1) == "f32[]");
  CHECK(t.one("aten::clamp", {x}) == x);
  CHECK(t.one("aten::clamp_", {x, NoneArg{}, NoneArg{}}) == x);
  // clamp.Tensor: tensor bounds broadcast.
  y = t.one("aten::clamp", {x, lo, hi}, {}, "Tensor");
  CHECK(t.op_of(y) == OpKind::kClamp);
  CHECK(t.type(y) == "f32[4,8]");
  CHECK(t.node_of(y).inputs[1] == lo);
  CHECK(t.node_of(y).inputs[2] == hi);
  CHECK(t.op_of(t.one("aten::clamp", {x, NoneArg{}, hi}, {}, "Tensor")) == OpKind::kMinimum);
  y = t.one("aten::clamp_min", {x, lo}, {}, "Tensor");
  CHECK(t.op_of(y) == OpKind::kMaximum);
  CHECK(t.node_of(y).inputs[1] == lo);
  y = t.one("aten::clamp_max", {x, 1.0});
  CHECK(t.op_of(y) == OpKind::kMinimum);
  // Integer tensors keep their dtype with integer bounds; a float bound promotes, as in PyTorch.
  CHECK(t.type(t.one("aten::clamp", {n, i64(0), i64(5)})) == "i64[4]");
  CHECK(t.type(t.one("aten::clamp", {n, 0.5, NoneArg{}})) == "f32[4]");
  CHECK(t.lower("aten::clamp", {x, lo, t.in({3})}).status().code() == ErrorCode::kInvalidInput);
  t.verify();
}

TEST_CASE("aten math ops and pow", "[frontend][aten]") {
  G t;
  const ValueId x = t.in({4, 8}), h = t.in({4, 8}, DType::kF16), n = t.in({4}, DType::kI64);
  for (const auto& [name, kind] : {std::pair{"aten::sqrt", OpKind::kSqrt},
                                   {"aten::rsqrt", OpKind::kRsqrt},
                                   {"aten::reciprocal", OpKind::kReciprocal},
                                   {"aten::log", OpKind::kLog},
                                   {"aten::erf", OpKind::kErf},
                                   {"aten::cos", OpKind::kCos},
                                   {"aten::sin", OpKind::kSin}}) {
    ValueId y = t.one(name, {h});
    CHECK(t.op_of(y) == kind);
    CHECK(t.type(y) == "f16[4,8]");
    y = t.one(name, {n});  // integers compute in f32
    CHECK(t.type(y) == "f32[4]");
    CHECK(t.op_of(t.node_of(y).inputs[0]) == OpKind::kCast);
  }
  CHECK(t.type(t.one("aten::log_", {h})) == "f16[4,8]");
  // In place, an integer tensor cannot take the f32 result (PyTorch refuses it too).
  CHECK(t.lower("aten::sqrt_", {n}).status().code() == ErrorCode::kInvalidInput);
  ValueId y = t.one("aten::pow", {x, 2.5}, {}, "Tensor_Scalar");
  CHECK(t.op_of(y) == OpKind::kPow);
  CHECK(constant_operand(t, y, 1) == 2.5);
  y = t.one("aten::pow", {h, i64(2)}, {}, "Tensor_Scalar");
  CHECK(t.type(y) == "f16[4,8]");
  CHECK(operand_type(t, y, 1) == "f16[]");
  y = t.one("aten::pow", {x, t.in({8})}, {}, "Tensor_Tensor");
  CHECK(t.type(y) == "f32[4,8]");
  y = t.one("aten::pow", {2.0, x}, {}, "Scalar");  // a number base
  CHECK(constant_operand(t, y, 0) == 2.0);
  CHECK(t.node_of(y).inputs[1] == x);
  // Integer bases with a float exponent compute in f32; all-integer powers are refused.
  y = t.one("aten::pow", {n, 0.5}, {}, "Tensor_Scalar");
  CHECK(t.type(y) == "f32[4]");
  CHECK(t.op_of(t.node_of(y).inputs[0]) == OpKind::kCast);
  CHECK(t.type(t.one("aten::pow", {n, t.in({4})})) == "f32[4]");
  check_unsupported(t.lower("aten::pow", {n, i64(2)}, {}, "Tensor_Scalar"), "aten::pow", "i64");
  check_unsupported(t.lower("aten::pow", {n, n}, {}, "Tensor_Tensor"), "aten::pow", "integer");
  check_unsupported(t.lower("aten::pow", {i64(2), n}, {}, "Scalar"), "aten::pow", "integer");
  CHECK(t.lower("aten::pow", {2.0, 3.0}).status().code() == ErrorCode::kInvalidInput);
  // log1p and expm1 (decomposed softplus and elu emit them), integers computing in f32.
  CHECK(t.op_of(t.one("aten::log1p", {x})) == OpKind::kLog1p);
  y = t.one("aten::expm1", {n});
  CHECK(t.op_of(y) == OpKind::kExpm1);
  CHECK(t.type(y) == "f32[4]");
  // square: x * x, bool promoted to i64.
  y = t.one("aten::square", {x});
  CHECK(t.op_of(y) == OpKind::kMul);
  CHECK(t.node_of(y).inputs[0] == t.node_of(y).inputs[1]);
  CHECK(t.type(t.one("aten::square", {t.in({4}, DType::kBool)})) == "i64[4]");
  // Rounding (DeBERTa's relative positions use sign and ceil): integers keep their dtype.
  for (const auto& [name, op] :
       std::initializer_list<std::pair<const char*, OpKind>>{{"aten::floor", OpKind::kFloor},
                                                             {"aten::ceil", OpKind::kCeil},
                                                             {"aten::round", OpKind::kRound},
                                                             {"aten::trunc", OpKind::kTrunc},
                                                             {"aten::fix", OpKind::kTrunc},
                                                             {"aten::sign", OpKind::kSign}}) {
    CHECK(t.op_of(t.one(name, {x})) == op);
    y = t.one(name, {n});
    CHECK(t.op_of(y) == op);
    CHECK(t.type(y) == "i64[4]");
  }
  t.verify();
}

TEST_CASE("aten comparisons, minimum/maximum and logic", "[frontend][aten]") {
  G t;
  const ValueId x = t.in({4, 8}), y = t.in({8}), n = t.in({4}, DType::kI64),
                m = t.in({4, 8}, DType::kBool), k = t.in({4, 8}, DType::kBool);
  for (const auto& [name, kind] : {std::pair{"aten::eq", OpKind::kEq},
                                   {"aten::ne", OpKind::kNe},
                                   {"aten::lt", OpKind::kLt},
                                   {"aten::le", OpKind::kLe},
                                   {"aten::gt", OpKind::kGt},
                                   {"aten::ge", OpKind::kGe},
                                   {"aten::greater_equal", OpKind::kGe},
                                   {"aten::less", OpKind::kLt}}) {
    ValueId r = t.one(name, {x, y}, {}, "Tensor");
    CHECK(t.op_of(r) == kind);
    CHECK(t.type(r) == "bool[4,8]");
    r = t.one(name, {x, 0.5}, {}, "Scalar");
    CHECK(t.type(r) == "bool[4,8]");
    CHECK(operand_type(t, r, 1) == "f32[]");
  }
  // Numbers are typed against the tensor: an int stays i64, a float makes the comparison f32.
  CHECK(operand_type(t, t.one("aten::gt", {n, i64(0)}), 1) == "i64[]");
  CHECK(operand_type(t, t.one("aten::gt", {n, 0.5}), 1) == "f32[]");
  CHECK(t.lower("aten::eq", {1.0, 2.0}).status().code() == ErrorCode::kInvalidInput);

  ValueId r = t.one("aten::minimum", {x, y});
  CHECK(t.op_of(r) == OpKind::kMinimum);
  CHECK(t.type(r) == "f32[4,8]");
  CHECK(t.op_of(t.one("aten::maximum", {x, y})) == OpKind::kMaximum);
  CHECK(t.type(t.one("aten::maximum", {n, n})) == "i64[4]");

  // logical_* take any dtype; bitwise ops on bools are logical ops.
  CHECK(t.type(t.one("aten::logical_not", {x})) == "bool[4,8]");
  CHECK(t.op_of(t.one("aten::logical_and", {x, m})) == OpKind::kLogicalAnd);
  CHECK(t.op_of(t.one("aten::logical_or_", {m, k})) == OpKind::kLogicalOr);
  for (const auto& [name, kind] : {std::pair{"aten::bitwise_and", OpKind::kLogicalAnd},
                                   {"aten::__and__", OpKind::kLogicalAnd},
                                   {"aten::__iand__", OpKind::kLogicalAnd},
                                   {"aten::bitwise_or", OpKind::kLogicalOr},
                                   {"aten::__or__", OpKind::kLogicalOr}}) {
    r = t.one(name, {m, k}, {}, "Tensor");
    CHECK(t.op_of(r) == kind);
    CHECK(t.type(r) == "bool[4,8]");
  }
  r = t.one("aten::bitwise_and", {m, true}, {}, "Scalar");
  CHECK(operand_type(t, r, 1) == "bool[]");
  r = t.one("aten::bitwise_not", {m});
  CHECK(t.op_of(r) == OpKind::kLogicalNot);
  r = t.one("aten::bitwise_xor", {m, k}, {}, "Tensor");
  CHECK(t.op_of(r) == OpKind::kNe);  // xor of bools
  // On integers they are bit operations, a bool operand converted to the promoted integer dtype.
  r = t.one("aten::bitwise_or", {n, n}, {}, "Tensor");
  CHECK(t.op_of(r) == OpKind::kBitwiseOr);
  CHECK(t.type(r) == "i64[4]");
  CHECK(t.op_of(t.one("aten::bitwise_not", {n})) == OpKind::kBitwiseNot);
  CHECK(t.op_of(t.one("aten::__xor__", {n, i64(5)}, {}, "Scalar")) == OpKind::kBitwiseXor);
  r = t.one("aten::bitwise_and", {m, i64(1)}, {}, "Scalar");
  CHECK(t.op_of(r) == OpKind::kBitwiseAnd);
  CHECK(operand_type(t, r, 0) == "i64[4,8]");
  // Floating operands are refused, as PyTorch refuses them.
  auto floating = t.lower("aten::bitwise_and", {x, m}, {}, "Tensor");
  REQUIRE(!floating);
  CHECK(floating.status().code() == ErrorCode::kInvalidInput);
  CHECK(floating.status().message().find("f32[4,8]") != std::string::npos);
  CHECK(t.lower("aten::bitwise_or", {n, 1.5}, {}, "Scalar").status().code() ==
        ErrorCode::kInvalidInput);
  t.verify();
}

TEST_CASE("aten where and masked_fill", "[frontend][aten]") {
  G t;
  const ValueId c = t.in({4, 8}, DType::kBool), x = t.in({4, 8}), y = t.in({8}),
                h = t.in({4, 8}, DType::kF16), n = t.in({4, 8}, DType::kI64);
  ValueId r = t.one("aten::where", {c, x, y}, {}, "self");
  CHECK(t.op_of(r) == OpKind::kWhere);
  CHECK(t.type(r) == "f32[4,8]");
  r = t.one("aten::where", {c, h, 0.0}, {}, "ScalarOther");
  CHECK(t.type(r) == "f16[4,8]");
  CHECK(operand_type(t, r, 2) == "f16[]");
  r = t.one("aten::where", {c, -1.0, x}, {}, "ScalarSelf");
  CHECK(constant_operand(t, r, 1) == -1.0);
  CHECK(t.type(r) == "f32[4,8]");
  CHECK(t.type(t.one("aten::where", {c, n, 0.5}, {}, "ScalarOther")) == "f32[4,8]");
  CHECK(t.type(t.one("aten::where", {c, 1.0, i64(0)}, {}, "Scalar")) == "f32[4,8]");
  CHECK(t.type(t.one("aten::where", {c, i64(1), i64(0)}, {}, "Scalar")) == "i64[4,8]");
  CHECK(t.type(t.one("aten::where", {c, true, false}, {}, "Scalar")) == "bool[4,8]");
  check_unsupported(t.lower("aten::where", {c}, {}, "default"), "aten::where", "data-dependent");

  // masked_fill keeps self's dtype; the value is a number or a 0-d tensor.
  r = t.one("aten::masked_fill", {x, c, -2.0}, {}, "Scalar");
  CHECK(t.op_of(r) == OpKind::kWhere);
  CHECK(t.node_of(r).inputs[0] == c);
  CHECK(t.node_of(r).inputs[2] == x);
  CHECK(constant_operand(t, r, 1) == -2.0);
  r = t.one("aten::masked_fill", {n, c, 2.5}, {}, "Scalar");
  CHECK(t.type(r) == "i64[4,8]");
  CHECK(constant_operand(t, r, 1) == 2.0);
  r = t.one("aten::masked_fill_", {h, c, t.in({}, DType::kF64)}, {}, "Tensor");
  CHECK(t.type(r) == "f16[4,8]");
  CHECK(t.op_of(t.node_of(r).inputs[1]) == OpKind::kCast);
  CHECK(t.type(t.one("aten::masked_fill", {x, t.in({8}, DType::kBool), 1.0})) == "f32[4,8]");
  CHECK(t.lower("aten::masked_fill", {x, c, y}, {}, "Tensor").status().code() ==
        ErrorCode::kInvalidInput);
  t.verify();
}

TEST_CASE("aten fills are expanded rank-0 constants", "[frontend][aten]") {
  G t;
  const ValueId x = t.in({4, 8}, DType::kF16);
  ValueId r = t.one("aten::scalar_tensor", {1.5});
  CHECK(t.g.value(r).kind == ir::ValueKind::kConstant);
  CHECK(t.type(r) == "f32[]");
  CHECK(t.type(t.one("aten::scalar_tensor", {i64(2)}, {{"dtype", DType::kF64}})) == "f64[]");
  r = t.one("aten::full", {ints({2, 3}), 1.5});
  CHECK(t.op_of(r) == OpKind::kExpand);
  CHECK(t.type(r) == "f32[2,3]");
  CHECK(constant_operand(t, r, 0) == 1.5);
  CHECK(t.type(t.one("aten::full", {ints({2}), i64(7)})) == "i64[2]");
  CHECK(t.type(t.one("aten::full", {ints({2}), true})) == "bool[2]");
  CHECK(t.type(t.one("aten::full", {ints({2}), i64(1)}, {{"dtype", DType::kBF16}})) == "bf16[2]");
  CHECK(t.type(t.one("aten::full", {ints({}), 1.0})) == "f32[]");
  CHECK(t.type(t.one("aten::zeros", {ints({3, 1})})) == "f32[3,1]");
  CHECK(t.type(t.one("aten::ones", {ints({2})}, {{"dtype", DType::kI32}})) == "i32[2]");
  r = t.one("aten::full_like", {x, 0.25});
  CHECK(t.type(r) == "f16[4,8]");
  CHECK(constant_operand(t, r, 0) == 0.25);
  r = t.one("aten::zeros_like", {x}, {{"dtype", DType::kBool}});
  CHECK(t.type(r) == "bool[4,8]");
  r = t.one("aten::ones_like", {x, NoneArg{}, NoneArg{}, std::string("cpu"), false, NoneArg{}});
  CHECK(t.type(r) == "f16[4,8]");
  CHECK(constant_operand(t, r, 0) == 1.0);
  CHECK(t.type(t.one("aten::new_zeros", {x, ints({3})})) == "f16[3]");
  CHECK(t.type(t.one("aten::new_full", {x, ints({2, 2}), 3.0})) == "f16[2,2]");
  // Sizes from the model are checked before anything is built: never a huge allocation.
  const size_t nodes = t.g.nodes().size();
  CHECK(t.lower("aten::full", {ints({-1, 3}), 1.0}).status().code() == ErrorCode::kInvalidInput);
  auto huge = t.lower("aten::zeros", {ints({int64_t{1} << 40, int64_t{1} << 40})});
  REQUIRE(!huge);
  CHECK(huge.status().code() == ErrorCode::kInvalidInput);
  CHECK(huge.status().message().find("too large") != std::string::npos);
  CHECK(t.g.nodes().size() == nodes);
  t.verify();
}

TEST_CASE("aten in-place variants keep self's dtype", "[frontend][aten]") {
  G t;
  const ValueId h = t.in({4}, DType::kF16), x = t.in({4});
  CHECK(t.type(t.one("aten::add", {h, x})) == "f32[4]");
  ValueId r = t.one("aten::add_", {h, x});
  CHECK(t.type(r) == "f16[4]");
  CHECK(t.op_of(r) == OpKind::kCast);
  CHECK(t.type(t.one("aten::mul_", {h, 2.0})) == "f16[4]");
  t.verify();
}

TEST_CASE("aten argument binding errors", "[frontend][aten]") {
  G t;
  const ValueId x = t.in({4, 16}), w = t.in({8, 16});
  auto check_error = [&](Expected<std::vector<ValueId>> out, const std::string& needle) {
    REQUIRE(!out);
    INFO(out.status().to_string());
    CHECK(out.status().code() == ErrorCode::kInvalidInput);
    CHECK(out.status().message().find("aten::linear") != std::string::npos);
    CHECK(out.status().message().find(needle) != std::string::npos);
    CHECK(out.status().node() == "node");
    CHECK(out.status().location().to_string() == "model.py:7");
  };
  check_error(t.lower("aten::linear", {x, w, NoneArg{}, x}), "at most 3");
  check_error(t.lower("aten::linear", {x, w}, {{"bais", NoneArg{}}}),
              "unknown keyword argument 'bais'");
  check_error(t.lower("aten::linear", {x, w}, {{"weight", w}}), "'weight' given twice");
  check_error(t.lower("aten::linear", {x}), "missing required argument 'weight'");
  check_error(t.lower("aten::linear", {x, i64(3)}), "argument 'weight' must be a tensor, got int");
  check_error(t.lower("aten::linear", {x, w, 1.0}), "'bias' must be a tensor or None, got float");
}

TEST_CASE("aten unsupported ops", "[frontend][aten]") {
  CHECK(is_supported_aten_op("aten::linear"));
  CHECK(is_supported_aten_op("aten::relu_"));
  CHECK(is_supported_aten_op("aten::_softmax"));
  CHECK(is_supported_aten_op("aten::clamp_"));
  CHECK(is_supported_aten_op("aten::__and__"));
  CHECK(is_supported_aten_op("aten::masked_fill_"));
  CHECK(is_supported_aten_op("aten::cumsum"));
  CHECK_FALSE(is_supported_aten_op("aten::sort"));
  CHECK_FALSE(is_supported_aten_op("aten::linea"));
  CHECK_FALSE(is_supported_aten_op("linear"));

  const Status s = unsupported_ops_error({unsupported("aten::cumsum", "cumsum", {"model.py", 12}),
                                          unsupported("aten::topk", "topk", {"model.py", 13})});
  CHECK(s.code() == ErrorCode::kUnsupported);
  CHECK(s.message() ==
        "model uses 2 unsupported ops:\n  aten::cumsum (node 'cumsum' at model.py:12)\n  "
        "aten::topk (node 'topk' at "
        "model.py:13)");
  CHECK(s.to_string() == s.message());

  G t;
  auto out = t.lower("aten::sort", {t.in({4}), i64(0)});
  REQUIRE(!out);
  CHECK(out.status().code() == ErrorCode::kUnsupported);
  CHECK(out.status().message() ==
        "model uses 1 unsupported op:\n  aten::sort (node 'node' at model.py:7)");
}

}  // namespace inferno::frontend
