// Shape and dtype rules, one table row per case: (op, input types, attributes) -> the output types,
// or a substring of the error. Every op in ops.def has at least one row.
#include <set>
#include <string>
#include <vector>

#include "ir/fused_expr.h"
#include "ir/shape_rules.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno::ir {
namespace {

TensorType f32(Shape s) { return {DType::kF32, std::move(s)}; }
TensorType f16(Shape s) { return {DType::kF16, std::move(s)}; }
TensorType bf16(Shape s) { return {DType::kBF16, std::move(s)}; }
TensorType f64(Shape s) { return {DType::kF64, std::move(s)}; }
TensorType i64(Shape s) { return {DType::kI64, std::move(s)}; }
TensorType i32(Shape s) { return {DType::kI32, std::move(s)}; }
TensorType boolean(Shape s) { return {DType::kBool, std::move(s)}; }
// attention's attributes, all given (the rules see no defaults).
Attributes attn(double scale, bool causal, const std::string& mask, int64_t kv_groups) {
  Attributes a;
  a.set("scale", scale);
  a.set("causal", causal);
  a.set("mask", mask);
  a.set("kv_groups", kv_groups);
  return a;
}

Attributes attrs(std::initializer_list<std::pair<const char*, AttrValue>> entries) {
  Attributes a;
  for (const auto& [name, value] : entries) a.set(name, value);
  return a;
}
Attributes ints(const char* name, IntList v) { return attrs({{name, std::move(v)}}); }
Attributes reduce(IntList dims, bool keepdim) {
  return attrs({{"dims", std::move(dims)}, {"keepdim", keepdim}});
}
Attributes dim(int64_t d) { return attrs({{"dim", d}}); }
const Attributes kAlphaBeta = attrs({{"alpha", 1.0}, {"beta", 1.0}});
Attributes gemm(bool trans_b, const char* activation = "none") {
  return attrs({{"trans_b", trans_b},
                {"alpha", 1.0},
                {"beta", 1.0},
                {"activation", std::string(activation)}});
}
Attributes norm_gemm(const char* norm, const char* activation = "none") {
  Attributes a = gemm(true, activation);
  a.set("norm", std::string(norm));
  a.set("eps", 1e-5);
  return a;
}
Attributes without(Attributes a, const std::string& name) {
  Attributes out;
  for (const auto& [key, value] : a.entries()) {
    if (key != name) out.set(key, value);
  }
  return out;
}
Attributes expr(const char* text) { return attrs({{"expr", std::string(text)}}); }

struct Case {
  OpKind op;
  std::vector<TensorType> inputs;
  Attributes attrs;
  std::vector<TensorType> expected;  ///< empty: an error is expected
  std::string error = {};            ///< substring of the error message
};

const std::vector<Case>& cases() {
  using K = OpKind;
  static const std::vector<Case> kCases = {
      // linear: x[..., K] @ w[N, K]^T (+ b[N] / b[1] / b[])
      {K::kLinear, {f32({4, 16}), f32({32, 16}), f32({32})}, {}, {f32({4, 32})}},
      {K::kLinear, {f32({4, 16}), f32({32, 16})}, {}, {f32({4, 32})}},
      {K::kLinear, {f32({2, 3, 16}), f32({32, 16}), f32({1})}, {}, {f32({2, 3, 32})}},
      {K::kLinear, {f32({16}), f32({32, 16}), f32({})}, {}, {f32({32})}},
      {K::kLinear, {f32({4, 16}), f32({32, 8})}, {}, {}, "expects x[..., K] and w[N, K]"},
      {K::kLinear,
       {f32({4, 16}), f32({32, 16}), f32({31})},
       {},
       {},
       "does not match 32 output features"},
      {K::kLinear, {f16({4, 16}), f32({32, 16})}, {}, {}, "operand dtypes differ"},
      {K::kLinear, {f32({4, 16})}, {}, {}, "takes 2 to 3 inputs, got 1"},
      // matmul: torch.matmul, including 1-D operands and batch broadcasting
      {K::kMatMul, {f32({3}), f32({3})}, {}, {f32({})}},
      {K::kMatMul, {f32({3}), f32({3, 4})}, {}, {f32({4})}},
      {K::kMatMul, {f32({2, 3}), f32({3})}, {}, {f32({2})}},
      {K::kMatMul, {f32({2, 3}), f32({3, 4})}, {}, {f32({2, 4})}},
      {K::kMatMul, {f32({5, 2, 3}), f32({5, 3, 4})}, {}, {f32({5, 2, 4})}},
      {K::kMatMul, {f32({5, 1, 2, 3}), f32({7, 3, 4})}, {}, {f32({5, 7, 2, 4})}},
      {K::kMatMul, {f32({3}), f32({5, 3, 4})}, {}, {f32({5, 4})}},
      {K::kMatMul, {f32({2, 3}), f32({4, 5})}, {}, {}, "inner dimensions differ"},
      {K::kMatMul, {f32({5, 2, 3}), f32({4, 3, 4})}, {}, {}, "do not broadcast"},
      {K::kMatMul, {f32({}), f32({3})}, {}, {}, "rank >= 1"},
      // addmm: beta * bias + alpha * (a @ b)
      {K::kAddMM, {f32({4}), f32({2, 3}), f32({3, 4})}, kAlphaBeta, {f32({2, 4})}},
      {K::kAddMM, {f32({2, 1}), f32({2, 3}), f32({3, 4})}, kAlphaBeta, {f32({2, 4})}},
      {K::kAddMM,
       {f32({2, 2, 4}), f32({2, 3}), f32({3, 4})},
       kAlphaBeta,
       {},
       "does not broadcast to [2,4]"},
      {K::kAddMM,
       {f32({4}), f32({2, 3}), f32({2, 4})},
       kAlphaBeta,
       {},
       "expects a[M, K] and b[K, N]"},
      {K::kAddMM,
       {f32({4}), f32({2, 3}), f32({3, 4})},
       attrs({{"beta", 1.0}}),
       {},
       "needs attribute 'alpha' of type float"},
      {K::kAddMM,
       {f32({4}), f32({2, 3}), f32({3, 4})},
       attrs({{"alpha", int64_t{1}}, {"beta", 1.0}}),
       {},
       "attribute 'alpha' must be of type float"},
      // norm_gemm: gemm(norm(x), b, c, d); x, b, weight[K], bias[K] (layer_norm only), c?, d?
      {K::kNormGemm,
       {f16({1, 16}), f16({32, 16}), f16({16}), f16({16})},
       norm_gemm("layer_norm"),
       {f16({1, 32})}},
      {K::kNormGemm,
       {f32({1, 1, 16}), f32({32, 16}), f32({16}), f32({32}), f32({1, 1, 32})},
       norm_gemm("rms_norm", "gelu_tanh"),
       {f32({1, 1, 32})}},
      {K::kNormGemm,
       {f32({2, 16}), f32({32, 16}), f32({16})},
       norm_gemm("layer_norm"),
       {},
       "norm must be layer_norm (x, b, weight, bias, c?, d?) or rms_norm"},
      {K::kNormGemm,
       {f32({2, 16}), f32({32, 16}), f32({16})},
       norm_gemm("group_norm"),
       {},
       "norm must be layer_norm"},
      {K::kNormGemm,
       {f32({2, 16}), f32({32, 16}), f32({8})},
       norm_gemm("rms_norm"),
       {},
       "weight f32[8] must be f32[16] (x's last dim)"},
      {K::kNormGemm,
       {f32({2, 16}), f32({32, 16}), f32({16}), f16({16})},
       norm_gemm("layer_norm"),
       {},
       "bias f16[16] must be f32[16]"},
      {K::kNormGemm,
       {i32({2, 16}), i32({32, 16}), i32({16})},
       norm_gemm("rms_norm"),
       {},
       "expects a floating-point input"},
      {K::kNormGemm,
       {f32({2, 16}), f32({32, 8}), f32({16})},
       norm_gemm("rms_norm"),
       {},
       "inner dimensions differ"},
      // gemm: activation(alpha * (a @ op(b)) + beta * c + d)
      {K::kGemm, {f32({4, 16}), f32({16, 32})}, gemm(false), {f32({4, 32})}},
      {K::kGemm, {f32({4, 16}), f32({32, 16})}, gemm(true), {f32({4, 32})}},
      {K::kGemm,
       {f32({4, 16}), f32({16, 32})},
       gemm(true),
       {},
       "inner dimensions differ (f32[4,16] @ f32[16,32]^T)"},
      {K::kGemm,
       {f32({4, 16}), f32({32, 16})},
       gemm(false),
       {},
       "inner dimensions differ (f32[4,16] @ f32[32,16])"},
      {K::kGemm,
       {f32({16}), f32({16, 32})},
       gemm(false),
       {},
       "operands must have rank >= 2 (f32[16], f32[16,32])"},
      {K::kGemm, {f32({4, 16}), f32({16})}, gemm(true), {}, "operands must have rank >= 2"},
      {K::kGemm, {f32({5, 1, 2, 3}), f32({7, 3, 4})}, gemm(false), {f32({5, 7, 2, 4})}},
      {K::kGemm, {f32({2, 3}), f32({6, 4, 3})}, gemm(true), {f32({6, 2, 4})}},
      {K::kGemm,
       {f32({5, 2, 3}), f32({4, 3, 4})},
       gemm(false),
       {},
       "batch dims of f32[5,2,3] and f32[4,3,4] do not broadcast"},
      {K::kGemm, {f32({2, 3}), f32({3, 4}), f32({4})}, gemm(false), {f32({2, 4})}},
      {K::kGemm, {f32({2, 3}), f32({3, 4}), f32({}), f32({2, 4})}, gemm(false), {f32({2, 4})}},
      {K::kGemm,
       {f32({5, 2, 3}), f32({3, 4}), f32({2, 1}), f32({5, 1, 4})},
       gemm(false),
       {f32({5, 2, 4})}},
      {K::kGemm,
       {f32({2, 3}), f32({3, 4}), f32({3, 4})},
       gemm(false),
       {},
       "c f32[3,4] does not broadcast to [2,4]"},
      {K::kGemm,
       {f32({2, 3}), f32({3, 4}), f32({4}), f32({3, 2, 4})},
       gemm(false),
       {},
       "d f32[3,2,4] does not broadcast to [2,4]"},  // broadcasting may not grow the result
      {K::kGemm, {f32({2, 3}), f32({3, 4}), f16({4})}, gemm(false), {}, "operand dtypes differ"},
      {K::kGemm, {i32({2, 3}), i32({3, 4})}, gemm(false, "relu"), {i32({2, 4})}},
      {K::kGemm, {bf16({2, 3}), bf16({3, 4})}, gemm(false, "gelu"), {bf16({2, 4})}},
      {K::kGemm, {f16({2, 3}), f16({3, 4})}, gemm(false, "gelu_tanh"), {f16({2, 4})}},
      {K::kGemm,
       {i64({2, 3}), i64({3, 4})},
       gemm(false, "gelu"),
       {},
       "activation gelu needs a floating-point dtype, got i64[2,3]"},
      {K::kGemm,
       {i32({2, 3}), i32({3, 4})},
       gemm(false, "gelu_tanh"),
       {},
       "needs a floating-point dtype"},
      {K::kGemm,
       {f32({2, 3}), f32({3, 4})},
       gemm(false, "tanh"),
       {},
       "activation must be \"none\", \"relu\", \"gelu\" or \"gelu_tanh\", got \"tanh\""},
      {K::kGemm, {f32({2, 3}), f32({3, 4})}, gemm(false, "Relu"), {}, "activation must be"},
      {K::kGemm,
       {f32({2, 3}), f32({3, 4})},
       without(gemm(false), "trans_b"),
       {},
       "needs attribute 'trans_b' of type bool"},
      {K::kGemm,
       {f32({2, 3}), f32({3, 4})},
       without(gemm(false), "alpha"),
       {},
       "needs attribute 'alpha' of type float"},
      {K::kGemm,
       {f32({2, 3}), f32({3, 4})},
       without(gemm(false), "beta"),
       {},
       "needs attribute 'beta' of type float"},
      {K::kGemm,
       {f32({2, 3}), f32({3, 4})},
       without(gemm(false), "activation"),
       {},
       "needs attribute 'activation' of type str"},
      {K::kGemm,
       {f32({2, 3}), f32({3, 4})},
       attrs({{"trans_b", int64_t{0}},
              {"alpha", 1.0},
              {"beta", 1.0},
              {"activation", std::string("none")}}),
       {},
       "attribute 'trans_b' must be of type bool"},
      {K::kGemm, {f32({2, 3})}, gemm(false), {}, "takes 2 to 4 inputs, got 1"},
      {K::kGemm,
       {f32({2, 3}), f32({3, 4}), f32({4}), f32({4}), f32({4})},
       gemm(false),
       {},
       "takes 2 to 4 inputs, got 5"},
      // fused_elementwise: the body's last step, each step typed by its op's rule (details in
      // ir_fused_expr_test)
      {K::kFusedElementwise,
       {f16({4, 1}), f32({5})},
       expr("cast[f32]($0); mul(#0, $1); gelu_tanh(#1)"),
       {f32({4, 5})}},
      {K::kFusedElementwise, {i32({3})}, expr("neg($0)"), {i32({3})}},
      {K::kFusedElementwise,
       {f16({2}), f32({})},
       expr("mul($0, $1)"),
       {f16({2})}},  // rank-0 promotion as unfused
      {K::kFusedElementwise,
       {f32({4}), f32({5})},
       expr("add($0, $1)"),
       {},
       "fused_elementwise: step 0 'add($0, $1)': add: operand shapes do not broadcast"},
      {K::kFusedElementwise,
       {f32({4})},
       expr("sum($0)"),
       {},
       "fused_elementwise: step 0 'sum($0)': sum is not an elementwise op"},
      {K::kFusedElementwise,
       {f32({4}), f32({4})},
       expr("relu($0)"),
       {},
       "fused_elementwise: input $1 is not read by any step"},
      {K::kFusedElementwise, {f32({4})}, {}, {}, "needs attribute 'expr' of type body"},
      {K::kFusedElementwise, {f32({4})}, attrs({{"expr", int64_t{1}}}), {}, "must be of type body"},
      // (a body given as text is parsed against the inputs first)
      {K::kFusedElementwise, {}, expr("relu($0)"), {}, "$0 is out of range"},
      {K::kFusedElementwise,
       std::vector<TensorType>(33, f32({4})),
       expr("relu($0)"),
       {},
       "33 inputs, more than the limit of 32"},
      // layout ops
      {K::kReshape, {f32({4, 6})}, ints("shape", {2, 3, 4}), {f32({2, 3, 4})}},
      {K::kReshape, {f32({4, 6})}, ints("shape", {}), {}, "cannot reshape f32[4,6] to []"},
      {K::kReshape, {f32({1})}, ints("shape", {}), {f32({})}},
      {K::kReshape, {f32({4, 6})}, ints("shape", {-1, 6}), {}, "negative dim"},
      {K::kReshape,
       {f32({0})},
       ints("shape", {int64_t{1} << 32, int64_t{1} << 32, 0}),
       {},
       "cannot reshape"},
      {K::kReshape, {f32({0})}, ints("shape", {int64_t{1} << 62, 8}), {}, "cannot reshape"},
      {K::kReshape, {f32({4, 6})}, {}, {}, "needs attribute 'shape' of type ints"},
      {K::kTranspose,
       {f32({2, 3, 4})},
       attrs({{"dim0", int64_t{0}}, {"dim1", int64_t{2}}}),
       {f32({4, 3, 2})}},
      {K::kTranspose,
       {f32({2, 3})},
       attrs({{"dim0", int64_t{0}}, {"dim1", int64_t{2}}}),
       {},
       "out of range"},
      {K::kTranspose,
       {f32({2, 3})},
       attrs({{"dim0", int64_t{-1}}, {"dim1", int64_t{0}}}),
       {},
       "out of range"},
      {K::kPermute, {f32({2, 3, 4})}, ints("dims", {2, 0, 1}), {f32({4, 2, 3})}},
      {K::kPermute, {f32({2, 3, 4})}, ints("dims", {0, 0, 1}), {}, "not a permutation"},
      {K::kPermute, {f32({2, 3, 4})}, ints("dims", {1, 0}), {}, "not a permutation"},
      {K::kExpand, {f32({1, 16})}, ints("shape", {4, 16}), {f32({4, 16})}},
      {K::kExpand, {f32({3})}, ints("shape", {2, 5, 3}), {f32({2, 5, 3})}},
      {K::kExpand, {f32({2, 3})}, ints("shape", {3}), {}, "to fewer dims"},
      {K::kExpand, {f32({2, 3})}, ints("shape", {4, 3}), {}, "cannot expand f32[2,3] to [4,3]"},
      {K::kExpand, {f32({1})}, ints("shape", {-1}), {}, "target shape [-1]"},
      {K::kExpand,
       {f32({1})},
       ints("shape", {int64_t{1} << 40, int64_t{1} << 40}),
       {},
       "too large"},
      // slice: more rows in ir_slice_rules_test.cpp
      {K::kSlice,
       {f32({2, 8, 5})},
       attrs(
           {{"starts", IntList{0, 4, 1}}, {"ends", IntList{2, 8, 5}}, {"steps", IntList{1, 1, 3}}}),
       {f32({2, 4, 2})}},
      {K::kSlice,
       {f32({2, 8})},
       attrs({{"starts", IntList{0, 4}}, {"ends", IntList{2, 9}}, {"steps", IntList{1, 1}}}),
       {},
       "is not a slice of size 8"},
      // unary elementwise
      {K::kRelu, {i32({4})}, {}, {i32({4})}},
      {K::kRelu, {f32({4}), f32({4})}, {}, {}, "takes 1 inputs, got 2"},
      {K::kAbs, {i64({2, 2})}, {}, {i64({2, 2})}},
      {K::kNeg, {f16({})}, {}, {f16({})}},
      {K::kGelu, {f32({4})}, {}, {f32({4})}},
      {K::kGeluTanh, {bf16({4})}, {}, {bf16({4})}},
      {K::kGelu,
       {f32({4})},
       attrs({{"approximate", std::string("tanh")}}),
       {},
       "gelu: unknown attribute 'approximate'"},
      {K::kGelu, {i32({4})}, {}, {}, "expects floating-point operands"},
      {K::kSilu, {f16({4})}, {}, {f16({4})}},
      {K::kSigmoid, {f64({4})}, {}, {f64({4})}},
      {K::kTanh, {i64({4})}, {}, {}, "expects floating-point operands"},
      {K::kExp, {boolean({4})}, {}, {}, "expects floating-point operands"},
      {K::kCast, {f32({2, 3})}, attrs({{"dtype", DType::kF16}}), {f16({2, 3})}},
      {K::kCast,
       {f32({2, 3})},
       attrs({{"dtype", std::string("f16")}}),
       {},
       "attribute 'dtype' must be of type dtype"},
      {K::kCast, {f32({2, 3})}, {}, {}, "needs attribute 'dtype' of type dtype"},
      // binary elementwise: broadcasting
      {K::kAdd, {f32({4, 1}), f32({1, 5})}, {}, {f32({4, 5})}},
      {K::kAdd, {f32({3}), f32({2, 1, 3})}, {}, {f32({2, 1, 3})}},
      {K::kAdd, {f32({4}), f32({5})}, {}, {}, "operand shapes do not broadcast"},
      {K::kWhere, {boolean({4, 1}), f32({5}), f32({})}, {}, {f32({4, 5})}},
      {K::kClamp, {f32({4}), f32({5}), f32({4})}, {}, {}, "operand shapes do not broadcast"},
      {K::kMul, {f32({0, 3}), f32({1, 3})}, {}, {f32({0, 3})}},
      // binary elementwise: dtype promotion
      {K::kAdd, {f16({2}), f32({2})}, {}, {f32({2})}},
      {K::kAdd, {f16({2}), bf16({2})}, {}, {f32({2})}},
      {K::kAdd, {i32({2}), f16({2})}, {}, {f16({2})}},
      {K::kSub, {boolean({2}), i32({2})}, {}, {i32({2})}},
      {K::kSub, {i32({2}), i64({2})}, {}, {i64({2})}},
      {K::kMul, {f16({2}), f32({})}, {}, {f16({2})}},  // rank-0 of the same category: no widening
      {K::kMul, {f64({}), f32({2})}, {}, {f32({2})}},
      {K::kMul, {i32({2}), i64({})}, {}, {i32({2})}},
      {K::kMul, {i32({2}), f32({})}, {}, {f32({2})}},   // a higher category still wins
      {K::kMul, {f16({}), f32({})}, {}, {f32({})}},     // both rank 0: ordinary promotion
      {K::kDiv, {i32({2}), i32({2})}, {}, {f32({2})}},  // true division
      {K::kDiv, {i64({2}), i64({})}, {}, {f32({2})}},
      {K::kDiv, {boolean({2}), boolean({2})}, {}, {f32({2})}},
      {K::kDiv, {f16({2}), i64({2})}, {}, {f16({2})}},
      // dtype classes: float, compare, logical, select
      {K::kSqrt, {f16({2})}, {}, {f16({2})}},
      {K::kPow, {i64({2}), i64({})}, {}, {}, "pow: expects floating-point operands"},
      {K::kLt, {i32({2}), f16({})}, {}, {boolean({2})}},
      {K::kLogicalAnd, {f32({2}), i64({2})}, {}, {boolean({2})}},
      {K::kWhere, {boolean({2}), i32({2}), f16({})}, {}, {f16({2})}},
      {K::kWhere, {f32({2}), i64({2}), i32({})}, {}, {i64({2})}},
      // rounding divisions keep integers; isnan is a comparison; bit operations take integers
      {K::kDivFloor, {i32({2}), i64({})}, {}, {i32({2})}},
      {K::kIsNan, {f16({2})}, {}, {boolean({2})}},
      {K::kBitwiseAnd, {i32({2}), i64({2})}, {}, {i64({2})}},
      {K::kBitwiseNot, {f32({2})}, {}, {}, "expects integer operands (not floating-point or bool)"},
      {K::kBitwiseOr, {boolean({2}), i32({2})}, {}, {}, "(not floating-point or bool)"},
      // reductions
      {K::kSum, {f32({4, 8})}, reduce({1}, true), {f32({4, 1})}},
      {K::kSum, {f32({4, 8})}, reduce({1}, false), {f32({4})}},
      {K::kSum, {f32({4, 8})}, reduce({}, false), {f32({})}},
      {K::kSum, {f32({4, 8})}, reduce({}, true), {f32({1, 1})}},
      {K::kSum, {f32({2, 3, 4})}, reduce({0, 2}, false), {f32({3})}},
      {K::kSum, {i32({4, 8})}, reduce({0}, false), {i64({8})}},
      {K::kSum, {boolean({4})}, reduce({}, false), {i64({})}},
      {K::kSum, {f32({4, 8})}, reduce({1, 0}, false), {}, "must be sorted, unique"},
      {K::kSum,
       {f32({4, 8})},
       reduce({2}, false),
       {},
       "must be sorted, unique and within f32[4,8]"},
      {K::kSum, {f32({4, 8})}, ints("dims", {1}), {}, "needs attribute 'keepdim' of type bool"},
      {K::kMean, {f16({4, 8})}, reduce({0}, true), {f16({1, 8})}},
      {K::kMean, {i32({4, 8})}, reduce({0}, true), {}, "expects a floating-point input"},
      {K::kSoftmax, {f32({4, 8})}, dim(1), {f32({4, 8})}},
      {K::kSoftmax, {f32({})}, dim(0), {f32({})}},
      {K::kSoftmax, {i32({4, 8})}, dim(1), {}, "expects a floating-point input"},
      {K::kSoftmax, {f32({4, 8})}, dim(2), {}, "dim 2 out of range"},
      {K::kSoftmax, {f32({4, 8})}, dim(-1), {}, "dim -1 out of range"},
      {K::kLogSoftmax, {bf16({4, 8})}, dim(0), {bf16({4, 8})}},
      {K::kLogSoftmax, {i64({4})}, dim(0), {}, "expects a floating-point input"},
      {K::kCumsum, {f16({4, 8})}, dim(1), {f16({4, 8})}},
      {K::kCumsum, {boolean({4})}, dim(0), {i64({4})}},
      {K::kCumsum, {f32({})}, dim(0), {f32({})}},
      {K::kCumsum, {f32({4})}, dim(1), {}, "dim 1 out of range"},
      {K::kReduceMax, {i32({4, 8})}, reduce({1}, true), {i32({4, 1})}},
      {K::kReduceMin, {f32({2, 3, 4})}, reduce({0, 2}, false), {f32({3})}},
      {K::kReduceMax, {f32({4, 0})}, reduce({1}, false), {}, "reduces the empty dim 1"},
      {K::kReduceMin, {f32({4, 8})}, reduce({1, 0}, false), {}, "must be sorted, unique"},
      {K::kArgMax, {f32({4, 8})}, attrs({{"dim", int64_t{1}}, {"keepdim", false}}), {i64({4})}},
      {K::kArgMin,
       {boolean({4, 8})},
       attrs({{"dim", int64_t{0}}, {"keepdim", true}}),
       {i64({1, 8})}},
      {K::kArgMax, {f32({})}, attrs({{"dim", int64_t{0}}, {"keepdim", false}}), {i64({})}},
      {K::kArgMax,
       {f32({0, 3})},
       attrs({{"dim", int64_t{0}}, {"keepdim", false}}),
       {},
       "reduces the empty dim 0"},
      // pooling (more in ir_pool_rules_test.cpp)
      {K::kMaxPool2d,
       {f32({2, 8, 8, 3})},
       attrs({{"kernel", IntList{3, 3}},
              {"stride", IntList{2, 2}},
              {"padding", IntList{1, 1}},
              {"dilation", IntList{1, 1}},
              {"ceil_mode", false},
              {"layout", std::string("nhwc")}}),
       {f32({2, 4, 4, 3})}},
      {K::kAvgPool2d,
       {f16({3, 8, 8})},
       attrs({{"kernel", IntList{3, 3}},
              {"stride", IntList{2, 2}},
              {"padding", IntList{0, 0}},
              {"ceil_mode", true},
              {"count_include_pad", true},
              {"divisor_override", int64_t{0}},
              {"layout", std::string("nchw")}}),
       {f16({3, 4, 4})}},
      {K::kAdaptiveAvgPool2d,
       {f32({2, 3, 7, 5})},
       attrs({{"output_size", IntList{3, 4}}, {"layout", std::string("nchw")}}),
       {f32({2, 3, 3, 4})}},
      {K::kAdaptiveMaxPool2d,
       {i64({2, 3, 7, 5})},
       attrs({{"output_size", IntList{3, 4}}, {"layout", std::string("nchw")}}),
       {},
       "expects a floating-point input"},
      // joins (more in ir_join_rules_test.cpp)
      {K::kCat, {f32({2, 3}), f32({2, 1})}, dim(1), {f32({2, 4})}},
      {K::kCat, {f32({2, 3}), f16({2, 1})}, dim(1), {}, "share dtype"},
      {K::kIndexSelect, {f16({5, 3}), i64({2, 4})}, dim(0), {f16({2, 4, 3})}},
      {K::kIndexSelect, {f16({5, 3}), i32({2})}, dim(1), {f16({5, 2})}},
      {K::kIndexSelect, {f16({5, 3}), i64({2})}, dim(2), {}, "dim 2 out of range"},
      {K::kIndexCopy, {f16({5, 3}), i64({2}), f16({5, 2})}, dim(1), {f16({5, 3})}},
      {K::kIndexCopy, {f16({5, 3}), i32({2}), f16({2, 3})}, dim(0), {f16({5, 3})}},
      {K::kIndexCopy, {f16({5, 3}), i64({2}), f16({5, 3})}, dim(1), {}, "the source must be"},
      {K::kIndexCopy, {f16({5, 3}), i64({2, 1}), f16({5, 2})}, dim(1), {}, "1-D i32 or i64"},
      {K::kConstantPad,
       {i64({2, 3}), i64({})},
       attrs({{"before", IntList{1, -1}}, {"after", IntList{0, 2}}}),
       {i64({3, 4})}},
      // resizing (more in ir_resize_rules_test.cpp)
      {K::kUpsampleNearest2d,
       {f32({1, 2, 3, 4})},
       attrs({{"output_size", IntList{6, 8}}, {"scale_h", 0.0}, {"scale_w", 0.0}}),
       {f32({1, 2, 6, 8})}},
      {K::kUpsampleBilinear2d,
       {f16({1, 2, 3, 4})},
       attrs({{"output_size", IntList{5, 5}},
              {"align_corners", false},
              {"scale_h", 0.0},
              {"scale_w", 0.0}}),
       {f16({1, 2, 5, 5})}},
      // normalization (more in ir_norm_rules_test.cpp)
      {K::kLayerNorm,
       {f32({2, 3, 4}), f32({3, 4}), f32({3, 4})},
       attrs({{"normalized_dims", int64_t{2}}, {"eps", 1e-5}}),
       {f32({2, 3, 4})}},
      {K::kLayerNorm,
       {f32({2, 3, 4}), f32({3})},
       attrs({{"normalized_dims", int64_t{1}}, {"eps", 1e-5}}),
       {},
       "weight f32[3] must be f32[4]"},
      {K::kRmsNorm,
       {f32({2, 3, 4}), f32({4})},
       attrs({{"normalized_dims", int64_t{1}}, {"eps", 1e-6}}),
       {f32({2, 3, 4})}},
      {K::kGroupNorm,
       {f16({2, 6, 3}), f16({6})},
       attrs({{"groups", int64_t{3}}, {"eps", 1e-5}}),
       {f16({2, 6, 3})}},
      // attention: q [B, Hq, Sq, D], k [B, Hkv, Skv, D], v [B, Hkv, Skv, Dv] -> [B, Hq, Sq, Dv]
      {K::kAttention,
       {f16({2, 4, 5, 8}), f16({2, 4, 7, 8}), f16({2, 4, 7, 6})},
       attn(0.25, true, "none", 1),
       {f16({2, 4, 5, 6})}},
      {K::kAttention,  // GQA: 8 query heads on 2 kv heads, a bool mask [B, 1, 1, Skv]
       {bf16({2, 8, 5, 4}), bf16({2, 2, 3, 4}), bf16({2, 2, 3, 4}), boolean({2, 1, 1, 3})},
       attn(0.5, false, "bool", 4),
       {bf16({2, 8, 5, 4})}},
      {K::kAttention,  // an additive [Sq, Skv] mask of q's dtype
       {f32({1, 2, 5, 4}), f32({1, 2, 3, 4}), f32({1, 2, 3, 2}), f32({5, 3})},
       attn(1.0, false, "additive", 1),
       {f32({1, 2, 5, 2})}},
      {K::kAttention,
       {f32({2, 5, 4}), f32({2, 3, 4}), f32({2, 3, 4})},
       attn(1.0, false, "none", 1),
       {},
       "expects q, k and v of rank 4"},
      {K::kAttention,
       {f32({1, 2, 5, 4}), f16({1, 2, 3, 4}), f32({1, 2, 3, 4})},
       attn(1.0, false, "none", 1),
       {},
       "q, k and v must share a dtype"},
      {K::kAttention,
       {i64({1, 2, 5, 4}), i64({1, 2, 3, 4}), i64({1, 2, 3, 4})},
       attn(1.0, false, "none", 1),
       {},
       "floating-point"},
      {K::kAttention,
       {f32({1, 2, 5, 4}), f32({1, 2, 3, 8}), f32({1, 2, 3, 4})},
       attn(1.0, false, "none", 1),
       {},
       "k and v must be [B, Hkv, Skv, D] and [B, Hkv, Skv, Dv]"},
      {K::kAttention,  // 6 query heads on 4 kv heads: no kv_groups fits
       {f32({1, 6, 5, 4}), f32({1, 4, 3, 4}), f32({1, 4, 3, 4})},
       attn(1.0, false, "none", 2),
       {},
       "kv_groups 2 times the 4 kv heads must be the 6 query heads"},
      {K::kAttention,
       {f32({1, 2, 5, 4}), f32({1, 2, 3, 4}), f32({1, 2, 3, 4}), boolean({5, 4})},
       attn(1.0, false, "bool", 1),
       {},
       "does not broadcast to the scores [1,2,5,3]"},
      {K::kAttention,
       {f32({1, 2, 5, 4}), f32({1, 2, 3, 4}), f32({1, 2, 3, 4}), f16({5, 3})},
       attn(1.0, false, "additive", 1),
       {},
       "a additive mask must be f32"},
      {K::kAttention,
       {f32({1, 2, 5, 4}), f32({1, 2, 3, 4}), f32({1, 2, 3, 4})},
       attn(1.0, false, "bool", 1),
       {},
       "mask = bool needs a mask input"},
      {K::kAttention,
       {f32({1, 2, 5, 4}), f32({1, 2, 3, 4}), f32({1, 2, 3, 4}), boolean({5, 3})},
       attn(1.0, false, "none", 1),
       {},
       "has a mask input but mask = none"},
      {K::kAttention,
       {f32({1, 2, 5, 4}), f32({1, 2, 3, 4}), f32({1, 2, 3, 4})},
       attn(1.0, false, "causal", 1),
       {},
       "mask must be none, bool or additive"},
      // rotary: x [..., D], cos and sin [..., r] broadcasting to x[..., :r] -> x's type
      {K::kRotary,
       {f16({2, 4, 5, 8}), f16({2, 1, 5, 8}), f16({2, 1, 5, 8})},
       attrs({{"rotary_dim", int64_t{8}}}),
       {f16({2, 4, 5, 8})}},
      {K::kRotary,  // partial: 6 of 10, cos and sin of lower rank
       {f32({3, 10}), f32({6}), f32({1, 6})},
       attrs({{"rotary_dim", int64_t{6}}}),
       {f32({3, 10})}},
      {K::kRotary,
       {f32({3, 10}), f32({3, 7}), f32({3, 7})},
       attrs({{"rotary_dim", int64_t{7}}}),
       {},
       "rotary_dim 7 must be even and within [2, 10]"},
      {K::kRotary,
       {f32({3, 10}), f32({3, 12}), f32({3, 12})},
       attrs({{"rotary_dim", int64_t{12}}}),
       {},
       "rotary_dim 12 must be even and within [2, 10]"},
      {K::kRotary,
       {f32({3, 10}), f32({3, 8}), f32({3, 10})},
       attrs({{"rotary_dim", int64_t{10}}}),
       {},
       "cos f32[3,8] must be f32 with last dim 10"},
      {K::kRotary,  // cos would widen x to [2, 3, 10]
       {f32({3, 10}), f32({2, 3, 10}), f32({3, 10})},
       attrs({{"rotary_dim", int64_t{10}}}),
       {},
       "cos f32[2,3,10] must be f32 with last dim 10, broadcasting to f32[3,10]"},
      {K::kRotary,
       {f32({3, 10}), f32({3, 10}), f16({3, 10})},
       attrs({{"rotary_dim", int64_t{10}}}),
       {},
       "sin f16[3,10] must be f32"},
      {K::kRotary,
       {i32({3, 10}), i32({3, 10}), i32({3, 10})},
       attrs({{"rotary_dim", int64_t{10}}}),
       {},
       "floating-point"},
      // conv2d: more rows in ir_conv_rules_test.cpp
      {K::kConv2d,
       {f32({2, 4, 9, 9}), f32({6, 2, 3, 3}), f32({6})},
       attrs({{"stride", IntList{2, 1}},
              {"padding", IntList{1, 1, 1, 1}},
              {"dilation", IntList{1, 2}},
              {"groups", int64_t{2}},
              {"activation", std::string("relu")},
              {"residual", false},
              {"gate", false},
              {"layout", std::string("nchw")}}),
       {f32({2, 6, 5, 7})}},
      {K::kConvTranspose2d,
       {f32({2, 4, 5, 6}), f32({4, 3, 3, 3}), f32({3})},
       attrs({{"stride", IntList{2, 2}},
              {"padding", IntList{1, 1}},
              {"output_padding", IntList{1, 0}},
              {"dilation", IntList{1, 1}},
              {"groups", int64_t{1}}}),
       {f32({2, 3, 10, 11})}},
  };
  return kCases;
}

std::string describe(const Case& c) {
  std::string s(op_name(c.op));
  s += "(";
  for (size_t i = 0; i < c.inputs.size(); ++i) s += (i ? ", " : "") + c.inputs[i].to_string();
  return s + ")";
}

TEST_CASE("shape rules table") {
  for (const Case& c : cases()) {
    INFO(describe(c));
    // Bodies written as text are parsed first, as the builder and the IR parser do.
    Attributes attrs = c.attrs;
    const Status parsed = parse_body_attributes(c.op, c.inputs, attrs);
    Expected<std::vector<TensorType>> result = parsed ? infer_output_types(c.op, c.inputs, attrs)
                                                      : Expected<std::vector<TensorType>>(parsed);
    if (c.expected.empty()) {
      REQUIRE_FALSE(result.has_value());
      INFO("error: " << result.status().message());
      // A dtype an op does not compute in is unsupported (exit 2); anything else is invalid.
      const bool dtype_refusal = c.error.find("floating-point") != std::string::npos;
      CHECK(result.status().code() ==
            (dtype_refusal ? ErrorCode::kUnsupported : ErrorCode::kInvalidInput));
      CHECK(result.status().message().find(c.error) != std::string::npos);
    } else {
      INFO((result ? std::string() : result.status().message()));
      REQUIRE(result.has_value());
      CHECK(*result == c.expected);
    }
  }
}

// Every elementwise op shares one rule, driven by its dtype class: the rows above cover each
// class, and the op x dtype table (reference_op_table_test) types every elementwise op on every
// dtype. Every other op has rows here.
TEST_CASE("shape rules table covers every op") {
  std::set<OpKind> covered;
  std::set<DTypeClass> classes;
  for (const Case& c : cases()) {
    covered.insert(c.op);
    classes.insert(op_dtype_class(c.op));
  }
  for (const OpKind op : all_op_kinds()) {
    INFO(op_name(op));
    if (op_has_trait(op, kElementwise)) {
      CHECK(classes.contains(op_dtype_class(op)));
    } else {
      CHECK(covered.contains(op));
    }
  }
}

TEST_CASE("broadcast_shapes and normalize_dim") {
  CHECK(*broadcast_shapes({}, {}) == Shape{});
  CHECK(*broadcast_shapes({1}, {}) == Shape{1});
  CHECK(*broadcast_shapes({8, 1, 6, 1}, {7, 1, 5}) == Shape{8, 7, 6, 5});
  CHECK_FALSE(broadcast_shapes({2}, {3}).has_value());
  CHECK(*normalize_dim(-1, 3) == 2);
  CHECK(*normalize_dim(0, 0) == 0);
  CHECK(*normalize_dim(-1, 0) == 0);
  CHECK_FALSE(normalize_dim(3, 3).has_value());
  CHECK_FALSE(normalize_dim(-4, 3).has_value());
  CHECK_FALSE(normalize_dim(1, 0).has_value());
}

}  // namespace
}  // namespace inferno::ir
