// Op tests for the reference interpreter, one table per op family: each row is one op applied
// to small inputs, with the exact expected output written out by hand (transcendentals from
// Python's math module). Below the tables: every op in ops.def evaluates (so an op without a
// reference kernel fails here), and every op on every dtype its shape rule accepts.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "ir/attr_schema.h"
#include "ir/builder.h"
#include "ir/shape_rules.h"
#include "reference/interpreter.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using ir::Attributes;
using ir::DType;
using ir::OpKind;
using ir::Shape;
using ir::Tensor;
using ir::TensorType;

constexpr double kRtol = 1.3e-6, kAtol = 1e-5;  // torch.testing's fp32 tolerances
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Tensor make(DType dtype, Shape shape, const std::vector<double>& values) {
  Tensor t = Tensor::zeros({dtype, std::move(shape)});
  REQUIRE(static_cast<int64_t>(values.size()) == t.numel());
  for (size_t i = 0; i < values.size(); ++i) t.set(static_cast<int64_t>(i), values[i]);
  return t;
}
Tensor f32(Shape shape, const std::vector<double>& values) {
  return make(DType::kF32, std::move(shape), values);
}

Attributes attrs(std::initializer_list<std::pair<const char*, ir::AttrValue>> entries) {
  Attributes a;
  for (const auto& [name, value] : entries) a.set(name, value);
  return a;
}

/// Builds the one-node graph op(inputs...) with graph inputs of the inputs' types and evaluates it.
Expected<Tensor> run_op(OpKind op, const std::vector<Tensor>& inputs, const Attributes& a) {
  ir::Graph g;
  std::vector<ir::ValueId> ids;
  for (size_t i = 0; i < inputs.size(); ++i)
    ids.push_back(g.add_input("in" + std::to_string(i), inputs[i].type));
  INFERNO_ASSIGN_OR_RETURN(const ir::ValueId out, ir::build_value(g, op, ids, a, "out"));
  g.set_outputs({out});
  INFERNO_ASSIGN_OR_RETURN(std::vector<Tensor> outs, reference::evaluate(g, inputs));
  return std::move(outs[0]);
}

struct OpCase {
  std::string name;
  OpKind op;
  std::vector<Tensor> inputs;
  Attributes attrs;
  Tensor expected;
};

void run_cases(const std::vector<OpCase>& cases) {
  for (const OpCase& c : cases) {
    INFO("case: " << c.name);
    Expected<Tensor> out = run_op(c.op, c.inputs, c.attrs);
    REQUIRE(out.has_value());
    CHECK(test::compare_close(*out, c.expected, kRtol, kAtol) == "");
  }
}

