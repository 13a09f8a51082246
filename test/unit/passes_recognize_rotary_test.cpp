// recognize-rotary: Hugging Face's apply_rotary_pos_emb written out becomes rotary. rotary rounds
// each element once where the written-out form rounds the two products and the sum, so f32
// compares at fp32 tolerances and f16 at f16's. Near misses (another split, GPT-J's interleaved
// pairs, rotate_half of another tensor, cos that widens the product) stay as they are.
#include <string>

#include "passes_helpers.h"
#include "support/catch.h"

namespace inferno {
namespace {

using test::check_pass;
using test::check_unchanged;

constexpr test::Tolerance kF16{1e-3, 1e-3};

// Llama's q: [B, H, S, D] permuted from a projection, cos and sin [B, 1, S, D] over the heads.
const char* kLlamaQ = R"(
graph(%p: f32[1,3,32], %cos: f32[1,1,3,16], %sin: f32[1,1,3,16]) {
  %r: f32[1,3,2,16] = reshape(%p) {shape=[1, 3, 2, 16]}
  %q: f32[1,2,3,16] = permute(%r) {dims=[0, 2, 1, 3]}
  %qc: f32[1,2,3,16] = mul(%q, %cos)
  %x1: f32[1,2,3,8] = slice(%q) {starts=[0, 0, 0, 0], ends=[1, 2, 3, 8], steps=[1, 1, 1, 1]}
  %x2: f32[1,2,3,8] = slice(%q) {starts=[0, 0, 0, 8], ends=[1, 2, 3, 16], steps=[1, 1, 1, 1]}
  %n: f32[1,2,3,8] = neg(%x2)
  %rh: f32[1,2,3,16] = cat(%n, %x1) {dim=3}
  %rs: f32[1,2,3,16] = mul(%rh, %sin)
  %y: f32[1,2,3,16] = add(%qc, %rs)
  return %y
})";

TEST_CASE("recognize-rotary: Llama's q, permuted, cos and sin broadcast over the heads") {
  check_pass({"recognize-rotary", "dce"}, kLlamaQ, R"(
graph(%p: f32[1,3,32], %cos: f32[1,1,3,16], %sin: f32[1,1,3,16]) {
  %r: f32[1,3,2,16] = reshape(%p) {shape=[1, 3, 2, 16]}
  %q: f32[1,2,3,16] = permute(%r) {dims=[0, 2, 1, 3]}
  %y: f32[1,2,3,16] = rotary(%q, %cos, %sin) {rotary_dim=16}
  return %y
})",
             test::kFp32);
}

TEST_CASE("recognize-rotary: f16, operands swapped, mul by -1, cos and sin cast from f32") {
  check_pass({"recognize-rotary", "dce"}, R"(
graph(%x: f16[2,4,8], %c: f32[4,8], %s: f32[4,8]) {
  %minus: f16[] = constant [-1.0]
  %cos: f16[4,8] = cast(%c) {dtype=f16}
  %sin: f16[4,8] = cast(%s) {dtype=f16}
  %x1: f16[2,4,4] = slice(%x) {starts=[0, 0, 0], ends=[2, 4, 4], steps=[1, 1, 1]}
  %x2: f16[2,4,4] = slice(%x) {starts=[0, 0, 4], ends=[2, 4, 8], steps=[1, 1, 1]}
  %n: f16[2,4,4] = mul(%minus, %x2)
  %rh: f16[2,4,8] = cat(%n, %x1) {dim=2}
  %rs: f16[2,4,8] = mul(%sin, %rh)
  %xc: f16[2,4,8] = mul(%cos, %x)
  %y: f16[2,4,8] = add(%rs, %xc)
  return %y
})",
             R"(
graph(%x: f16[2,4,8], %c: f32[4,8], %s: f32[4,8]) {
  %cos: f16[4,8] = cast(%c) {dtype=f16}
  %sin: f16[4,8] = cast(%s) {dtype=f16}
  %y: f16[2,4,8] = rotary(%x, %cos, %sin) {rotary_dim=8}
  return %y
})",
             kF16);
}

