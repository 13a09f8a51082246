// recognize-gelu: GELU written out in elementwise ops becomes gelu_tanh or gelu. The recognized
// op computes in one step where the written-out form rounded each op, so the outputs compare at
// fp32 tolerances.
#include <string>

#include "passes_helpers.h"
#include "support/catch.h"

namespace inferno {
namespace {

using test::check_pass;
using test::check_unchanged;

// GPT-2's gelu_new as torch traces it: 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 *
// pow(x, 3.0)))).
const char* const kGpt2Gelu = R"(
graph(%x: f32[4,16]) {
  %half: f32[] = constant [0.5]
  %three: f32[] = constant [3.0]
  %c: f32[] = constant [0.044715]
  %s: f32[] = constant [0.7978845608028654]
  %one: f32[] = constant [1.0]
  %hx: f32[4,16] = mul(%half, %x)
  %p: f32[4,16] = pow(%x, %three)
  %cp: f32[4,16] = mul(%c, %p)
  %inner: f32[4,16] = add(%x, %cp)
  %scaled: f32[4,16] = mul(%s, %inner)
  %t: f32[4,16] = tanh(%scaled)
  %onet: f32[4,16] = add(%one, %t)
  %y: f32[4,16] = mul(%hx, %onet)
  return %y
})";

TEST_CASE("recognize-gelu turns GPT-2's tanh GELU into gelu_tanh") {
  check_pass({"recognize-gelu", "dce"}, kGpt2Gelu, R"(
graph(%x: f32[4,16]) {
  %y: f32[4,16] = gelu_tanh(%x)
  return %y
})",
             test::kFp32);
}

TEST_CASE("recognize-gelu: x * 0.5 with x * x * x and the sums the other way round") {
  check_pass({"recognize-gelu", "dce"}, R"(
graph(%x: f32[2,3,8]) {
  %half: f32[] = constant [0.5]
  %c: f32[] = constant [0.044715]
  %s: f32[] = constant [0.797884583]
  %one: f32[] = constant [1.0]
  %xh: f32[2,3,8] = mul(%x, %half)
  %x2: f32[2,3,8] = mul(%x, %x)
  %x3: f32[2,3,8] = mul(%x2, %x)
  %cx3: f32[2,3,8] = mul(%x3, %c)
  %inner: f32[2,3,8] = add(%cx3, %x)
  %scaled: f32[2,3,8] = mul(%inner, %s)
  %t: f32[2,3,8] = tanh(%scaled)
  %tone: f32[2,3,8] = add(%t, %one)
  %y: f32[2,3,8] = mul(%tone, %xh)
  return %y
})",
             R"(
graph(%x: f32[2,3,8]) {
  %y: f32[2,3,8] = gelu_tanh(%x)
  return %y
})",
             test::kFp32);
}

TEST_CASE("recognize-gelu turns the erf form into gelu, by / sqrt(2) or * (1 / sqrt(2))") {
  check_pass({"recognize-gelu", "dce"}, R"(
graph(%x: f32[4,8], %z: f32[4,8]) {
  %half: f32[] = constant [0.5]
  %r2: f32[] = constant [1.41421356]
  %ir2: f32[] = constant [0.707106781]
  %one: f32[] = constant [1.0]
  %xh: f32[4,8] = mul(%x, %half)
  %d: f32[4,8] = div(%x, %r2)
  %e: f32[4,8] = erf(%d)
  %onee: f32[4,8] = add(%one, %e)
  %y: f32[4,8] = mul(%xh, %onee)
  %m: f32[4,8] = mul(%z, %ir2)
  %e2: f32[4,8] = erf(%m)
  %onee2: f32[4,8] = add(%e2, %one)
  %zh: f32[4,8] = mul(%onee2, %half)
  %y2: f32[4,8] = mul(%z, %zh)
  return %y, %y2
})",
             R"(
graph(%x: f32[4,8], %z: f32[4,8]) {
  %y: f32[4,8] = gelu(%x)
  %y2: f32[4,8] = gelu(%z)
  return %y, %y2
})",
             test::kFp32);
}

TEST_CASE("recognize-gelu leaves wrong constants, other variables and broadcasts alone") {
  // 0.04 is not 0.044715.
  check_unchanged({"recognize-gelu"}, R"(
graph(%x: f32[4,16]) {
  %half: f32[] = constant [0.5]
  %three: f32[] = constant [3.0]
  %c: f32[] = constant [0.04]
  %s: f32[] = constant [0.7978845608028654]
  %one: f32[] = constant [1.0]
  %hx: f32[4,16] = mul(%half, %x)
  %p: f32[4,16] = pow(%x, %three)
  %cp: f32[4,16] = mul(%c, %p)
  %inner: f32[4,16] = add(%x, %cp)
  %scaled: f32[4,16] = mul(%s, %inner)
  %t: f32[4,16] = tanh(%scaled)
  %onet: f32[4,16] = add(%one, %t)
  %y: f32[4,16] = mul(%hx, %onet)
  return %y
})");
  // erf of another value than the one multiplied.
  check_unchanged({"recognize-gelu"}, R"(
graph(%x: f32[4,8], %z: f32[4,8]) {
  %half: f32[] = constant [0.5]
  %r2: f32[] = constant [1.41421356]
  %one: f32[] = constant [1.0]
  %xh: f32[4,8] = mul(%x, %half)
  %d: f32[4,8] = div(%z, %r2)
  %e: f32[4,8] = erf(%d)
  %onee: f32[4,8] = add(%one, %e)
  %y: f32[4,8] = mul(%xh, %onee)
  return %y
})");
  // x broadcasts against the bracket: the product is not x's type.
  check_unchanged({"recognize-gelu"}, R"(
graph(%x: f32[8], %z: f32[4,8]) {
  %half: f32[] = constant [0.5]
  %r2: f32[] = constant [1.41421356]
  %one: f32[] = constant [1.0]
  %xh: f32[8] = mul(%x, %half)
  %d: f32[4,8] = div(%z, %r2)
  %e: f32[4,8] = erf(%d)
  %onee: f32[4,8] = add(%one, %e)
  %y: f32[4,8] = mul(%xh, %onee)
  return %y
})");
}

TEST_CASE("recognize-gelu then fuse-epilogues: GPT-2's MLP activation goes into the gemm") {
  check_pass({"recognize-gelu", "dce", "fuse-epilogues"}, R"(
graph(%a: f32[4,8], %w: f32[8,16], %b: f32[16]) {
  %half: f32[] = constant [0.5]
  %three: f32[] = constant [3.0]
  %c: f32[] = constant [0.044715]
  %s: f32[] = constant [0.7978845608028654]
  %one: f32[] = constant [1.0]
  %x: f32[4,16] = gemm(%a, %w, %b) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  %hx: f32[4,16] = mul(%half, %x)
  %p: f32[4,16] = pow(%x, %three)
  %cp: f32[4,16] = mul(%c, %p)
  %inner: f32[4,16] = add(%x, %cp)
  %scaled: f32[4,16] = mul(%s, %inner)
  %t: f32[4,16] = tanh(%scaled)
  %onet: f32[4,16] = add(%one, %t)
  %y: f32[4,16] = mul(%hx, %onet)
  return %y
})",
             R"(
graph(%a: f32[4,8], %w: f32[8,16], %b: f32[16]) {
  %y: f32[4,16] = gemm(%a, %w, %b) {activation="gelu_tanh", alpha=1.0, beta=1.0, trans_b=false}
  return %y
})",
             test::kFp32);
}

}  // namespace
}  // namespace inferno