TEST_CASE("reference gemm ops") {
  const Tensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor w = f32({4, 3}, {1, -1, 2, 0, 0.5, 1, -2, 1, 0, 1, 1, 1});
  const Tensor m23 = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  run_cases({
      {"linear 2x3 by 4x3 + bias",
       OpKind::kLinear,
       {x, w, f32({4}, {0.5, -1, 2, 0})},
       {},
       f32({2, 4}, {5.5, 3, 2, 6, 11.5, 7.5, -1, 15})},
      {"linear without bias",
       OpKind::kLinear,
       {x, w},
       {},
       f32({2, 4}, {5, 4, 0, 6, 11, 8.5, -3, 15})},
      {"linear 1-D x, rank-0 bias",
       OpKind::kLinear,
       {f32({3}, {1, 2, 3}), w, f32({}, {1})},
       {},
       f32({4}, {6, 5, 1, 7})},
      {"linear 3-D x, [1] bias",
       OpKind::kLinear,
       {f32({2, 1, 3}, {1, 2, 3, 4, 5, 6}), w, f32({1}, {-1})},
       {},
       f32({2, 1, 4}, {4, 3, -1, 5, 10, 7.5, -4, 14})},
      {"matmul 1-D . 2-D", OpKind::kMatMul, {f32({2}, {1, 2}), m23}, {}, f32({3}, {9, 12, 15})},
      {"matmul 2-D . 1-D", OpKind::kMatMul, {m23, f32({3}, {1, 0, -1})}, {}, f32({2}, {-2, -2})},
      {"matmul 1-D . 1-D",
       OpKind::kMatMul,
       {f32({3}, {1, 2, 3}), f32({3}, {4, 5, 6})},
       {},
       f32({}, {32})},
      {"matmul batched . 2-D",
       OpKind::kMatMul,
       {f32({2, 2, 2}, {1, 2, 3, 4, 0, 1, 1, 0}), f32({2, 2}, {1, 1, 0, 2})},
       {},
       f32({2, 2, 2}, {1, 5, 3, 11, 0, 2, 1, 1})},
      {"matmul batch dims broadcast both ways",
       OpKind::kMatMul,
       {f32({2, 1, 1, 2}, {1, 2, 3, 4}), f32({3, 2, 1}, {1, 0, 0, 1, 1, 1})},
       {},
       f32({2, 3, 1, 1}, {1, 2, 3, 3, 4, 7})},
      {"matmul 1-D . 3-D",
       OpKind::kMatMul,
       {f32({2}, {1, 1}), f32({2, 2, 3}, {1, 2, 3, 4, 5, 6, 1, 0, 0, 0, 1, 0})},
       {},
       f32({2, 3}, {5, 7, 9, 1, 1, 0})},
      {"addmm alpha 2 beta 0.5, bias broadcast",
       OpKind::kAddMM,
       {f32({3}, {1, 2, 3}), f32({2, 2}, {1, 2, 3, 4}), f32({2, 3}, {1, 0, 1, 0, 1, 1})},
       attrs({{"alpha", 2.0}, {"beta", 0.5}}),
       f32({2, 3}, {2.5, 5, 7.5, 6.5, 9, 15.5})},
      {"addmm beta 0 ignores a NaN bias",
       OpKind::kAddMM,
       {f32({2, 1}, {kNaN, 1}), f32({2, 2}, {1, 2, 3, 4}), f32({2, 3}, {1, 0, 1, 0, 1, 1})},
       attrs({{"alpha", 1.0}, {"beta", 0.0}}),
       f32({2, 3}, {1, 2, 3, 3, 4, 7})},
  });
}

TEST_CASE("reference layout ops") {
  const Tensor m23 = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  std::vector<double> iota(12);
  for (size_t i = 0; i < iota.size(); ++i) iota[i] = static_cast<double>(i);
  run_cases({
      {"reshape keeps row-major data",
       OpKind::kReshape,
       {m23},
       attrs({{"shape", ir::IntList{3, 1, 2}}}),
       f32({3, 1, 2}, {1, 2, 3, 4, 5, 6})},
      {"transpose 2-D",
       OpKind::kTranspose,
       {m23},
       attrs({{"dim0", int64_t{0}}, {"dim1", int64_t{1}}}),
       f32({3, 2}, {1, 4, 2, 5, 3, 6})},
      {"transpose 3-D dims 0, 2",
       OpKind::kTranspose,
       {f32({2, 3, 2}, iota)},
       attrs({{"dim0", int64_t{0}}, {"dim1", int64_t{2}}}),
       f32({2, 3, 2}, {0, 6, 2, 8, 4, 10, 1, 7, 3, 9, 5, 11})},
      // out[i][j][k] = x[j][k][i]
      {"permute (2, 0, 1)",
       OpKind::kPermute,
       {f32({2, 3, 2}, iota)},
       attrs({{"dims", ir::IntList{2, 0, 1}}}),
       f32({2, 2, 3}, {0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11})},
      {"expand [3,1] to [2,3,2]",
       OpKind::kExpand,
       {f32({3, 1}, {1, 2, 3})},
       attrs({{"shape", ir::IntList{2, 3, 2}}}),
       f32({2, 3, 2}, {1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3})},
      {"expand a scalar",
       OpKind::kExpand,
       {f32({}, {7})},
       attrs({{"shape", ir::IntList{2}}}),
       f32({2}, {7, 7})},
      {"permute i64 copies exactly",
       OpKind::kPermute,
       {make(DType::kI64, {2, 2}, {1, 2, 3, 4})},
       attrs({{"dims", ir::IntList{1, 0}}}),
       make(DType::kI64, {2, 2}, {1, 3, 2, 4})},
  });
}