TEST_CASE("recognize-rotary: Phi's partial rotary joins the pass-through part into the node") {
  check_pass({"recognize-rotary", "dce"}, R"(
graph(%x: f32[2,3,10], %cos: f32[3,6], %sin: f32[3,6]) {
  %xr: f32[2,3,6] = slice(%x) {starts=[0, 0, 0], ends=[2, 3, 6], steps=[1, 1, 1]}
  %xp: f32[2,3,4] = slice(%x) {starts=[0, 0, 6], ends=[2, 3, 10], steps=[1, 1, 1]}
  %x1: f32[2,3,3] = slice(%xr) {starts=[0, 0, 0], ends=[2, 3, 3], steps=[1, 1, 1]}
  %x2: f32[2,3,3] = slice(%xr) {starts=[0, 0, 3], ends=[2, 3, 6], steps=[1, 1, 1]}
  %n: f32[2,3,3] = neg(%x2)
  %rh: f32[2,3,6] = cat(%n, %x1) {dim=2}
  %xc: f32[2,3,6] = mul(%xr, %cos)
  %rs: f32[2,3,6] = mul(%rh, %sin)
  %e: f32[2,3,6] = add(%xc, %rs)
  %y: f32[2,3,10] = cat(%e, %xp) {dim=2}
  return %y
})",
             R"(
graph(%x: f32[2,3,10], %cos: f32[3,6], %sin: f32[3,6]) {
  %y: f32[2,3,10] = rotary(%x, %cos, %sin) {rotary_dim=6}
  return %y
})",
             test::kFp32);
}

TEST_CASE("recognize-rotary: Phi-3's full rotary joined with an empty pass-through slice") {
  check_pass({"recognize-rotary", "dce"}, R"(
graph(%x: f32[2,3,8], %cos: f32[1,3,8], %sin: f32[1,3,8]) {
  %xp: f32[2,3,0] = slice(%x) {starts=[0, 0, 8], ends=[2, 3, 8], steps=[1, 1, 1]}
  %x1: f32[2,3,4] = slice(%x) {starts=[0, 0, 0], ends=[2, 3, 4], steps=[1, 1, 1]}
  %x2: f32[2,3,4] = slice(%x) {starts=[0, 0, 4], ends=[2, 3, 8], steps=[1, 1, 1]}
  %n: f32[2,3,4] = neg(%x2)
  %rh: f32[2,3,8] = cat(%n, %x1) {dim=2}
  %xc: f32[2,3,8] = mul(%x, %cos)
  %rs: f32[2,3,8] = mul(%rh, %sin)
  %e: f32[2,3,8] = add(%xc, %rs)
  %y: f32[2,3,8] = cat(%e, %xp) {dim=2}
  return %y
})",
             R"(
graph(%x: f32[2,3,8], %cos: f32[1,3,8], %sin: f32[1,3,8]) {
  %y: f32[2,3,8] = rotary(%x, %cos, %sin) {rotary_dim=8}
  return %y
})",
             test::kFp32);
}

TEST_CASE("recognize-rotary: the pipeline turns Llama's q into one rotary kernel") {
  check_pass({"canonicalize", "recognize-rotary", "dce"}, kLlamaQ, R"(
graph(%p: f32[1,3,32], %cos: f32[1,1,3,16], %sin: f32[1,1,3,16]) {
  %r: f32[1,3,2,16] = reshape(%p) {shape=[1, 3, 2, 16]}
  %q: f32[1,2,3,16] = permute(%r) {dims=[0, 2, 1, 3]}
  %y: f32[1,2,3,16] = rotary(%q, %cos, %sin) {rotary_dim=16}
  return %y
})",
             test::kFp32);
}

TEST_CASE("recognize-rotary: leaves the halves swapped the other way alone") {
  // cat(x1, -x2) is rotate_half's inverse, not rotate_half.
  check_unchanged({"recognize-rotary"}, R"(
graph(%x: f32[2,8], %cos: f32[2,8], %sin: f32[2,8]) {
  %x1: f32[2,4] = slice(%x) {starts=[0, 0], ends=[2, 4], steps=[1, 1]}
  %x2: f32[2,4] = slice(%x) {starts=[0, 4], ends=[2, 8], steps=[1, 1]}
  %n: f32[2,4] = neg(%x2)
  %rh: f32[2,8] = cat(%x1, %n) {dim=1}
  %xc: f32[2,8] = mul(%x, %cos)
  %rs: f32[2,8] = mul(%rh, %sin)
  %y: f32[2,8] = add(%xc, %rs)
  return %y
})");
}

