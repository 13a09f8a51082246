// fuse-epilogues: IR text in, IR text out, and the outputs on the reference interpreter. A folded
// relu or gelu is bit-identical (the reference gemm rounds before its activation, as the unfused
// graph does); a folded add or scale rounds once where the unfused graph rounded twice, so those
// compare at fp32 tolerance (rtol 1.3e-6, atol 1e-5).
#include <string>

#include "passes_helpers.h"
#include "support/catch.h"

namespace inferno {
namespace {

using test::check_pass;
using test::check_unchanged;

TEST_CASE("fuse-epilogues folds relu and gelu into the gemm's activation") {
  check_pass({"fuse-epilogues"}, R"(
graph(%x: f32[4,8], %w: f32[6,8], %b: f32[6]) {
  %g1: f32[4,6] = gemm(%x, %w, %b) {activation="none", alpha=1.0, beta=1.0, trans_b=true} loc("model.py":10)
  %r: f32[4,6] = relu(%g1) loc("functional.py":20)
  %g2: f32[4,6] = gemm(%x, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %e: f32[4,6] = gelu(%g2)
  %g3: f32[4,6] = gemm(%x, %w, %b) {activation="none", alpha=0.5, beta=2.0, trans_b=true}
  %t: f32[4,6] = gelu_tanh(%g3)
  return %r, %e, %t
})",
             R"(
graph(%x: f32[4,8], %w: f32[6,8], %b: f32[6]) {
  %r: f32[4,6] = gemm(%x, %w, %b) {activation="relu", alpha=1.0, beta=1.0, trans_b=true} loc("model.py":10)
  %e: f32[4,6] = gemm(%x, %w) {activation="gelu", alpha=1.0, beta=1.0, trans_b=true}
  %t: f32[4,6] = gemm(%x, %w, %b) {activation="gelu_tanh", alpha=0.5, beta=2.0, trans_b=true}
  return %r, %e, %t
})");
}

TEST_CASE("fuse-epilogues folds a residual add and then the relu: x + linear(y) is one gemm") {
  check_pass({"fuse-epilogues"}, R"(
graph(%x: f32[4,6], %y: f32[4,8], %w: f32[6,8], %b: f32[6]) {
  %lin: f32[4,6] = gemm(%y, %w, %b) {activation="none", alpha=1.0, beta=1.0, trans_b=true} loc("model.py":1)
  %res: f32[4,6] = add(%x, %lin) loc("model.py":2)
  %out: f32[4,6] = relu(%res) loc("model.py":3)
  return %out
})",
             R"(
graph(%x: f32[4,6], %y: f32[4,8], %w: f32[6,8], %b: f32[6]) {
  %out: f32[4,6] = gemm(%y, %w, %b, %x) {activation="relu", alpha=1.0, beta=1.0, trans_b=true} loc("model.py":1)
  return %out
})",
             test::kFp32);
}

TEST_CASE(
    "fuse-epilogues makes an added bias c, then a second addend d, at the consumer's position") {
  check_pass({"fuse-epilogues"}, R"(
graph(%x: f32[2,4,6], %y: f32[2,4,8], %w: f32[8,6], %b: f32[1,6]) {
  %g: f32[2,4,6] = gemm(%y, %w) {activation="none", alpha=2.0, beta=3.0, trans_b=false}
  %biased: f32[2,4,6] = add(%g, %b)
  %r: f32[2,4,6] = exp(%x)
  %sum: f32[2,4,6] = add(%r, %biased)
  return %sum
})",
             R"(
graph(%x: f32[2,4,6], %y: f32[2,4,8], %w: f32[8,6], %b: f32[1,6]) {
  %r: f32[2,4,6] = exp(%x)
  %sum: f32[2,4,6] = gemm(%y, %w, %b, %r) {activation="none", alpha=2.0, beta=1.0, trans_b=false}
  return %sum
})",
             test::kFp32);
}

TEST_CASE("fuse-epilogues folds multiplication and division by a constant into alpha and beta") {
  check_pass({"fuse-epilogues"}, R"(
graph(%y: f32[4,8], %w: f32[6,8], %b: f32[6]) {
  %two: f32[] = constant [2.0]
  %four: f32[1] = constant [4.0]
  %three: f32[1,1] = constant [3.0]
  %g: f32[4,6] = gemm(%y, %w, %b) {activation="none", alpha=1.0, beta=0.5, trans_b=true}
  %m: f32[4,6] = mul(%two, %g)
  %d: f32[4,6] = div(%m, %four)
  %h: f32[4,6] = gemm(%y, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %s: f32[4,6] = mul(%h, %three)
  return %d, %s
})",
             R"(
graph(%y: f32[4,8], %w: f32[6,8], %b: f32[6]) {
  %d: f32[4,6] = gemm(%y, %w, %b) {activation="none", alpha=0.5, beta=0.25, trans_b=true}
  %s: f32[4,6] = gemm(%y, %w) {activation="none", alpha=3.0, beta=1.0, trans_b=true}
  return %d, %s
})",
             test::kFp32);
}

