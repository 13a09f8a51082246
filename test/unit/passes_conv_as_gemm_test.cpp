// legalize's 1x1 rule (passes/conv_as_gemm.h): IR text in, IR text out, and the outputs on the
// reference interpreter, bit for bit (the gemm adds the conv's terms in the conv's order, and
// relu commutes with the rounding). The helper nodes keep the conv's source location.
#include <string>

#include "passes_helpers.h"
#include "support/catch.h"

namespace inferno {
namespace {

using test::check_pass;
using test::check_unchanged;

TEST_CASE("legalize: an NHWC 1x1 conv with bias and relu is one gemm over the pixels") {
  check_pass({"legalize"}, R"(
graph(%x: f32[2,3,5,8], %w: f32[6,1,1,8], %b: f32[6]) {
  %y: f32[2,3,5,6] = conv2d(%x, %w, %b) {activation="relu", dilation=[1, 1], gate=false, groups=1, layout="nhwc", padding=[0, 0, 0, 0], residual=false, stride=[1, 1]} loc("model.py":7)
  return %y
})",
             R"(
graph(%x: f32[2,3,5,8], %w: f32[6,1,1,8], %b: f32[6]) {
  %y_w: f32[6,8] = reshape(%w) {shape=[6, 8]} loc("model.py":7)
  %y_rows: f32[30,8] = reshape(%x) {shape=[30, 8]} loc("model.py":7)
  %y_gemm: f32[30,6] = gemm(%y_rows, %y_w, %b) {activation="relu", alpha=1.0, beta=1.0, trans_b=true} loc("model.py":7)
  %y: f32[2,3,5,6] = reshape(%y_gemm) {shape=[2, 3, 5, 6]} loc("model.py":7)
  return %y
})");
}

TEST_CASE("legalize: an NCHW 1x1 conv is the weight matrix times each image, the bias a column") {
  check_pass({"legalize"}, R"(
graph(%x: f32[2,8,3,5], %w: f32[6,8,1,1], %b: f32[6]) {
  %y: f32[2,6,3,5] = conv2d(%x, %w, %b) {activation="none", dilation=[2, 3], gate=false, groups=1, layout="nchw", padding=[0, 0, 0, 0], residual=false, stride=[1, 1]}
  %z: f32[2,6,3,5] = conv2d(%x, %w) {activation="relu", dilation=[1, 1], gate=false, groups=1, layout="nchw", padding=[0, 0, 0, 0], residual=false, stride=[1, 1]}
  return %y, %z
})",
             R"(
graph(%x: f32[2,8,3,5], %w: f32[6,8,1,1], %b: f32[6]) {
  %y_w: f32[6,8] = reshape(%w) {shape=[6, 8]}
  %y_planes: f32[2,8,15] = reshape(%x) {shape=[2, 8, 15]}
  %y_bias: f32[6,1] = reshape(%b) {shape=[6, 1]}
  %y_gemm: f32[2,6,15] = gemm(%y_w, %y_planes, %y_bias) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  %y: f32[2,6,3,5] = reshape(%y_gemm) {shape=[2, 6, 3, 5]}
  %z_w: f32[6,8] = reshape(%w) {shape=[6, 8]}
  %z_planes: f32[2,8,15] = reshape(%x) {shape=[2, 8, 15]}
  %z_gemm: f32[2,6,15] = gemm(%z_w, %z_planes) {activation="relu", alpha=1.0, beta=1.0, trans_b=false}
  %z: f32[2,6,3,5] = reshape(%z_gemm) {shape=[2, 6, 3, 5]}
  return %y, %z
})");
}

TEST_CASE("legalize: f16 NHWC 1x1 conv without a bias") {
  check_pass({"legalize"}, R"(
graph(%x: f16[1,4,4,16], %w: f16[8,1,1,16]) {
  %y: f16[1,4,4,8] = conv2d(%x, %w) {activation="none", dilation=[1, 1], gate=false, groups=1, layout="nhwc", padding=[0, 0, 0, 0], residual=false, stride=[1, 1]}
  return %y
})",
             R"(
graph(%x: f16[1,4,4,16], %w: f16[8,1,1,16]) {
  %y_w: f16[8,16] = reshape(%w) {shape=[8, 16]}
  %y_rows: f16[16,16] = reshape(%x) {shape=[16, 16]}
  %y_gemm: f16[16,8] = gemm(%y_rows, %y_w) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %y: f16[1,4,4,8] = reshape(%y_gemm) {shape=[1, 4, 4, 8]}
  return %y
})");
}

TEST_CASE("legalize leaves convs that are not a plain 1x1 GEMM to the conv kernels") {
  const std::string attrs = R"(dilation=[1, 1], groups=1, layout="nchw", residual=false)";
  // 3x3; a 1x1 with stride 2; with padding; gated; grouped; a GELU or SiLU activation; with a
  // residual (NCHW and NHWC).
  check_unchanged({"legalize"}, R"(
graph(%x: f32[1,8,6,6], %w3: f32[4,8,3,3], %w1: f32[4,8,1,1], %wg: f32[4,4,1,1], %b: f32[4], %g: f32[1,8,1,1], %r: f32[1,4,6,6]) {
  %a: f32[1,4,6,6] = conv2d(%x, %w3, %b) {activation="relu", gate=false, padding=[1, 1, 1, 1], stride=[1, 1], )" +
                                    attrs + R"(}
  %c: f32[1,4,3,3] = conv2d(%x, %w1, %b) {activation="none", gate=false, padding=[0, 0, 0, 0], stride=[2, 2], )" +
                                    attrs + R"(}
  %d: f32[1,4,8,8] = conv2d(%x, %w1) {activation="none", gate=false, padding=[1, 1, 1, 1], stride=[1, 1], )" +
                                    attrs + R"(}
  %e: f32[1,4,6,6] = conv2d(%x, %w1, %b, %g) {activation="none", gate=true, padding=[0, 0, 0, 0], stride=[1, 1], dilation=[1, 1], groups=1, layout="nchw", residual=false}
  %f: f32[1,4,6,6] = conv2d(%x, %wg) {activation="none", gate=false, padding=[0, 0, 0, 0], stride=[1, 1], dilation=[1, 1], groups=2, layout="nchw", residual=false}
  %h: f32[1,4,6,6] = conv2d(%x, %w1, %b) {activation="gelu", gate=false, padding=[0, 0, 0, 0], stride=[1, 1], )" +
                                    attrs + R"(}
  %i: f32[1,4,6,6] = conv2d(%x, %w1) {activation="silu", gate=false, padding=[0, 0, 0, 0], stride=[1, 1], )" +
                                    attrs + R"(}
  %j: f32[1,4,6,6] = conv2d(%x, %w1, %b, %r) {activation="relu", gate=false, padding=[0, 0, 0, 0], stride=[1, 1], dilation=[1, 1], groups=1, layout="nchw", residual=true}
  return %a, %c, %d, %e, %f, %h, %i, %j
})");
  check_unchanged({"legalize"}, R"(
graph(%x: f32[2,3,5,8], %w: f32[6,1,1,8], %b: f32[6], %r: f32[2,3,5,6]) {
  %y: f32[2,3,5,6] = conv2d(%x, %w, %b, %r) {activation="relu", dilation=[1, 1], gate=false, groups=1, layout="nhwc", padding=[0, 0, 0, 0], residual=true, stride=[1, 1]}
  return %y
})");
}

}  // namespace
}  // namespace inferno
