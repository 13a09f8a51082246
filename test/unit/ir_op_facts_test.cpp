// The facts ops.def's traits and the lowering records state, held to what the ops compute and
// what the rules and codegen accept: a new epilogue activation, an op that leaves f16's range or a
// new lowering without its facts fails here.
#include <cmath>
#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "codegen/lowering.h"
#include "ir/builder.h"
#include "ir/op.h"
#include "ir/shape_rules.h"
#include "reference/interpreter.h"
#include "support/catch.h"

namespace inferno::ir {
namespace {

constexpr double kHalfMax = 65504.0;
constexpr double kHalfMinNormal = 6.103515625e-05;

bool unary_elementwise(OpKind op) {
  return op_has_trait(op, kElementwise) && op_min_inputs(op) == 1 &&
         op_attr_schema_text(op).empty();
}

bool conv_accepts(const std::string& activation) {
  Attributes attrs;
  attrs.set("stride", IntList{1, 1});
  attrs.set("padding", IntList{0, 0, 0, 0});
  attrs.set("dilation", IntList{1, 1});
  attrs.set("groups", int64_t{1});
  attrs.set("activation", activation);
  attrs.set("residual", false);
  attrs.set("gate", false);
  attrs.set("layout", std::string("nchw"));
  return infer_output_types(OpKind::kConv2d,
                            {{DType::kF32, {1, 2, 4, 4}}, {DType::kF32, {2, 2, 3, 3}}}, attrs)
      .has_value();
}

Attributes gemm_attrs(const std::string& activation) {
  Attributes attrs;
  attrs.set("trans_b", false);
  attrs.set("alpha", 1.0);
  attrs.set("beta", 1.0);
  attrs.set("activation", activation);
  return attrs;
}

bool gemm_accepts(const std::string& activation) {
  return infer_output_types(OpKind::kGemm, {{DType::kF32, {2, 3}}, {DType::kF32, {3, 4}}},
                            gemm_attrs(activation))
      .has_value();
}

// op(x) on the reference, in f64, for values across f16's normal range (zero, where a division
// or log gives an infinity, is no range question).
std::vector<std::pair<double, double>> results_over_f16_range(OpKind op) {
  std::vector<double> xs;
  for (double m = kHalfMinNormal; m <= kHalfMax; m *= 1.5) {
    xs.push_back(m);
    xs.push_back(-m);
  }
  xs.push_back(kHalfMax);
  xs.push_back(-kHalfMax);
  Graph graph;
  const TensorType type{DType::kF64, {static_cast<int64_t>(xs.size())}};
  const ValueId x = graph.add_input("x", type);
  Expected<ValueId> y = build_value(graph, op, {x}, {}, "y");
  REQUIRE(y.has_value());
  graph.set_outputs({*y});
  Tensor input = Tensor::zeros(type);
  for (size_t i = 0; i < xs.size(); ++i) input.set(static_cast<int64_t>(i), xs[i]);
  Expected<std::vector<Tensor>> out = reference::evaluate(graph, {input});
  REQUIRE(out.has_value());
  std::vector<std::pair<double, double>> pairs;
  for (size_t i = 0; i < xs.size(); ++i) pairs.push_back({xs[i], (*out)[0].get(int64_t(i))});
  return pairs;
}

TEST_CASE("epilogue activations are unary elementwise ops the rules and codegen take") {
  CHECK(conv_accepts("none"));
  CHECK(gemm_accepts("none"));
  CHECK_FALSE(conv_accepts("tanh_please"));
  for (const OpKind op : all_op_kinds()) {
    INFO(op_name(op));
    const std::string name(op_name(op));
    const bool conv = op_has_trait(op, kConvActivation), gemm = op_has_trait(op, kGemmActivation);
    if (conv || gemm) CHECK(unary_elementwise(op));
    CHECK(conv_accepts(name) == conv);
    CHECK(gemm_accepts(name) == gemm);
    if (!gemm) continue;
    // codegen lowers a gemm with it (cuBLASLt's epilogue or the in-place kernel)
    Graph graph;
    const ValueId a = graph.add_input("a", {DType::kF32, {2, 3}});
    const ValueId b = graph.add_input("b", {DType::kF32, {3, 4}});
    Expected<ValueId> y = build_value(graph, OpKind::kGemm, {a, b}, gemm_attrs(name), "y");
    REQUIRE(y.has_value());
    graph.set_outputs({*y});
    const auto generated = codegen::generate(graph, {});
    CHECK(generated.has_value());
  }
}

TEST_CASE("every unary op whose result can leave f16's range says so") {
  for (const OpKind op : all_op_kinds()) {
    INFO(op_name(op));
    CHECK_FALSE((op_has_trait(op, kWidensF16Range) && op_has_trait(op, kNarrowsRange)));
    // Logical ops give bools and integer-only ops (bitwise_not) have no f16 form: no range.
    if (!unary_elementwise(op) || op_dtype_class(op) == DTypeClass::kLogical ||
        !has_floating_form(op_dtype_class(op)))
      continue;
    bool leaves = false;
    for (const auto& [x, y] : results_over_f16_range(op)) {
      INFO("x = " << x << ", y = " << y);
      leaves = leaves || (std::isfinite(y) && std::abs(y) > kHalfMax) || std::isinf(y);
      // a narrowing op brings any value of the range back into it
      if (op_has_trait(op, kNarrowsRange)) CHECK((std::isnan(y) || std::abs(y) <= kHalfMax));
    }
    CHECK(leaves == op_has_trait(op, kWidensF16Range));
  }
}

TEST_CASE("every lowering states its scratch and in-place rule") {
  for (const OpKind op : all_op_kinds()) {
    INFO(op_name(op));
    if (!codegen::has_lowering(op)) continue;
    const codegen::Lowering& lowering = codegen::lowering_table()[op];
    CHECK(lowering.scratch_bytes != nullptr);
    CHECK(lowering.in_place_inputs != nullptr);
  }
}

}  // namespace
}  // namespace inferno::ir
