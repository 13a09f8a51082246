// simplify: IR text in, IR text out, and bit-identical outputs on the reference interpreter.
#include <cmath>
#include <string>
#include <vector>

#include "passes/pipeline.h"
#include "passes_helpers.h"
#include "reference/interpreter.h"
#include "support/catch.h"

namespace inferno {
namespace {

using test::check_pass;
using test::check_unchanged;

TEST_CASE("simplify removes multiplications and divisions by one and exact additions of zero") {
  check_pass({"simplify"}, R"(
graph(%x: f32[4,8], %i: i32[4,8]) {
  %one: f32[] = constant [1.0]
  %ones: f32[1,8] = constant [1, 1, 1, 1, 1, 1, 1, 1]
  %neg_zero: f32[] = constant [-0.0]
  %zero: f32[] = constant [0.0]
  %izero: i32[] = constant [0]
  %a: f32[4,8] = mul(%x, %one)
  %b: f32[4,8] = mul(%ones, %a)
  %c: f32[4,8] = div(%b, %one)
  %d: f32[4,8] = add(%c, %neg_zero)
  %e: f32[4,8] = add(%neg_zero, %d)
  %f: f32[4,8] = sub(%e, %zero)
  %g: i32[4,8] = add(%izero, %i)
  %h: i32[4,8] = sub(%g, %izero)
  %k: i32[4,8] = mul(%h, %izero)
  return %f, %k
})",
             R"(
graph(%x: f32[4,8], %i: i32[4,8]) {
  %izero: i32[] = constant [0]
  %k: i32[4,8] = mul(%i, %izero)
  return %x, %k
})");
}

TEST_CASE("simplify keeps identities that would change the result's type, shape or bits") {
  check_unchanged({"simplify"}, R"(
graph(%x: f32[4,8], %v: f32[8], %h: f16[8], %i: i32[4,8]) {
  %zero: f32[] = constant [0.0]
  %neg_zero: f32[] = constant [-0.0]
  %izero: i32[] = constant [0]
  %one: f32[] = constant [1.0]
  %two: f32[] = constant [2.0]
  %ones8: f32[8] = constant [1, 1, 1, 1, 1, 1, 1, 1]
  %ones28: f32[2,8] = constant [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
  %almost: f32[1,8] = constant [1, 1, 1, 1, 1, 1, 1, 1.00000012]
  %a: f32[4,8] = add(%x, %zero)
  %b: f32[4,8] = sub(%x, %neg_zero)
  %c: f32[4,8] = add(%x, %izero)
  %d: f32[2,8] = mul(%v, %ones28)
  %e: f32[8] = mul(%h, %ones8)
  %f: f32[4,8] = div(%i, %one)
  %g: f32[4,8] = sub(%zero, %x)
  %k: f32[4,8] = div(%one, %x)
  %l: f32[4,8] = mul(%x, %two)
  %m: f32[4,8] = mul(%x, %almost)
  return %a, %b, %c, %d, %e, %f, %g, %k, %l, %m
})");
}

// -0 + +0 = +0 in IEEE 754, so `x + 0.0` is not x: 1 / (x + 0.0) is +inf for x = -0, where 1 / x
// is -inf. simplify keeps it.
TEST_CASE("simplify keeps x + 0.0 because it turns -0 into +0") {
  const std::string text = R"(
graph(%x: f32[2]) {
  %zero: f32[] = constant [0.0]
  %one: f32[] = constant [1.0]
  %y: f32[2] = add(%x, %zero)
  %r: f32[2] = div(%one, %y)
  return %r
})";
  check_unchanged({"simplify"}, text);
  ir::Tensor x = ir::Tensor::zeros({ir::DType::kF32, {2}});
  x.set(0, -0.0);
  x.set(1, 2.0);
  auto r = reference::evaluate(test::parse(text), {x});
  REQUIRE(r.has_value());
  CHECK((*r)[0].get(0) == INFINITY);
  CHECK((*r)[0].get(1) == 0.5);
}

TEST_CASE("simplify removes neg(neg(x)), relu(relu(x)), abs(abs(x)) and casts to the same dtype") {
  check_pass({"simplify"}, R"(
graph(%x: f32[4], %i: i64[4]) {
  %n1: f32[4] = neg(%x)
  %n2: f32[4] = neg(%n1)
  %n3: f32[4] = neg(%n2)
  %r1: f32[4] = relu(%x)
  %r2: f32[4] = relu(%r1)
  %a1: i64[4] = abs(%i)
  %a2: i64[4] = abs(%a1)
  %c1: f32[4] = cast(%x) {dtype=f32}
  %c2: f16[4] = cast(%x) {dtype=f16}
  %c3: f32[4] = cast(%c2) {dtype=f32}
  return %n2, %n3, %r2, %a2, %c1, %c3
})",
             R"(
graph(%x: f32[4], %i: i64[4]) {
  %n1: f32[4] = neg(%x)
  %n3: f32[4] = neg(%x)
  %r1: f32[4] = relu(%x)
  %a1: i64[4] = abs(%i)
  %c2: f16[4] = cast(%x) {dtype=f16}
  %c3: f32[4] = cast(%c2) {dtype=f32}
  return %x, %n3, %r1, %a1, %x, %c3
})");
}

TEST_CASE("simplify removes a relu after gemm{relu} but not after gemm{gelu}") {
  check_pass({"simplify"}, R"(
graph(%a: f32[4,8], %w: f32[6,8]) {
  %g: f32[4,6] = gemm(%a, %w) {activation="relu", alpha=1.0, beta=1.0, trans_b=true}
  %r: f32[4,6] = relu(%g)
  %h: f32[4,6] = gemm(%a, %w) {activation="gelu", alpha=1.0, beta=1.0, trans_b=true}
  %s: f32[4,6] = relu(%h)
  return %r, %s
})",
             R"(
graph(%a: f32[4,8], %w: f32[6,8]) {
  %g: f32[4,6] = gemm(%a, %w) {activation="relu", alpha=1.0, beta=1.0, trans_b=true}
  %h: f32[4,6] = gemm(%a, %w) {activation="gelu", alpha=1.0, beta=1.0, trans_b=true}
  %s: f32[4,6] = relu(%h)
  return %g, %s
})");
}

// Removing neg(neg(...)) leaves permute(permute(x)), which canonicalize would merge: simplify does
// it too, so that canonicalize -> simplify leaves a canonical graph.
TEST_CASE("simplify keeps the graph canonical") {
  check_pass({"simplify", "dce"}, R"(
graph(%x: f32[2,3]) {
  %p: f32[3,2] = permute(%x) {dims=[1, 0]}
  %n: f32[3,2] = neg(%p)
  %m: f32[3,2] = neg(%n)
  %q: f32[2,3] = permute(%m) {dims=[1, 0]}
  %e: f32[2,3] = exp(%q)
  return %e
})",
             R"(
graph(%x: f32[2,3]) {
  %e: f32[2,3] = exp(%x)
  return %e
})");
}

}  // namespace
}  // namespace inferno