TEST_CASE("recognize-rotary: leaves GPT-J's interleaved pairs alone") {
  check_unchanged({"recognize-rotary"}, R"(
graph(%x: f32[2,8], %cos: f32[2,8], %sin: f32[2,8]) {
  %even: f32[2,4] = slice(%x) {starts=[0, 0], ends=[2, 8], steps=[1, 2]}
  %odd: f32[2,4] = slice(%x) {starts=[0, 1], ends=[2, 8], steps=[1, 2]}
  %n: f32[2,4] = neg(%odd)
  %rh: f32[2,8] = cat(%n, %even) {dim=1}
  %xc: f32[2,8] = mul(%x, %cos)
  %rs: f32[2,8] = mul(%rh, %sin)
  %y: f32[2,8] = add(%xc, %rs)
  return %y
})");
}

TEST_CASE("recognize-rotary: leaves a split that is not at the half alone") {
  check_unchanged({"recognize-rotary"}, R"(
graph(%x: f32[2,8], %cos: f32[2,8], %sin: f32[2,8]) {
  %x1: f32[2,3] = slice(%x) {starts=[0, 0], ends=[2, 3], steps=[1, 1]}
  %x2: f32[2,5] = slice(%x) {starts=[0, 3], ends=[2, 8], steps=[1, 1]}
  %n: f32[2,5] = neg(%x2)
  %rh: f32[2,8] = cat(%n, %x1) {dim=1}
  %xc: f32[2,8] = mul(%x, %cos)
  %rs: f32[2,8] = mul(%rh, %sin)
  %y: f32[2,8] = add(%xc, %rs)
  return %y
})");
}

TEST_CASE("recognize-rotary: leaves rotate_half of another tensor than the one times cos alone") {
  check_unchanged({"recognize-rotary"}, R"(
graph(%x: f32[2,8], %z: f32[2,8], %cos: f32[2,8], %sin: f32[2,8]) {
  %x1: f32[2,4] = slice(%z) {starts=[0, 0], ends=[2, 4], steps=[1, 1]}
  %x2: f32[2,4] = slice(%z) {starts=[0, 4], ends=[2, 8], steps=[1, 1]}
  %n: f32[2,4] = neg(%x2)
  %rh: f32[2,8] = cat(%n, %x1) {dim=1}
  %xc: f32[2,8] = mul(%x, %cos)
  %rs: f32[2,8] = mul(%rh, %sin)
  %y: f32[2,8] = add(%xc, %rs)
  return %y
})");
}

TEST_CASE("recognize-rotary: leaves halves taken from two different tensors alone") {
  check_unchanged({"recognize-rotary"}, R"(
graph(%x: f32[2,8], %z: f32[2,8], %cos: f32[2,8], %sin: f32[2,8]) {
  %x1: f32[2,4] = slice(%z) {starts=[0, 0], ends=[2, 4], steps=[1, 1]}
  %x2: f32[2,4] = slice(%x) {starts=[0, 4], ends=[2, 8], steps=[1, 1]}
  %n: f32[2,4] = neg(%x2)
  %rh: f32[2,8] = cat(%n, %x1) {dim=1}
  %xc: f32[2,8] = mul(%x, %cos)
  %rs: f32[2,8] = mul(%rh, %sin)
  %y: f32[2,8] = add(%xc, %rs)
  return %y
})");
}

