// fold-batch-norm: IR text in, IR text out, and the outputs on the reference interpreter. The
// weights and scales are chosen so that the folded constants are exact (w * s and b * s + t are
// representable), which the expected text spells out; the folded graph rounds once where the
// original rounded after the conv, the mul and the add, so outputs compare at fp32 tolerance.
#include <string>

#include "passes_helpers.h"
#include "support/catch.h"

namespace inferno {
namespace {

using test::check_pass;
using test::check_unchanged;

TEST_CASE("fold-batch-norm folds scale and shift into a conv2d without bias") {
  check_pass({"fold-batch-norm"}, R"(
graph(%x: f32[1,2,3,3]) {
  %w: f32[2,2,1,1] = constant [1, 2, 3, 4]
  %s: f32[2,1,1] = constant [0.5, 2]
  %t: f32[2,1,1] = constant [1, -1]
  %y: f32[1,2,3,3] = conv2d(%x, %w) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]} loc("model.py":1)
  %m: f32[1,2,3,3] = mul(%y, %s) loc("batchnorm.py":2)
  %bn: f32[1,2,3,3] = add(%m, %t) loc("batchnorm.py":2)
  return %bn
})",
             R"(
graph(%x: f32[1,2,3,3]) {
  %w_bn: f32[2,2,1,1] = constant [0.5, 1, 6, 8]
  %y_bias_bn: f32[2] = constant [1, -1]
  %bn: f32[1,2,3,3] = conv2d(%x, %w_bn, %y_bias_bn) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]} loc("model.py":1)
  return %bn
})",
             test::kFp32);
}

TEST_CASE("fold-batch-norm folds into a biased, grouped conv2d with 4-d scale, either order") {
  check_pass({"fold-batch-norm"}, R"(
graph(%x: f32[1,4,3,3]) {
  %w: f32[2,2,2,1] = constant [1, 2, 3, 4, 5, 6, 7, 8]
  %b: f32[2] = constant [2, 4]
  %s: f32[1,2,1,1] = constant [0.5, 0.25]
  %t: f32[1,2,1,1] = constant [-1, 1]
  %y: f32[1,2,2,3] = conv2d(%x, %w, %b) {dilation=[1, 1], groups=2, padding=[0, 0, 0, 0], stride=[1, 1]}
  %m: f32[1,2,2,3] = mul(%s, %y)
  %bn: f32[1,2,2,3] = add(%t, %m)
  %out: f32[1,2,2,3] = relu(%bn)
  return %out
})",
             R"(
graph(%x: f32[1,4,3,3]) {
  %w_bn: f32[2,2,2,1] = constant [0.5, 1, 1.5, 2, 1.25, 1.5, 1.75, 2]
  %b_bn: f32[2] = constant [0, 2]
  %bn: f32[1,2,2,3] = conv2d(%x, %w_bn, %b_bn) {dilation=[1, 1], groups=2, padding=[0, 0, 0, 0], stride=[1, 1]}
  %out: f32[1,2,2,3] = relu(%bn)
  return %out
})",
             test::kFp32);
}

TEST_CASE("fold-batch-norm folds an nhwc conv2d's [O] scale, and a mul without an add") {
  check_pass({"fold-batch-norm"}, R"(
graph(%x: f32[1,3,3,2]) {
  %w: f32[2,1,1,2] = constant [1, 2, 3, 4]
  %b: f32[2] = constant [1, 1]
  %s: f32[2] = constant [2, -0.5]
  %y: f32[1,3,3,2] = conv2d(%x, %w, %b) {dilation=[1, 1], groups=1, layout="nhwc", padding=[0, 0, 0, 0], stride=[1, 1]}
  %m: f32[1,3,3,2] = mul(%y, %s)
  %e: f32[1,3,3,2] = exp(%m)
  return %e
})",
             R"(
graph(%x: f32[1,3,3,2]) {
  %w_bn: f32[2,1,1,2] = constant [2, 4, -1.5, -2]
  %b_bn: f32[2] = constant [2, -0.5]
  %m: f32[1,3,3,2] = conv2d(%x, %w_bn, %b_bn) {dilation=[1, 1], groups=1, layout="nhwc", padding=[0, 0, 0, 0], stride=[1, 1]}
  %e: f32[1,3,3,2] = exp(%m)
  return %e
})",
             test::kFp32);
}