TEST_CASE("fuse-epilogues folds nothing after an activation: relu after gelu stays") {
  check_pass({"fuse-epilogues"}, R"(
graph(%x: f32[4,8], %w: f32[6,8], %r: f32[4,6]) {
  %g: f32[4,6] = gemm(%x, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %e: f32[4,6] = gelu(%g)
  %f: f32[4,6] = relu(%e)
  %h: f32[4,6] = gemm(%x, %w) {activation="relu", alpha=1.0, beta=1.0, trans_b=true}
  %s: f32[4,6] = add(%h, %r)
  return %f, %s
})",
             R"(
graph(%x: f32[4,8], %w: f32[6,8], %r: f32[4,6]) {
  %e: f32[4,6] = gemm(%x, %w) {activation="gelu", alpha=1.0, beta=1.0, trans_b=true}
  %f: f32[4,6] = relu(%e)
  %h: f32[4,6] = gemm(%x, %w) {activation="relu", alpha=1.0, beta=1.0, trans_b=true}
  %s: f32[4,6] = add(%h, %r)
  return %f, %s
})");
}

TEST_CASE("fuse-epilogues leaves a gemm whose output is used twice or is a graph output") {
  check_unchanged({"fuse-epilogues"}, R"(
graph(%x: f32[4,8], %w: f32[6,8]) {
  %g: f32[4,6] = gemm(%x, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %r: f32[4,6] = relu(%g)
  %e: f32[4,6] = exp(%g)
  %h: f32[4,6] = gemm(%x, %w) {activation="none", alpha=2.0, beta=1.0, trans_b=true}
  %s: f32[4,6] = relu(%h)
  %k: f32[4,6] = gemm(%x, %w) {activation="none", alpha=3.0, beta=1.0, trans_b=true}
  %d: f32[4,6] = add(%k, %k)
  return %r, %e, %h, %s, %d
})");
}

TEST_CASE(
    "fuse-epilogues leaves adds that broadcast the gemm, change dtype or find no free addend") {
  check_unchanged({"fuse-epilogues"}, R"(
graph(%x: f32[4,8], %w: f32[6,8], %big: f32[2,4,6], %half: f16[4,6], %b: f32[6], %r: f32[4,6]) {
  %g1: f32[4,6] = gemm(%x, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %a1: f32[2,4,6] = add(%g1, %big)
  %g2: f32[4,6] = gemm(%x, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %a2: f32[4,6] = add(%half, %g2)
  %g3: f32[4,6] = gemm(%x, %w, %b, %r) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %a3: f32[4,6] = add(%g3, %r)
  %g4: f32[4,6] = gemm(%x, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %a4: f32[4,6] = sub(%g4, %r)
  return %a1, %a2, %a3, %a4
})");
}

TEST_CASE(
    "fuse-epilogues scales only by finite nonzero one-element constants, and never a residual") {
  check_unchanged({"fuse-epilogues"}, R"(
graph(%x: f32[4,8], %w: f32[6,8], %s: f32[], %r: f32[4,6], %b: f32[6]) {
  %zero: f32[] = constant [0.0]
  %inf: f32[] = constant [inf]
  %two: f32[] = constant [2.0]
  %vec: f32[6] = constant [1, 2, 3, 4, 5, 6]
  %g1: f32[4,6] = gemm(%x, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %m1: f32[4,6] = mul(%g1, %s)
  %g2: f32[4,6] = gemm(%x, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %m2: f32[4,6] = mul(%g2, %vec)
  %g3: f32[4,6] = gemm(%x, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %m3: f32[4,6] = mul(%g3, %zero)
  %g4: f32[4,6] = gemm(%x, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %m4: f32[4,6] = div(%g4, %inf)
  %g5: f32[4,6] = gemm(%x, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %m5: f32[4,6] = div(%two, %g5)
  %g6: f32[4,6] = gemm(%x, %w, %b, %r) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %m6: f32[4,6] = mul(%g6, %two)
  return %m1, %m2, %m3, %m4, %m5, %m6
})");
}

}  // namespace
}  // namespace inferno