TEST_CASE("recognize-rotary: leaves a negation by another constant than -1 alone") {
  check_unchanged({"recognize-rotary"}, R"(
graph(%x: f32[2,8], %cos: f32[2,8], %sin: f32[2,8]) {
  %m: f32[] = constant [-2.0]
  %x1: f32[2,4] = slice(%x) {starts=[0, 0], ends=[2, 4], steps=[1, 1]}
  %x2: f32[2,4] = slice(%x) {starts=[0, 4], ends=[2, 8], steps=[1, 1]}
  %n: f32[2,4] = mul(%x2, %m)
  %rh: f32[2,8] = cat(%n, %x1) {dim=1}
  %xc: f32[2,8] = mul(%x, %cos)
  %rs: f32[2,8] = mul(%rh, %sin)
  %y: f32[2,8] = add(%xc, %rs)
  return %y
})");
}

TEST_CASE("recognize-rotary: leaves cos and sin that widen the product alone") {
  // cos [3,2,8] broadcasts x [2,8] up to three rows: not x's shape.
  check_unchanged({"recognize-rotary"}, R"(
graph(%x: f32[2,8], %cos: f32[3,2,8], %sin: f32[3,2,8]) {
  %x1: f32[2,4] = slice(%x) {starts=[0, 0], ends=[2, 4], steps=[1, 1]}
  %x2: f32[2,4] = slice(%x) {starts=[0, 4], ends=[2, 8], steps=[1, 1]}
  %n: f32[2,4] = neg(%x2)
  %rh: f32[2,8] = cat(%n, %x1) {dim=1}
  %xc: f32[3,2,8] = mul(%x, %cos)
  %rs: f32[3,2,8] = mul(%rh, %sin)
  %y: f32[3,2,8] = add(%xc, %rs)
  return %y
})");
}

TEST_CASE("recognize-rotary: leaves a cos of one column per row alone") {
  // cos [2,1] broadcasts along the last dim: rotary's cos holds one value per rotated element.
  check_unchanged({"recognize-rotary"}, R"(
graph(%x: f32[2,8], %cos: f32[2,1], %sin: f32[2,8]) {
  %x1: f32[2,4] = slice(%x) {starts=[0, 0], ends=[2, 4], steps=[1, 1]}
  %x2: f32[2,4] = slice(%x) {starts=[0, 4], ends=[2, 8], steps=[1, 1]}
  %n: f32[2,4] = neg(%x2)
  %rh: f32[2,8] = cat(%n, %x1) {dim=1}
  %xc: f32[2,8] = mul(%x, %cos)
  %rs: f32[2,8] = mul(%rh, %sin)
  %y: f32[2,8] = add(%xc, %rs)
  return %y
})");
}

TEST_CASE("recognize-rotary: leaves a pass-through part from another tensor alone") {
  check_pass({"recognize-rotary", "dce"}, R"(
graph(%x: f32[2,10], %z: f32[2,10], %cos: f32[2,6], %sin: f32[2,6]) {
  %xr: f32[2,6] = slice(%x) {starts=[0, 0], ends=[2, 6], steps=[1, 1]}
  %zp: f32[2,4] = slice(%z) {starts=[0, 6], ends=[2, 10], steps=[1, 1]}
  %x1: f32[2,3] = slice(%xr) {starts=[0, 0], ends=[2, 3], steps=[1, 1]}
  %x2: f32[2,3] = slice(%xr) {starts=[0, 3], ends=[2, 6], steps=[1, 1]}
  %n: f32[2,3] = neg(%x2)
  %rh: f32[2,6] = cat(%n, %x1) {dim=1}
  %xc: f32[2,6] = mul(%xr, %cos)
  %rs: f32[2,6] = mul(%rh, %sin)
  %e: f32[2,6] = add(%xc, %rs)
  %y: f32[2,10] = cat(%e, %zp) {dim=1}
  return %y
})",
             R"(
graph(%x: f32[2,10], %z: f32[2,10], %cos: f32[2,6], %sin: f32[2,6]) {
  %xr: f32[2,6] = slice(%x) {starts=[0, 0], ends=[2, 6], steps=[1, 1]}
  %zp: f32[2,4] = slice(%z) {starts=[0, 6], ends=[2, 10], steps=[1, 1]}
  %e: f32[2,6] = rotary(%xr, %cos, %sin) {rotary_dim=6}
  %y: f32[2,10] = cat(%e, %zp) {dim=1}
  return %y
})",
             test::kFp32);
}

}  // namespace
}  // namespace inferno