TEST_CASE("fold-batch-norm folds into a gemm's weight columns (trans_b either way) and bias") {
  check_pass({"fold-batch-norm"}, R"(
graph(%x: f32[4,2]) {
  %w: f32[3,2] = constant [1, 2, 3, 4, 5, 6]
  %wt: f32[2,3] = constant [1, 2, 3, 4, 5, 6]
  %c: f32[3] = constant [1, 2, 3]
  %s: f32[3] = constant [2, 0.5, -1]
  %t: f32[1,3] = constant [1, 1, 1]
  %g: f32[4,3] = gemm(%x, %w, %c) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %m: f32[4,3] = mul(%g, %s)
  %bn: f32[4,3] = add(%m, %t)
  %h: f32[4,3] = gemm(%x, %wt) {activation="none", alpha=2.0, beta=1.0, trans_b=false}
  %n: f32[4,3] = mul(%h, %s)
  return %bn, %n
})",
             R"(
graph(%x: f32[4,2]) {
  %w_bn: f32[3,2] = constant [2, 4, 1.5, 2, -5, -6]
  %c_bn: f32[3] = constant [3, 2, -2]
  %wt_bn: f32[2,3] = constant [2, 1, -3, 8, 2.5, -6]
  %bn: f32[4,3] = gemm(%x, %w_bn, %c_bn) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %n: f32[4,3] = gemm(%x, %wt_bn) {activation="none", alpha=2.0, beta=1.0, trans_b=false}
  return %bn, %n
})",
             test::kFp32);
}

TEST_CASE("fold-batch-norm stops at an add that is not of a per-channel constant") {
  check_pass({"fold-batch-norm"}, R"(
graph(%x: f32[1,2,3,3], %r: f32[1,2,3,3]) {
  %w: f32[2,2,1,1] = constant [1, 2, 3, 4]
  %s: f32[2,1,1] = constant [0.5, 2]
  %y: f32[1,2,3,3] = conv2d(%x, %w) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]}
  %m: f32[1,2,3,3] = mul(%y, %s)
  %sum: f32[1,2,3,3] = add(%m, %r)
  return %sum
})",
             R"(
graph(%x: f32[1,2,3,3], %r: f32[1,2,3,3]) {
  %w_bn: f32[2,2,1,1] = constant [0.5, 1, 6, 8]
  %m: f32[1,2,3,3] = conv2d(%x, %w_bn) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]}
  %sum: f32[1,2,3,3] = add(%m, %r)
  return %sum
})",
             test::kFp32);
}

TEST_CASE("fold-batch-norm folds a chain of scales and shifts in one run") {
  check_pass({"fold-batch-norm"}, R"(
graph(%x: f32[1,2,3,3]) {
  %w: f32[2,2,1,1] = constant [1, 2, 3, 4]
  %s: f32[2,1,1] = constant [0.5, 2]
  %t: f32[2,1,1] = constant [1, -1]
  %two: f32[] = constant [2]
  %y: f32[1,2,3,3] = conv2d(%x, %w) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]}
  %m: f32[1,2,3,3] = mul(%y, %s)
  %bn: f32[1,2,3,3] = add(%m, %t)
  %scaled: f32[1,2,3,3] = mul(%two, %bn)
  return %scaled
})",
             R"(
graph(%x: f32[1,2,3,3]) {
  %w_bn: f32[2,2,1,1] = constant [1, 2, 12, 16]
  %y_bias_bn: f32[2] = constant [2, -2]
  %scaled: f32[1,2,3,3] = conv2d(%x, %w_bn, %y_bias_bn) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]}
  return %scaled
})",
             test::kFp32);
}