TEST_CASE("reference unary elementwise ops") {
  const Tensor gelu_x = f32({4}, {-1, 0, 0.5, 2});
  const Tensor x = f32({3}, {-2, 0, 1});
  run_cases({
      {"relu f32", OpKind::kRelu, {f32({3}, {-1, 0, 2.5})}, {}, f32({3}, {0, 0, 2.5})},
      {"relu i32",
       OpKind::kRelu,
       {make(DType::kI32, {2}, {-3, 4})},
       {},
       make(DType::kI32, {2}, {0, 4})},
      {"abs i64",
       OpKind::kAbs,
       {make(DType::kI64, {2}, {-5, 7})},
       {},
       make(DType::kI64, {2}, {5, 7})},
      {"abs f32", OpKind::kAbs, {f32({2}, {-1.5, 2})}, {}, f32({2}, {1.5, 2})},
      {"neg i32",
       OpKind::kNeg,
       {make(DType::kI32, {2}, {3, -2})},
       {},
       make(DType::kI32, {2}, {-3, 2})},
      {"neg f32", OpKind::kNeg, {f32({2}, {3, -2.5})}, {}, f32({2}, {-3, 2.5})},
      {"gelu exact",
       OpKind::kGelu,
       {gelu_x},
       {},
       f32({4}, {-0.15865525393145707, 0.0, 0.34573123063700656, 1.9544997361036416})},
      {"gelu tanh",
       OpKind::kGeluTanh,
       {gelu_x},
       {},
       f32({4}, {-0.15880800939172324, 0.0, 0.34571400982514394, 1.954597694087775})},
      {"silu", OpKind::kSilu, {x}, {}, f32({3}, {-0.2384058440442351, 0.0, 0.7310585786300049})},
      {"sigmoid",
       OpKind::kSigmoid,
       {x},
       {},
       f32({3}, {0.11920292202211755, 0.5, 0.7310585786300049})},
      {"tanh", OpKind::kTanh, {x}, {}, f32({3}, {-0.9640275800758169, 0.0, 0.7615941559557649})},
      {"exp", OpKind::kExp, {x}, {}, f32({3}, {0.1353352832366127, 1.0, 2.718281828459045})},
  });
}

TEST_CASE("reference cast rounds and truncates") {
  const auto cast_to = [](DType d) { return attrs({{"dtype", d}}); };
  run_cases({
      // 0.1 -> nearest half; 1 + 2^-11 is a tie (to even: 1); 1 + 3*2^-11 is a tie (to even:
      // 1 + 2^-9); 65520 is the tie between 65504 and 2^16, which rounds to inf.
      {"f64 -> f16",
       OpKind::kCast,
       {make(DType::kF64, {4}, {0.1, 1 + 0x1p-11, 1 + 3 * 0x1p-11, 65520})},
       cast_to(DType::kF16),
       make(DType::kF16, {4},
            {0.0999755859375, 1.0, 1.001953125, std::numeric_limits<double>::infinity()})},
      {"f32 -> bf16",
       OpKind::kCast,
       {f32({3}, {1 + 0x1p-8, 1 + 3 * 0x1p-8, 3.14159})},
       cast_to(DType::kBF16),
       make(DType::kBF16, {3}, {1.0, 1.015625, 3.140625})},
      {"f32 -> i32 truncates toward zero",
       OpKind::kCast,
       {f32({5}, {2.7, -2.7, -0.5, 3, 1e10})},
       cast_to(DType::kI32),
       make(DType::kI32, {5}, {2, -2, 0, 3, 2147483647})},
      {"f32 -> i64, NaN -> 0",
       OpKind::kCast,
       {f32({2}, {-7.9, kNaN})},
       cast_to(DType::kI64),
       make(DType::kI64, {2}, {-7, 0})},
      {"f32 -> bool is x != 0",
       OpKind::kCast,
       {f32({4}, {0, -0.0, 0.5, kNaN})},
       cast_to(DType::kBool),
       make(DType::kBool, {4}, {0, 0, 1, 1})},
      {"i64 -> i32 wraps",
       OpKind::kCast,
       {make(DType::kI64, {2}, {4294967301.0, -1})},
       cast_to(DType::kI32),
       make(DType::kI32, {2}, {5, -1})},
      {"i32 -> f16 rounds",
       OpKind::kCast,
       {make(DType::kI32, {2}, {2049, -3})},
       cast_to(DType::kF16),
       make(DType::kF16, {2}, {2048, -3})},
      {"bool -> f32",
       OpKind::kCast,
       {make(DType::kBool, {2}, {1, 0})},
       cast_to(DType::kF32),
       f32({2}, {1, 0})},
  });
}

