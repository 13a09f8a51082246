// The op x dtype table (test/support/op_table.h) on the reference interpreter: every elementwise op
// of ops.def on every dtype its shape rule accepts, in every form of op_table_cases.h (broadcast
// grids of edge and random values, literal and tensor parameters, rank-0 operands), against the
// row's double-precision definition computed on the same values and rounded to the output dtype.
// Tolerances are torch.testing's defaults (integers and bool exact); NaN where and only where the
// definition gives NaN, infinities exactly. Also: every cast between two dtypes, int64 and int32
// wrap-around, and the rounding helper the expectations rely on.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <sstream>

#include "ir/op.h"
#include "reference/interpreter.h"
#include "support/catch.h"
#include "support/op_table.h"
#include "support/op_table_cases.h"

namespace inferno {
namespace {

using ir::DType;
using ir::OpKind;

// Evaluates the application on the reference interpreter and compares every element with the
// row's definition; returns the number of elements compared.
int64_t check_application(const test::OpRow& row, const test::Application& application) {
  INFO(application.label);
  ir::Graph graph;
  test::ApplicationAdder adder(graph);
  const ir::ValueId out = adder.add(application);
  graph.set_outputs({out});
  auto result = reference::evaluate(graph, adder.inputs());
  INFO((result ? "" : result.status().to_string()));
  REQUIRE(result.has_value());
  const ir::Tensor& got = (*result)[0];
  const ir::TensorType& type = graph.type(out);
  bool exact_integer = !ir::is_floating(type.dtype);
  for (const test::OperandData& operand : application.operands) {
    exact_integer &= !ir::is_floating(operand.tensor.type.dtype);
  }
  const test::Tolerance tolerance = test::default_tolerance(type.dtype);
  std::ostringstream failures;
  int failed = 0;
  for (int64_t i = 0; i < got.numel(); ++i) {
    double x[4] = {};
    for (size_t k = 0; k < application.operands.size(); ++k) {
      const ir::Tensor& t = application.operands[k].tensor;
      x[k] = t.get(test::broadcast_source(t.type.shape, type.shape, i));
    }
    const auto definition =
        exact_integer && row.integer_definition ? row.integer_definition : row.definition;
    const double expected = test::round_result(definition(x), type.dtype, exact_integer);
    const std::string what = test::mismatch(got.get(i), expected, tolerance);
    if (what.empty()) continue;
    if (++failed <= 4) {
      failures << "\n  at (";
      for (size_t k = 0; k < application.operands.size(); ++k) failures << (k ? ", " : "") << x[k];
      failures << "): " << what;
    }
  }
  INFO(failed << " of " << got.numel() << " elements differ" << failures.str());
  CHECK(failed == 0);
  return got.numel();
}

// Every application of `row` on `dtype`; false when the op refuses the dtype.
bool check_row(const test::OpRow& row, DType dtype, int64_t* elements) {
  const std::vector<test::Application> applications =
      test::applications(row, dtype, test::table_values(dtype, 10, 3), test::edge_values(dtype));
  for (const test::Application& a : applications) *elements += check_application(row, a);
  return !applications.empty();
}

}  // namespace

TEST_CASE("op table: every elementwise op of ops.def has exactly one row") {
  std::set<OpKind> seen;
  for (const test::OpRow& row : test::op_table()) {
    INFO("row: " << ir::op_name(row.op));
    CHECK(ir::op_has_trait(row.op, ir::kElementwise));
    CHECK(seen.insert(row.op).second);
    CHECK(static_cast<int>(row.operands.size()) == ir::op_min_inputs(row.op));
    size_t parameters = 0;
    for (const test::OperandRole role : row.operands) {
      parameters += role == test::OperandRole::kParameter ? 1 : 0;
    }
    CHECK((parameters > 0) == !row.parameter_sets.empty());
    for (const auto& set : row.parameter_sets) CHECK(set.size() == parameters);
  }
  for (const OpKind op : ir::all_op_kinds()) {
    if (!ir::op_has_trait(op, ir::kElementwise)) continue;
    INFO("elementwise op " << ir::op_name(op)
                           << " has no row in test/support/op_table.cpp: add one (with its "
                              "definition from PyTorch's documentation)");
    CHECK(test::find_row(op) != nullptr);
  }
}

TEST_CASE("op table: the reference matches every definition on every dtype the op accepts") {
  int64_t pairs = 0, elements = 0;
  for (const test::OpRow& row : test::op_table()) {
    if (row.op == OpKind::kCast) continue;  // the cast matrix, below
    INFO("op " << ir::op_name(row.op));
    int accepted = 0;
    for (const DType dtype : ir::kAllDTypes) accepted += check_row(row, dtype, &elements) ? 1 : 0;
    CHECK(accepted > 0);
    pairs += accepted;
  }
  WARN(pairs << " op x dtype pairs, " << elements << " elements");
}

TEST_CASE("op table: cast between every two dtypes matches the definition") {
  const test::OpRow* row = test::find_row(OpKind::kCast);
  REQUIRE(row != nullptr);
  for (const DType from : ir::kAllDTypes) {
    const auto applications = test::applications(*row, from, test::table_values(from, 10, 4), {});
    CHECK(applications.size() == std::size(ir::kAllDTypes));  // one grid per output dtype
    for (const test::Application& a : applications) check_application(*row, a);
  }
}

namespace {

// 128-bit integers hold every exact sum and product of two int64 (a GCC/Clang extension).
__extension__ typedef __int128 Int128;

struct WrapCase {
  OpKind op;
  DType dtype;
  std::vector<int64_t> operands;
};

ir::Tensor int_scalar(DType dtype, int64_t v) {
  ir::Tensor t = ir::Tensor::zeros({dtype, {}});
  if (dtype == DType::kI64) {
    std::memcpy(t.data.data(), &v, sizeof v);
  } else {
    const auto w = static_cast<int32_t>(v);
    REQUIRE(w == v);
    std::memcpy(t.data.data(), &w, sizeof w);
  }
  return t;
}

int64_t int_value(const ir::Tensor& t) {
  if (t.type.dtype == DType::kI64) {
    int64_t v;
    std::memcpy(&v, t.data.data(), sizeof v);
    return v;
  }
  int32_t v;
  std::memcpy(&v, t.data.data(), sizeof v);
  return v;
}

}  // namespace

// Integer arithmetic wraps around in two's complement, as PyTorch's integer kernels do: the exact
// result (in 128 bits) modulo 2^64 or 2^32. Beyond 2^53, where the table's double definitions
// stop being exact.
TEST_CASE("op table: int64 and int32 add, sub, mul, neg and abs wrap around") {
  constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax32 = std::numeric_limits<int32_t>::max();
  constexpr int64_t kMin32 = std::numeric_limits<int32_t>::min();
  const std::vector<WrapCase> cases = {
      {OpKind::kAdd, DType::kI64, {kMax64, 1}},
      {OpKind::kAdd, DType::kI64, {kMin64, kMin64}},
      {OpKind::kSub, DType::kI64, {kMin64, 1}},
      {OpKind::kSub, DType::kI64, {kMax64 - 2, kMin64 + 1}},
      {OpKind::kMul, DType::kI64, {kMax64, 3}},
      {OpKind::kMul, DType::kI64, {(int64_t{1} << 32) + 1, (int64_t{1} << 32) + 1}},
      {OpKind::kMul, DType::kI64, {3037000500, -3037000500}},
      {OpKind::kMul, DType::kI64, {(int64_t{1} << 53) + 1, 3}},  // exact: no double in between
      {OpKind::kNeg, DType::kI64, {kMin64}},
      {OpKind::kAbs, DType::kI64, {kMin64}},
      {OpKind::kAdd, DType::kI32, {kMax32, 1}},
      {OpKind::kSub, DType::kI32, {kMin32, 1}},
      {OpKind::kMul, DType::kI32, {kMax32, kMax32}},
      {OpKind::kMul, DType::kI32, {65537, 65537}},
      {OpKind::kNeg, DType::kI32, {kMin32}},
      {OpKind::kAbs, DType::kI32, {kMin32}},
  };
  for (const WrapCase& c : cases) {
    Int128 exact = c.operands[0];
    const Int128 b = c.operands.size() > 1 ? c.operands[1] : 0;
    switch (c.op) {
      case OpKind::kAdd:
        exact += b;
        break;
      case OpKind::kSub:
        exact -= b;
        break;
      case OpKind::kMul:
        exact *= b;
        break;
      case OpKind::kNeg:
        exact = -exact;
        break;
      default:
        exact = exact < 0 ? -exact : exact;
    }
    // Modulo 2^64 (C++20 integer conversions are modular), then 2^32 for int32.
    auto expected = static_cast<int64_t>(exact);
    if (c.dtype == DType::kI32) expected = static_cast<int32_t>(expected);
    INFO(ir::op_name(c.op) << " " << ir::dtype_name(c.dtype) << " " << c.operands[0] << ", "
                           << (c.operands.size() > 1 ? c.operands[1] : 0));
    ir::Graph graph;
    test::ApplicationAdder adder(graph);
    test::Application a{"wrap", c.op, {}, {}};
    for (const int64_t v : c.operands) a.operands.push_back({false, int_scalar(c.dtype, v)});
    graph.set_outputs({adder.add(a)});
    auto result = reference::evaluate(graph, adder.inputs());
    REQUIRE(result.has_value());
    CHECK(int_value((*result)[0]) == expected);
  }
}

// The expectations round with round_to_float_dtype: it must be the IEEE conversion. For f32 that
// is the hardware's double -> float; for f16 and bf16, known cases of the formats.
TEST_CASE("op table: round_to_float_dtype rounds as IEEE 754 (ties to even, denormals, overflow)") {
  uint64_t state = 12345;
  for (int i = 0; i < 100000; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const double mantissa =
        1.0 + static_cast<double>(state >> 11) / static_cast<double>(1ull << 53);
    const int exponent = static_cast<int>(state % 300) - 160;  // denormals to overflow
    const double v = std::ldexp(mantissa, exponent) * (state & 1 ? -1 : 1);
    INFO(v);
    REQUIRE(test::round_to_float_dtype(v, DType::kF32) ==
            static_cast<double>(static_cast<float>(v)));
  }
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<std::tuple<DType, double, double>> known = {
      {DType::kF16, 65519.0, 65504.0},  // below the halfway point to 2^16
      {DType::kF16, 65520.0, inf},      // halfway: ties to even, which is 2^16
      {DType::kF16, -70000.0, -inf},
      {DType::kF16, std::ldexp(1.0, -25), 0.0},  // half the smallest denormal: to even (0)
      {DType::kF16, std::ldexp(3.0, -26), std::ldexp(1.0, -24)},
      {DType::kF16, std::ldexp(3.0, -25), std::ldexp(2.0, -24)},  // 1.5 denormals: to even (2)
      {DType::kF16, 1.0 + std::ldexp(1.0, -11), 1.0},             // tie: to even
      {DType::kF16, 1.0 + std::ldexp(3.0, -11), 1.0 + std::ldexp(1.0, -9)},
      {DType::kF16, 0.1, 0.0999755859375},
      {DType::kBF16, 1.0 + std::ldexp(1.0, -8), 1.0},
      {DType::kBF16, 1.0 + std::ldexp(3.0, -8), 1.0 + std::ldexp(1.0, -6)},
      {DType::kBF16, std::ldexp(1.0, -134), 0.0},
      {DType::kBF16, std::ldexp(3.0, -135), std::ldexp(1.0, -133)},
      {DType::kBF16, 3.3963e38, inf},  // past halfway between the largest finite and 2^128
      {DType::kBF16, 3.3961e38, 3.3895313892515355e38},
      {DType::kBF16, 0.1, 0.10009765625},
  };
  for (const auto& [dtype, v, expected] : known) {
    INFO(ir::dtype_name(dtype) << " " << v);
    CHECK(test::round_to_float_dtype(v, dtype) == expected);
  }
}

}  // namespace inferno
