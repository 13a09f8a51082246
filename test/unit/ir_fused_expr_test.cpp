// fused_elementwise bodies (ir/fused_expr.h): the parsed structure and types, exact round trips
// through the canonical text, one row per error with its full message, the bounds on untrusted
// text, and random corruptions that must never crash and, when accepted, print back unchanged.
#include <cstddef>
#include <string>
#include <vector>

#include "ir/fused_expr.h"
#include "support/catch.h"

namespace inferno::ir {
namespace {

TensorType f32(Shape s) { return {DType::kF32, std::move(s)}; }
TensorType f16(Shape s) { return {DType::kF16, std::move(s)}; }
TensorType i32(Shape s) { return {DType::kI32, std::move(s)}; }

FusedOperand in(int32_t i) { return {FusedOperand::Kind::kInput, i}; }
FusedOperand step(int32_t k) { return {FusedOperand::Kind::kStep, k}; }

FusedExpr parse_ok(const std::string& text, const std::vector<TensorType>& inputs) {
  Expected<FusedExpr> expr = parse_fused_expr(text, inputs);
  INFO(text << ": " << (expr ? std::string() : expr.status().message()));
  REQUIRE(expr.has_value());
  return std::move(expr).value();
}

TEST_CASE("fused expr parses into typed steps") {
  const FusedExpr expr =
      parse_ok("cast[f32]($0); mul(#0, $1); gelu_tanh(#1); sub(#2, #0)", {f16({4, 1}), f32({5})});
  REQUIRE(expr.steps.size() == 4);
  CHECK(expr.steps[0].op == OpKind::kCast);
  CHECK(expr.steps[0].attrs.get_dtype("dtype") == DType::kF32);
  CHECK(expr.steps[0].operands == std::vector<FusedOperand>{in(0)});
  CHECK(expr.steps[0].type == f32({4, 1}));
  CHECK(expr.steps[1].op == OpKind::kMul);
  CHECK(expr.steps[1].operands == std::vector<FusedOperand>{step(0), in(1)});
  CHECK(expr.steps[1].type == f32({4, 5}));
  CHECK(expr.steps[2].op == OpKind::kGeluTanh);
  CHECK(expr.steps[2].attrs.empty());
  CHECK(expr.steps[3].operands == std::vector<FusedOperand>{step(2), step(0)});
  CHECK(expr.result() == f32({4, 5}));
  CHECK(expr.steps[1].attrs.empty());
}

TEST_CASE("fused expr steps are typed as the unfused ops would be") {
  // Promotion (rank-0 operands do not widen), true division, integer steps, casts to every dtype.
  CHECK(parse_ok("mul($0, $1)", {f16({3}), f32({})}).result() == f16({3}));
  CHECK(parse_ok("div($0, $0)", {i32({3})}).result() == f32({3}));
  CHECK(parse_ok("neg($0); abs(#0)", {i32({2, 2})}).result() == i32({2, 2}));
  for (DType dtype : kAllDTypes) {
    const std::string text = "cast[" + std::string(dtype_name(dtype)) + "]($0)";
    CHECK(parse_ok(text, {f32({2})}).result() == TensorType{dtype, {2}});
  }
}

TEST_CASE("fused expr text round-trips exactly") {
  const std::vector<TensorType> two = {f32({2, 3}), f32({3})};
  for (const char* text : {
           "relu($0); add(#0, $1)",
           "sigmoid($0); mul($0, #0); add(#1, $1)",
           "add($0, $1); gelu_tanh(#0)",
           "add($0, $1); gelu(#0)",
           "cast[f16]($0); cast[bf16]($1); add(#0, #1); cast[f32](#2)",
           "sub($1, $0); mul(#0, #0); exp(#1); tanh(#2); silu(#3); neg(#4); abs(#5); div(#6, $0)",
           "gt($0, $1); where(#0, $0, $1); clamp(#1, $1, $0); elu(#2, $1, $1, $0)",
       }) {
    INFO(text);
    const FusedExpr expr = parse_ok(text, two);
    CHECK(fused_expr_to_string(expr) == text);
    CHECK(parse_ok(fused_expr_to_string(expr), two) == expr);
  }
}

TEST_CASE("fused expr built by hand prints canonically") {
  // What a fusion pass does: build steps, print them into the node's attribute.
  FusedExpr expr;
  FusedStep sigmoid{OpKind::kSigmoid, {}, {in(0)}, f32({8})};
  FusedStep mul{OpKind::kMul, {}, {in(0), step(0)}, f32({8})};
  FusedStep half{OpKind::kCast, {}, {step(1)}, f16({8})};
  half.attrs.set("dtype", DType::kF16);
  expr.steps = {sigmoid, mul, half};
  const std::string text = fused_expr_to_string(expr);
  CHECK(text == "sigmoid($0); mul($0, #0); cast[f16](#1)");
  CHECK(parse_ok(text, {f32({8})}) == expr);
}

TEST_CASE("the largest bodies are accepted") {
  std::string text = "neg($0)";
  for (int k = 1; k < kMaxFusedSteps; ++k) text += "; neg(#" + std::to_string(k - 1) + ")";
  CHECK(parse_ok(text, {f32({1})}).steps.size() == static_cast<size_t>(kMaxFusedSteps));
  std::vector<TensorType> inputs(kMaxFusedInputs, f32({1}));
  std::string sum = "add($0, $1)";
  for (int i = 2; i < kMaxFusedInputs; ++i)
    sum += "; add(#" + std::to_string(i - 2) + ", $" + std::to_string(i) + ")";
  CHECK(parse_ok(sum, inputs).steps.size() == static_cast<size_t>(kMaxFusedInputs - 1));
}

struct ErrorCase {
  std::string text;
  std::vector<TensorType> inputs;
  std::string message;  ///< the whole message
};

std::string many_steps(int n) {
  std::string text = "neg($0)";
  for (int k = 1; k < n; ++k) text += "; neg(#" + std::to_string(k - 1) + ")";
  return text;
}

TEST_CASE("fused expr errors name the step and say what is wrong") {
  const std::vector<TensorType> one = {f32({4})}, two = {f32({4}), f32({4})};
  const std::vector<ErrorCase> cases = {
      {"", one, "expr is empty"},
      {"frob($0)", one, "step 0 'frob($0)': unknown op 'frob'"},
      {"relu($0); sum(#0)", one, "step 1 'sum(#0)': sum is not an elementwise op"},
      {"softmax($0)", one, "step 0 'softmax($0)': softmax is not an elementwise op"},
      {"gemm($0, $1)", two, "step 0 'gemm($0, $1)': gemm is not an elementwise op"},
      {"fused_elementwise($0)", one,
       "step 0 'fused_elementwise($0)': fused_elementwise is not an elementwise op"},
      {"relu($0); relu(#0); mul(#3, $0)", one, "step 2 'mul(#3, $0)': #3 refers to a later step"},
      {"relu(#0)", one, "step 0 'relu(#0)': #0 refers to its own step"},
      {"add($0, $2)", two, "step 0 'add($0, $2)': $2 is out of range: the node has 2 input(s)"},
      {"mul($0)", one, "step 0 'mul($0)': mul takes 2 operand(s), got 1"},
      {"relu($0, $0)", one, "step 0 'relu($0, $0)': relu takes 1 operand(s), got 2"},
      {"add($0, $0, $0, $0)", one, "step 0 'add($0, $0, $0, $0)': add takes 2 operand(s), got 4"},
      {"relu($1)", two, "input $0 is not read by any step"},
      {"relu($0); relu($1); add($0, $1)", two,
       "step 0 'relu($0)': its result is not read by a later step"},
      {many_steps(kMaxFusedSteps + 1), one, "expr has more than 64 steps"},
      {"relu($0)", std::vector<TensorType>(kMaxFusedInputs + 1, f32({4})),
       "33 inputs, more than the limit of 32"},
      {"gelu($0)",
       {i32({4})},
       "step 0 'gelu($0)': gelu: expects floating-point operands, got i32[4]"},
      {"add($0, $1)",
       {f32({4}), f32({5})},
       "step 0 'add($0, $1)': add: operand shapes do not broadcast (f32[4], f32[5])"},
      {"where($0, $0)", one, "step 0 'where($0, $0)': where takes 3 operand(s), got 2"},
      // brackets: the values of the op's attributes, in schema order
      {"cast($0)", one,
       "step 0 'cast($0)': cast needs its attribute values in brackets, as in cast[f16]"},
      {"cast[f99]($0)", one, "step 0 'cast[f99]($0)': bad dtype 'f99' for cast's attribute dtype"},
      {"cast[]($0)", one, "step 0 'cast[]($0)': bad dtype '' for cast's attribute dtype"},
      {"relu[none]($0)", one, "step 0 'relu[none]($0)': relu takes no attribute in brackets"},
      {"gelu[tanh]($0)", one, "step 0 'gelu[tanh]($0)': gelu takes no attribute in brackets"},
      {"cast[f16($0)", one, "step 0 'cast[f16($0)': expected ']' after cast's attribute values"},
      // garbage and non-canonical spelling
      {"relu", one, "step 0 'relu': expected '(' after the op"},
      {"relu(", one, "step 0 'relu(': expected an operand ($i or #k)"},
      {"relu($0", one, "step 0 'relu($0': expected ', ' or ')' after an operand"},
      {"relu($0)x", one, "step 0 'relu($0)x': expected '; ' or the end of the expr after ')'"},
      {"relu($0);neg(#0)", one,
       "step 0 'relu($0)': expected '; ' or the end of the expr after ')'"},
      {"relu($0); ", one, "step 1 '': expected an op name"},  // a trailing separator
      {"relu($0);  neg(#0)", one, "step 1 ' neg(#0)': expected an op name"},
      {" relu($0)", one, "step 0 ' relu($0)': expected an op name"},
      {"relu( $0)", one, "step 0 'relu( $0)': expected an operand ($i or #k)"},
      {"add($0,$0)", one, "step 0 'add($0,$0)': expected ', ' or ')' after an operand"},
      {"relu(%0)", one, "step 0 'relu(%0)': expected an operand ($i or #k)"},
      {"relu($)", one, "step 0 'relu($)': expected digits after '$'"},
      {"relu($-1)", one, "step 0 'relu($-1)': expected digits after '$'"},
      {"relu($00)", one, "step 0 'relu($00)': operand $00 has a leading zero"},
      {"RELU($0)", one, "step 0 'RELU($0)': unknown op 'RELU'"},
      {"\x01\xff", one, "step 0 '\\x01\\xff': expected an op name"},
      {"relu($0); neg(#0) \n", one,
       "step 1 'neg(#0) \\x0a': expected '; ' or the end of the expr after ')'"},
      // integers past every bound saturate instead of overflowing
      {"relu($99999999999999999999999999)", one,
       "step 0 'relu($99999999999999999999999999)': $99999999999999999999999999 is out of range: "
       "the node has 1 input(s)"},
      {"relu($0); neg(#18446744073709551616)", one,
       "step 1 'neg(#18446744073709551616)': #18446744073709551616 refers to a later step"},
      {"relu($2147483648)", one,
       "step 0 'relu($2147483648)': $2147483648 is out of range: the node has 1 input(s)"},
  };
  for (const ErrorCase& c : cases) {
    INFO("text: " << c.text);
    Expected<FusedExpr> expr = parse_fused_expr(c.text, c.inputs);
    REQUIRE_FALSE(expr.has_value());
    CHECK(expr.status().code() == ErrorCode::kInvalidInput);
    CHECK(expr.status().message() == c.message);
  }
}

TEST_CASE("fused expr bounds untrusted text") {
  const std::vector<TensorType> one = {f32({4})};
  // Too long: refused before anything is read.
  const std::string long_text(kMaxFusedExprBytes + 1, 'x');
  Expected<FusedExpr> expr = parse_fused_expr(long_text, one);
  REQUIRE_FALSE(expr.has_value());
  CHECK(expr.status().message() == "expr has 4097 bytes, more than the limit of 4096");
  // A long unknown op name, and a huge operand list, are quoted shortened in the message.
  expr = parse_fused_expr(std::string(4000, 'a') + "($0)", one);
  REQUIRE_FALSE(expr.has_value());
  CHECK(expr.status().message() ==
        "step 0 '" + std::string(40, 'a') + "...': unknown op '" + std::string(40, 'a') + "...'");
  std::string operands = "add($0";
  while (operands.size() < kMaxFusedExprBytes - 10) operands += ", $0";
  expr = parse_fused_expr(operands + ")", one);
  REQUIRE_FALSE(expr.has_value());
  const std::string count = std::to_string(1 + (operands.size() - 6) / 4);
  CHECK(expr.status().message().find("add takes 2 operand(s), got " + count) != std::string::npos);
  CHECK(expr.status().message().size() < 120);
}

TEST_CASE("corrupted fused exprs never crash, and what parses is canonical") {
  const std::vector<TensorType> inputs = {f32({2, 3}), f16({3}), i32({1})};
  const std::string valid =
      "cast[f32]($1); add($0, #0); gelu_tanh(#1); cast[f32]($2); mul(#2, #3); neg(#4)";
  REQUIRE(parse_fused_expr(valid, inputs).has_value());
  const std::string alphabet =
      std::string("$#0123456789(),; []abcdefghijklmnopqrstuvwxyz_") + '\0' + '\xff';
  uint64_t state = 42;
  auto next = [&](uint64_t bound) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (state >> 33) % bound;
  };
  int accepted = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string text = valid;
    for (uint64_t edits = 1 + next(3); edits > 0; --edits) {
      const size_t at = next(text.size() + 1);
      const char c = alphabet[next(alphabet.size())];
      switch (next(4)) {
        case 0:
          if (at < text.size()) text[at] = c;
          break;
        case 1:
          text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), c);
          break;
        case 2:
          if (at < text.size()) text.erase(at, 1);
          break;
        default:
          text.resize(at);
          break;
      }
    }
    INFO("text: " << text);
    Expected<FusedExpr> expr = parse_fused_expr(text, inputs);
    if (expr) {
      ++accepted;
      CHECK(fused_expr_to_string(*expr) == text);
    } else {
      const std::string& message = expr.status().message();
      CHECK((message.starts_with("step ") || message.starts_with("input $") ||
             message == "expr is empty"));
    }
  }
  CHECK(accepted > 0);  // some edits keep the text valid (e.g. another digit or op)
}

}  // namespace
}  // namespace inferno::ir