TEST_CASE("reference binary ops broadcast") {
  const Tensor m23 = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  run_cases({
      {"add [2,3] + [3]",
       OpKind::kAdd,
       {m23, f32({3}, {10, 20, 30})},
       {},
       f32({2, 3}, {11, 22, 33, 14, 25, 36})},
      {"sub [2,1] - [1,3] (outer)",
       OpKind::kSub,
       {f32({2, 1}, {10, 20}), f32({1, 3}, {1, 2, 3})},
       {},
       f32({2, 3}, {9, 8, 7, 19, 18, 17})},
      {"mul by a rank-0 tensor",
       OpKind::kMul,
       {m23, f32({}, {-2})},
       {},
       f32({2, 3}, {-2, -4, -6, -8, -10, -12})},
      {"div i32 / i32 is true division",
       OpKind::kDiv,
       {make(DType::kI32, {2}, {7, -7}), make(DType::kI32, {}, {2})},
       {},
       f32({2}, {3.5, -3.5})},
      {"div by zero",
       OpKind::kDiv,
       {f32({3}, {1, -1, 0}), f32({}, {0})},
       {},
       f32({3}, {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                 kNaN})},
      {"i32 add wraps",
       OpKind::kAdd,
       {make(DType::kI32, {2}, {2147483647, -5}), make(DType::kI32, {2}, {1, 2})},
       {},
       make(DType::kI32, {2}, {-2147483648.0, -3})},
      {"i32 * f32 scalar promotes to f32",
       OpKind::kMul,
       {make(DType::kI32, {2}, {3, -1}), f32({}, {0.5})},
       {},
       f32({2}, {1.5, -0.5})},
      {"f16 + f32 scalar stays f16 and rounds",
       OpKind::kAdd,
       {make(DType::kF16, {2}, {1, 2048}), f32({}, {0x1p-10})},
       {},
       make(DType::kF16, {2}, {1.0009765625, 2048})},
      {"bool + bool is or",
       OpKind::kAdd,
       {make(DType::kBool, {4}, {0, 0, 1, 1}), make(DType::kBool, {4}, {0, 1, 0, 1})},
       {},
       make(DType::kBool, {4}, {0, 1, 1, 1})},
  });
}

TEST_CASE("reference reductions") {
  const Tensor m23 = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  const auto dims = [](ir::IntList d, bool keepdim) {
    return attrs({{"dims", std::move(d)}, {"keepdim", keepdim}});
  };
  const auto dim = [](int64_t d) { return attrs({{"dim", d}}); };
  run_cases({
      {"sum dim 1", OpKind::kSum, {m23}, dims({1}, false), f32({2}, {6, 15})},
      {"sum dim 1 keepdim", OpKind::kSum, {m23}, dims({1}, true), f32({2, 1}, {6, 15})},
      {"sum all", OpKind::kSum, {m23}, dims({}, false), f32({}, {21})},
      {"sum all keepdim", OpKind::kSum, {m23}, dims({}, true), f32({1, 1}, {21})},
      {"sum dims 0, 2 keepdim",
       OpKind::kSum,
       {f32({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})},
       dims({0, 2}, true),
       f32({1, 2, 1}, {14, 22})},
      {"sum i32 gives i64",
       OpKind::kSum,
       {make(DType::kI32, {3}, {2147483647, 2147483647, 2})},
       dims({}, false),
       make(DType::kI64, {}, {4294967296.0})},
      {"sum bool counts",
       OpKind::kSum,
       {make(DType::kBool, {4}, {1, 0, 1, 1})},
       dims({0}, false),
       make(DType::kI64, {}, {3})},
      {"sum of an empty dim is 0",
       OpKind::kSum,
       {f32({2, 0}, {})},
       dims({1}, false),
       f32({2}, {0, 0})},
      {"mean dim 0 keepdim", OpKind::kMean, {m23}, dims({0}, true), f32({1, 3}, {2.5, 3.5, 4.5})},
      {"mean all", OpKind::kMean, {m23}, dims({}, false), f32({}, {3.5})},
      {"softmax [1,2,3]",
       OpKind::kSoftmax,
       {f32({3}, {1, 2, 3})},
       dim(0),
       f32({3}, {0.09003057317038046, 0.24472847105479764, 0.6652409557748218})},
      {"log_softmax [1,2,3]",
       OpKind::kLogSoftmax,
       {f32({3}, {1, 2, 3})},
       dim(0),
       f32({3}, {-2.4076059644443806, -1.4076059644443804, -0.4076059644443804})},
      {"softmax along dim 0",
       OpKind::kSoftmax,
       {f32({2, 2}, {1, 2, 3, 4})},
       dim(0),
       f32({2, 2},
           {0.11920292202211755, 0.11920292202211755, 0.8807970779778823, 0.8807970779778823})},
      {"softmax is stable for large inputs",
       OpKind::kSoftmax,
       {f32({2}, {1000, 1001})},
       dim(0),
       f32({2}, {0.2689414213699951, 0.7310585786300049})},
      {"log_softmax is stable for large inputs",
       OpKind::kLogSoftmax,
       {f32({2}, {1000, 1001})},
       dim(0),
       f32({2}, {-1.3132616875182228, -0.31326168751822286})},
      {"softmax of a scalar", OpKind::kSoftmax, {f32({}, {5})}, dim(0), f32({}, {1})},
      {"softmax propagates NaN in its row",
       OpKind::kSoftmax,
       {f32({2, 2}, {1, kNaN, 1, 2})},
       dim(1),
       f32({2, 2}, {kNaN, kNaN, 0.2689414213699951, 0.7310585786300049})},
  });
}

