// The cleanup passes (cse, fold-constants, dce): IR text in, IR text out, and the same numbers
// before and after on the reference interpreter.
#include <string>

#include "passes_helpers.h"
#include "support/catch.h"

namespace inferno {
namespace {

using test::check_pass;

TEST_CASE("cse merges equal constants and equal nodes") {
  check_pass({"cse"}, R"(
graph(%x: f32[4]) {
  %half: f32[] = constant [0.5]
  %half_1: f32[] = constant [0.5]
  %two: f32[] = constant [2.0]
  %a: f32[4] = mul(%x, %half)
  %b: f32[4] = mul(%x, %half_1)
  %c: f32[4] = add(%a, %b)
  %d: f32[4] = gelu(%c)
  %e: f32[4] = gelu_tanh(%c)
  %f: f32[4] = gelu(%c)
  %g: f32[4] = mul(%d, %two)
  return %g, %e, %f
})",
             R"(
graph(%x: f32[4]) {
  %half: f32[] = constant [0.5]
  %two: f32[] = constant [2.0]
  %a: f32[4] = mul(%x, %half)
  %c: f32[4] = add(%a, %a)
  %d: f32[4] = gelu(%c)
  %e: f32[4] = gelu_tanh(%c)
  %g: f32[4] = mul(%d, %two)
  return %g, %e, %d
})");
}

TEST_CASE("cse keeps constants of equal bytes but different types apart") {
  // 0.0f and int32 0 have the same four bytes.
  const std::string text = R"(
graph(%x: f32[2], %i: i32[2]) {
  %zf: f32[] = constant [0.0]
  %zi: i32[] = constant [0]
  %a: f32[2] = add(%x, %zf)
  %b: i32[2] = add(%i, %zi)
  return %a, %b
})";
  check_pass({"cse"}, text, text);
}

TEST_CASE("fold-constants evaluates constant subgraphs and dce drops what is unused") {
  check_pass({"fold-constants", "dce"}, R"(
graph(%x: f32[2]) {
  %s: f32[2] = constant [1.0, 2.0]
  %one: f32[] = constant [1.0]
  %unused: f32[2] = constant [5.0, 6.0]
  %t: f32[2] = add(%s, %one)
  %y: f32[2] = mul(%x, %t)
  %dead: f32[2] = exp(%x)
  return %y
})",
             R"(
graph(%x: f32[2]) {
  %t_1: f32[2] = constant [2.0, 3.0]
  %y: f32[2] = mul(%x, %t_1)
  return %y
})");  // the folded value is a new constant; its node's output keeps the name %t
}

}  // namespace
}  // namespace inferno