TEST_CASE("fold-batch-norm folds a bias add (the weight stays) and then a scale") {
  check_pass({"fold-batch-norm"}, R"(
graph(%x: f32[1,2,3,3]) {
  %w: f32[2,2,1,1] = constant [1, 2, 3, 4]
  %b: f32[2] = constant [1, 2]
  %t: f32[2,1,1] = constant [1, -1]
  %s: f32[2,1,1] = constant [0.5, 2]
  %y: f32[1,2,3,3] = conv2d(%x, %w, %b) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]}
  %biased: f32[1,2,3,3] = add(%y, %t)
  %y2: f32[1,2,3,3] = conv2d(%x, %w) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]}
  %a2: f32[1,2,3,3] = add(%t, %y2)
  %m2: f32[1,2,3,3] = mul(%a2, %s)
  return %biased, %m2
})",
             R"(
graph(%x: f32[1,2,3,3]) {
  %w: f32[2,2,1,1] = constant [1, 2, 3, 4]
  %b_bn: f32[2] = constant [2, 1]
  %w_bn: f32[2,2,1,1] = constant [0.5, 1, 6, 8]
  %y2_bias_bn: f32[2] = constant [0.5, -2]
  %biased: f32[1,2,3,3] = conv2d(%x, %w, %b_bn) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]}
  %m2: f32[1,2,3,3] = conv2d(%x, %w_bn, %y2_bias_bn) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]}
  return %biased, %m2
})",
             test::kFp32);
}

TEST_CASE("fold-batch-norm leaves what it cannot fold exactly") {
  // The conv output has another use; the scale is an input; the scale spans spatial dims; the
  // product promotes to f64; the scale holds inf; the conv already has an activation; the conv
  // output is a graph output; the weights are an input.
  check_unchanged({"fold-batch-norm"}, R"(
graph(%x: f32[1,2,3,3], %sv: f32[2,1,1], %wv: f32[2,2,1,1]) {
  %w: f32[2,2,1,1] = constant [1, 2, 3, 4]
  %s: f32[2,1,1] = constant [0.5, 2]
  %sp: f32[1,3,3] = constant [1, 2, 3, 4, 5, 6, 7, 8, 9]
  %s64: f64[2,1,1] = constant [0.5, 2]
  %sinf: f32[2,1,1] = constant [inf, 2]
  %y1: f32[1,2,3,3] = conv2d(%x, %w) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]}
  %m1: f32[1,2,3,3] = mul(%y1, %s)
  %e1: f32[1,2,3,3] = exp(%y1)
  %y2: f32[1,2,3,3] = conv2d(%x, %w) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]}
  %m2: f32[1,2,3,3] = mul(%y2, %sv)
  %y3: f32[1,2,3,3] = conv2d(%x, %w) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]}
  %m3: f32[1,2,3,3] = mul(%y3, %sp)
  %y4: f32[1,2,3,3] = conv2d(%x, %w) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]}
  %m4: f64[1,2,3,3] = mul(%y4, %s64)
  %y5: f32[1,2,3,3] = conv2d(%x, %w) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]}
  %m5: f32[1,2,3,3] = mul(%y5, %sinf)
  %y6: f32[1,2,3,3] = conv2d(%x, %w) {activation="relu", dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]}
  %m6: f32[1,2,3,3] = mul(%y6, %s)
  %y7: f32[1,2,3,3] = conv2d(%x, %w) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]}
  %m7: f32[1,2,3,3] = mul(%y7, %s)
  %y8: f32[1,2,3,3] = conv2d(%x, %wv) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]}
  %m8: f32[1,2,3,3] = mul(%y8, %s)
  return %m1, %e1, %m2, %m3, %m4, %m5, %m6, %y7, %m7, %m8
})");
}

}  // namespace
}  // namespace inferno