TEST_CASE("reference cumsum and extrema") {
  const Tensor m23 = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  const auto dims = [](ir::IntList d, bool keepdim) {
    return attrs({{"dims", std::move(d)}, {"keepdim", keepdim}});
  };
  const auto along = [](int64_t d, bool keepdim) {
    return attrs({{"dim", d}, {"keepdim", keepdim}});
  };
  const Tensor ties = f32({2, 3}, {3, 1, 3, kNaN, 2, kNaN});
  run_cases({
      {"cumsum dim 1",
       OpKind::kCumsum,
       {m23},
       attrs({{"dim", int64_t{1}}}),
       f32({2, 3}, {1, 3, 6, 4, 9, 15})},
      {"cumsum dim 0",
       OpKind::kCumsum,
       {m23},
       attrs({{"dim", int64_t{0}}}),
       f32({2, 3}, {1, 2, 3, 5, 7, 9})},
      {"cumsum of bool counts in i64",
       OpKind::kCumsum,
       {make(DType::kBool, {4}, {1, 0, 1, 1})},
       attrs({{"dim", int64_t{0}}}),
       make(DType::kI64, {4}, {1, 1, 2, 3})},
      {"cumsum of i32 sums in i64",
       OpKind::kCumsum,
       {make(DType::kI32, {2}, {2147483647, 2})},
       attrs({{"dim", int64_t{0}}}),
       make(DType::kI64, {2}, {2147483647, 2147483649.0})},
      {"cumsum propagates NaN onwards",
       OpKind::kCumsum,
       {f32({3}, {1, kNaN, 2})},
       attrs({{"dim", int64_t{0}}}),
       f32({3}, {1, kNaN, kNaN})},
      {"reduce_max dim 1", OpKind::kReduceMax, {m23}, dims({1}, false), f32({2}, {3, 6})},
      {"reduce_min all keepdim", OpKind::kReduceMin, {m23}, dims({}, true), f32({1, 1}, {1})},
      {"reduce_max: NaN wins", OpKind::kReduceMax, {ties}, dims({1}, false), f32({2}, {3, kNaN})},
      {"reduce_min i64",
       OpKind::kReduceMin,
       {make(DType::kI64, {3}, {4, -7, 2})},
       dims({0}, false),
       make(DType::kI64, {}, {-7})},
      {"argmax: the first of equal maxima, the first NaN",
       OpKind::kArgMax,
       {ties},
       along(1, false),
       make(DType::kI64, {2}, {0, 0})},
      {"argmin keepdim",
       OpKind::kArgMin,
       {ties},
       along(1, true),
       make(DType::kI64, {2, 1}, {1, 0})},
      {"argmax along dim 0",
       OpKind::kArgMax,
       {m23},
       along(0, false),
       make(DType::kI64, {3}, {1, 1, 1})},
      {"argmin of bool",
       OpKind::kArgMin,
       {make(DType::kBool, {3}, {1, 0, 0})},
       along(0, false),
       make(DType::kI64, {}, {1})},
  });
}

TEST_CASE("reference integer math is exact beyond 2^53") {
  Tensor a = Tensor::zeros({DType::kI64, {1}});
  const int64_t big = (int64_t{1} << 53) + 1;  // not representable in double
  std::memcpy(a.data.data(), &big, sizeof big);
  Expected<Tensor> sum = run_op(OpKind::kAdd, {a, make(DType::kI64, {1}, {2})}, {});
  Expected<Tensor> moved = run_op(OpKind::kExpand, {a}, attrs({{"shape", ir::IntList{2, 1}}}));
  REQUIRE(sum.has_value());
  REQUIRE(moved.has_value());
  int64_t got = 0;
  std::memcpy(&got, sum->data.data(), sizeof got);
  CHECK(got == big + 2);
  std::memcpy(&got, moved->data.data() + sizeof got, sizeof got);
  CHECK(got == big);
}

/// Input types and attributes of a valid instance of `op` on `dtype`. Elementwise ops need no
/// row (operands [2,3] and [3], dtype attributes f16); every other op does: a new one fails the
/// test until it has one.
std::pair<std::vector<TensorType>, Attributes> instance_of(OpKind op, DType dtype) {
  const TensorType m23{dtype, {2, 3}}, v3{dtype, {3}};
  if (ir::op_has_trait(op, ir::kElementwise)) {
    // The bit operations have no floating form: they run on i64 in place of a floating dtype.
    const bool integer = ir::op_dtype_class(op) == ir::DTypeClass::kInteger;
    const DType d = integer && ir::is_floating(dtype) ? DType::kI64 : dtype;
    std::vector<TensorType> operands = {{d, {2, 3}}};
    operands.resize(static_cast<size_t>(ir::op_min_inputs(op)), {d, {3}});
    Attributes a;
    for (const ir::AttrSpec& spec : ir::op_attr_schema(op)) {
      if (spec.type == ir::AttrType::kDType) a.set(spec.name, DType::kF16);
    }
    return {operands, a};
  }
  switch (op) {
    case OpKind::kLinear:
      return {{m23, {dtype, {4, 3}}, {dtype, {4}}}, {}};
    case OpKind::kMatMul:
      return {{{dtype, {2, 2, 3}}, {dtype, {3, 4}}}, {}};
    case OpKind::kAddMM:
      return {{{dtype, {4}}, m23, {dtype, {3, 4}}}, attrs({{"alpha", 0.5}, {"beta", 2.0}})};
    case OpKind::kGemm:  // relu commutes with rounding, so the round-once test below holds too
      return {{{dtype, {2, 2, 3}}, {dtype, {4, 3}}, {dtype, {4}}, {dtype, {2, 1, 4}}},
              attrs({{"trans_b", true},
                     {"alpha", 0.5},
                     {"beta", 2.0},
                     {"activation", std::string("relu")}})};
    case OpKind::kNormGemm:  // layer_norm, then the product with a bias and relu
      return {{{dtype, {2, 1, 3}}, {dtype, {4, 3}}, {dtype, {3}}, {dtype, {3}}, {dtype, {4}}},
              attrs({{"trans_b", true},
                     {"alpha", 1.0},
                     {"beta", 1.0},
                     {"activation", std::string("relu")},
                     {"norm", std::string("layer_norm")},
                     {"eps", 1e-5}})};
    case OpKind::kReshape:
      return {{m23}, attrs({{"shape", ir::IntList{3, 2}}})};
    case OpKind::kTranspose:
      return {{m23}, attrs({{"dim0", int64_t{1}}, {"dim1", int64_t{0}}})};
    case OpKind::kPermute:
      return {{m23}, attrs({{"dims", ir::IntList{1, 0}}})};
    case OpKind::kExpand:
      return {{{dtype, {1, 3}}}, attrs({{"shape", ir::IntList{2, 2, 3}}})};
    case OpKind::kSlice:
      return {{m23},
              attrs({{"starts", ir::IntList{1, 0}},
                     {"ends", ir::IntList{2, 3}},
                     {"steps", ir::IntList{1, 2}}})};
    case OpKind::kSum:
    case OpKind::kMean:
      return {{m23}, attrs({{"dims", ir::IntList{1}}, {"keepdim", false}})};
    case OpKind::kSoftmax:
    case OpKind::kLogSoftmax:
      return {{m23}, attrs({{"dim", int64_t{1}}})};
    case OpKind::kCumsum:
      return {{m23}, attrs({{"dim", int64_t{1}}})};
    case OpKind::kReduceMax:
    case OpKind::kReduceMin:
      return {{m23}, attrs({{"dims", ir::IntList{0}}, {"keepdim", true}})};
    case OpKind::kArgMax:
    case OpKind::kArgMin:
      return {{m23}, attrs({{"dim", int64_t{1}}, {"keepdim", false}})};
    case OpKind::kFusedElementwise:
      return {{m23, v3}, attrs({{"expr", std::string("sub($0, $1); abs(#0)")}})};
    case OpKind::kMaxPool2d:  // [C, H, W] with padding and ceil_mode
      return {{{dtype, {2, 3, 4}}},
              attrs({{"kernel", ir::IntList{2, 2}},
                     {"stride", ir::IntList{2, 2}},
                     {"padding", ir::IntList{1, 1}},
                     {"dilation", ir::IntList{1, 1}},
                     {"ceil_mode", true}})};
    case OpKind::kAvgPool2d:
      return {{{dtype, {2, 3, 4}}},
              attrs({{"kernel", ir::IntList{2, 2}},
                     {"stride", ir::IntList{1, 2}},
                     {"padding", ir::IntList{1, 0}},
                     {"ceil_mode", false},
                     {"count_include_pad", false},
                     {"divisor_override", int64_t{0}}})};
    case OpKind::kAdaptiveAvgPool2d:
    case OpKind::kAdaptiveMaxPool2d:
      return {{{dtype, {1, 2, 3, 5}}}, attrs({{"output_size", ir::IntList{2, 3}}})};
    case OpKind::kUpsampleNearest2d:
    case OpKind::kUpsampleBilinear2d: {
      Attributes a =
          attrs({{"output_size", ir::IntList{5, 3}}, {"scale_h", 0.0}, {"scale_w", 0.0}});
      if (op == OpKind::kUpsampleBilinear2d) a.set("align_corners", true);
      return {{{dtype, {1, 2, 3, 4}}}, a};
    }
    case OpKind::kCat:
      return {{m23, {dtype, {1, 3}}}, attrs({{"dim", int64_t{0}}})};
    case OpKind::kIndexSelect:  // random i64 ids: clamped into dim 1 where out of range
      return {{m23, {ir::DType::kI64, {2, 2}}}, attrs({{"dim", int64_t{1}}})};
    case OpKind::kIndexCopy:  // random i64 ids: an out-of-range one writes nothing
      return {{m23, {ir::DType::kI64, {2}}, {dtype, {2, 2}}}, attrs({{"dim", int64_t{1}}})};
    case OpKind::kConstantPad:
      return {{m23, {dtype, {}}},
              attrs({{"before", ir::IntList{1, -1}}, {"after", ir::IntList{0, 2}}})};
    case OpKind::kConv2d:  // grouped, strided, asymmetric padding, the whole epilogue
      return {{{dtype, {1, 2, 3, 5}},
               {dtype, {4, 1, 2, 2}},
               {dtype, {4}},
               {dtype, {1, 4, 3, 3}},
               {dtype, {1, 2, 1, 1}}},
              attrs({{"stride", ir::IntList{1, 2}},
                     {"padding", ir::IntList{1, 0, 0, 1}},
                     {"dilation", ir::IntList{1, 1}},
                     {"groups", int64_t{2}},
                     {"activation", std::string("silu")},
                     {"residual", true},
                     {"gate", true},
                     {"layout", std::string("nchw")}})};
    case OpKind::kConvTranspose2d:
      return {{{dtype, {1, 2, 3, 5}}, {dtype, {2, 2, 2, 2}}, {dtype, {4}}},
              attrs({{"stride", ir::IntList{2, 1}},
                     {"padding", ir::IntList{1, 0}},
                     {"output_padding", ir::IntList{1, 0}},
                     {"dilation", ir::IntList{1, 2}},
                     {"groups", int64_t{2}}})};
    case OpKind::kLayerNorm:  // over the last two dims, weight and bias
      return {{{dtype, {2, 3, 4}}, {dtype, {3, 4}}, {dtype, {3, 4}}},
              attrs({{"normalized_dims", int64_t{2}}, {"eps", 1e-5}})};
    case OpKind::kRmsNorm:  // over the last dim, weight
      return {{{dtype, {2, 3, 4}}, {dtype, {4}}},
              attrs({{"normalized_dims", int64_t{1}}, {"eps", 1e-6}})};
    case OpKind::kGroupNorm:  // two groups of two channels, weight and bias
      return {{{dtype, {2, 4, 3}}, {dtype, {4}}, {dtype, {4}}},
              attrs({{"groups", int64_t{2}}, {"eps", 1e-5}})};
    case OpKind::kAttention:  // GQA (2 query heads per kv head), causal, an additive [Sq, Skv]
      return {
          {{dtype, {1, 4, 3, 4}}, {dtype, {1, 2, 5, 4}}, {dtype, {1, 2, 5, 3}}, {dtype, {3, 5}}},
          attrs({{"scale", 0.5},
                 {"causal", true},
                 {"mask", std::string("additive")},
                 {"kv_groups", int64_t{2}}})};
    case OpKind::kRotary:  // partial, 4 of 6, cos and sin broadcast over the heads
      return {{{dtype, {1, 2, 3, 6}}, {dtype, {1, 1, 3, 4}}, {dtype, {1, 1, 3, 4}}},
              attrs({{"rotary_dim", int64_t{4}}})};
    default:
      break;
  }
  FAIL("no instance for op " << ir::op_name(op));
  return {};
}

Expected<Tensor> run_instance(OpKind op, DType dtype, uint64_t seed) {
  auto [types, a] = instance_of(op, dtype);
  std::vector<Tensor> inputs;
  for (const TensorType& t : types) inputs.push_back(test::random_tensor(t, seed++));
  return run_op(op, inputs, a);
}

TEST_CASE("every op in ops.def has a reference kernel") {
  for (int i = 0; i < ir::kNumOpKinds; ++i) {
    const auto op = static_cast<OpKind>(i);
    INFO("op: " << ir::op_name(op));
    Expected<Tensor> out = run_instance(op, DType::kF32, static_cast<uint64_t>(i));
    REQUIRE(out.has_value());
    // (Elementwise values, domains included, are the op x dtype table's: reference_op_table_test.)
    if (ir::op_has_trait(op, ir::kElementwise)) continue;
    for (int64_t j = 0; j < out->numel(); ++j) CHECK(std::isfinite(out->get(j)));
  }
}

TEST_CASE("every op evaluates on every dtype its shape rule accepts") {
  for (int i = 0; i < ir::kNumOpKinds; ++i) {
    for (DType dtype : ir::kAllDTypes) {
      const auto op = static_cast<OpKind>(i);
      INFO("op: " << ir::op_name(op) << ", dtype: " << ir::dtype_name(dtype));
      auto [types, a] = instance_of(op, dtype);
      if (!ir::infer_output_types(op, types, a)) continue;  // e.g. softmax of integers
      CHECK(run_instance(op, dtype, 7).has_value());
    }
  }
  for (DType from : ir::kAllDTypes) {
    for (DType to : ir::kAllDTypes) {
      INFO("cast " << ir::dtype_name(from) << " -> " << ir::dtype_name(to));
      Expected<Tensor> out =
          run_op(OpKind::kCast, {test::random_tensor({from, {5}}, 3)}, attrs({{"dtype", to}}));
      REQUIRE(out.has_value());
      CHECK(out->type == TensorType{to, {5}});
    }
  }
}

// Low-precision results are computed in double and rounded once: evaluating on f16/bf16 inputs
// gives exactly the f64 result (on the same values) rounded to f16/bf16.
TEST_CASE("low-precision ops round once, on store") {
  for (DType dtype : {DType::kF16, DType::kBF16, DType::kF32}) {
    for (int i = 0; i < ir::kNumOpKinds; ++i) {
      const auto op = static_cast<OpKind>(i);
      if (op == OpKind::kCast) continue;
      // norm_gemm rounds the norm's result to the dtype before the product, as the unfused graph
      // it replaces does (reference_norm_gemm_test.cpp holds it to that graph).
      if (op == OpKind::kNormGemm) continue;
      INFO("op: " << ir::op_name(op) << ", dtype: " << ir::dtype_name(dtype));
      auto [types, a] = instance_of(op, dtype);
      std::vector<Tensor> low, wide;
      for (const TensorType& t : types) {
        low.push_back(test::random_tensor(t, 11 + low.size()));
        // integer operands (index_select's index) stay as they are
        wide.push_back(Tensor::zeros({ir::is_floating(t.dtype) ? DType::kF64 : t.dtype, t.shape}));
        for (int64_t j = 0; j < low.back().numel(); ++j) wide.back().set(j, low.back().get(j));
      }
      Expected<Tensor> got = run_op(op, low, a), reference = run_op(op, wide, a);
      REQUIRE(got.has_value());
      REQUIRE(reference.has_value());
      Tensor rounded = Tensor::zeros(got->type);
      for (int64_t j = 0; j < rounded.numel(); ++j) rounded.set(j, reference->get(j));
      CHECK(test::compare_close(*got, rounded, 0, 0) == "");
    }
  }
}

}  // namespace
}  // namespace inferno
