// fuse-epilogues on conv2d: IR text in, IR text out, and the outputs on the reference interpreter.
// The fused conv2d rounds once, after its activation, where the graph rounded after each node, so
// outputs compare at fp32 tolerance; what must stay is compared bit for bit.
#include <string>

#include "passes_helpers.h"
#include "support/catch.h"

namespace inferno {
namespace {

using test::check_pass;
using test::check_unchanged;

TEST_CASE("fuse-epilogues makes ResNet's conv -> add(identity) -> relu one conv2d") {
  check_pass({"fuse-epilogues"}, R"(
graph(%x: f32[1,2,4,4], %w: f32[2,2,3,3], %b: f32[2]) {
  %y: f32[1,2,4,4] = conv2d(%x, %w, %b) {dilation=[1, 1], groups=1, padding=[1, 1, 1, 1], stride=[1, 1]} loc("conv.py":1)
  %sum: f32[1,2,4,4] = add(%y, %x) loc("resnet.py":2)
  %out: f32[1,2,4,4] = relu(%sum) loc("resnet.py":2)
  return %out
})",
             R"(
graph(%x: f32[1,2,4,4], %w: f32[2,2,3,3], %b: f32[2]) {
  %out: f32[1,2,4,4] = conv2d(%x, %w, %b, %x) {activation="relu", dilation=[1, 1], groups=1, padding=[1, 1, 1, 1], residual=true, stride=[1, 1]} loc("conv.py":1)
  return %out
})",
             test::kFp32);
}

TEST_CASE("fuse-epilogues gives a residual conv2d without bias a zero bias") {
  check_pass({"fuse-epilogues"}, R"(
graph(%x: f32[1,2,4,4], %r: f32[1,3,4,4], %w: f32[3,2,1,1]) {
  %y: f32[1,3,4,4] = conv2d(%x, %w) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]}
  %sum: f32[1,3,4,4] = add(%r, %y)
  return %sum
})",
             R"(
graph(%x: f32[1,2,4,4], %r: f32[1,3,4,4], %w: f32[3,2,1,1]) {
  %y_bias: f32[3] = constant [0, 0, 0]
  %sum: f32[1,3,4,4] = conv2d(%x, %w, %y_bias, %r) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], residual=true, stride=[1, 1]}
  return %sum
})",
             test::kFp32);
}

TEST_CASE("fuse-epilogues adds a per-channel constant into the conv2d's bias") {
  check_pass({"fuse-epilogues"}, R"(
graph(%x: f32[1,2,4,4], %w: f32[2,2,1,1]) {
  %b: f32[2] = constant [0.5, 1]
  %c: f32[2,1,1] = constant [1, -2]
  %y: f32[1,2,4,4] = conv2d(%x, %w, %b) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]}
  %sum: f32[1,2,4,4] = add(%y, %c)
  %z: f32[1,2,4,4] = conv2d(%x, %w) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]}
  %zsum: f32[1,2,4,4] = add(%c, %z)
  %act: f32[1,2,4,4] = silu(%zsum)
  return %sum, %act
})",
             R"(
graph(%x: f32[1,2,4,4], %w: f32[2,2,1,1]) {
  %b_add: f32[2] = constant [1.5, -1]
  %z_bias_add: f32[2] = constant [1, -2]
  %sum: f32[1,2,4,4] = conv2d(%x, %w, %b_add) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]}
  %act: f32[1,2,4,4] = conv2d(%x, %w, %z_bias_add) {activation="silu", dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]}
  return %sum, %act
})",
             test::kFp32);
}

TEST_CASE("fuse-epilogues folds every conv2d activation, and clamp(0, 6) as relu6") {
  std::string in = "graph(%x: f32[1,2,4,4], %w: f32[2,2,3,3], %b: f32[2]) {\n";
  std::string out = in;
  in += "  %zero: f32[] = constant [0]\n  %six: f32[] = constant [6]\n";
  std::string outputs;
  const std::string conv = "{dilation=[1, 1], groups=1, padding=[1, 1, 1, 1], stride=[1, 1]}";
  const std::string names[] = {"relu",        "relu6",   "silu", "hardswish",
                               "hardsigmoid", "sigmoid", "gelu", "gelu_tanh"};
  for (const std::string& op : names) {
    in += "  %y_" + op + ": f32[1,2,4,4] = conv2d(%x, %w, %b) " + conv + "\n";
    in += "  %a_" + op + ": f32[1,2,4,4] = " + op + "(%y_" + op + ")\n";
    out += "  %a_" + op + ": f32[1,2,4,4] = conv2d(%x, %w, %b) {activation=\"" + op +
           "\", dilation=[1, 1], groups=1, padding=[1, 1, 1, 1], stride=[1, 1]}\n";
    outputs += (outputs.empty() ? "%a_" : ", %a_") + op;
  }
  in += "  %y_clamp: f32[1,2,4,4] = conv2d(%x, %w, %b) " + conv + "\n";
  in += "  %a_clamp: f32[1,2,4,4] = clamp(%y_clamp, %zero, %six)\n";
  out +=
      "  %a_clamp: f32[1,2,4,4] = conv2d(%x, %w, %b) {activation=\"relu6\", dilation=[1, 1], "
      "groups=1, padding=[1, 1, 1, 1], stride=[1, 1]}\n";
  outputs += ", %a_clamp";
  in += "  return " + outputs + "\n}";
  out += "  return " + outputs + "\n}";
  check_pass({"fuse-epilogues"}, in, out, test::kFp32);
}

TEST_CASE("fuse-epilogues makes a squeeze-and-excitation mul the consumer conv2d's gate") {
  check_pass({"fuse-epilogues"}, R"(
graph(%x: f32[2,4,5,5], %s: f32[2,4,1,1], %w: f32[3,4,1,1], %b: f32[3]) {
  %g: f32[2,4,1,1] = sigmoid(%s)
  %se: f32[2,4,5,5] = mul(%x, %g) loc("misc.py":1)
  %y: f32[2,3,5,5] = conv2d(%se, %w) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]} loc("conv.py":2)
  %h: f32[2,4,1,1] = hardsigmoid(%s)
  %se2: f32[2,4,5,5] = mul(%h, %x)
  %z: f32[2,3,5,5] = conv2d(%se2, %w, %b) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]}
  %zr: f32[2,3,5,5] = add(%z, %y)
  return %zr
})",
             R"(
graph(%x: f32[2,4,5,5], %s: f32[2,4,1,1], %w: f32[3,4,1,1], %b: f32[3]) {
  %y_bias: f32[3] = constant [0, 0, 0]
  %g: f32[2,4,1,1] = sigmoid(%s)
  %y: f32[2,3,5,5] = conv2d(%x, %w, %y_bias, %g) {dilation=[1, 1], gate=true, groups=1, padding=[0, 0, 0, 0], stride=[1, 1]} loc("conv.py":2)
  %h: f32[2,4,1,1] = hardsigmoid(%s)
  %zr: f32[2,3,5,5] = conv2d(%x, %w, %b, %y, %h) {dilation=[1, 1], gate=true, groups=1, padding=[0, 0, 0, 0], residual=true, stride=[1, 1]}
  return %zr
})",
             test::kFp32);
}

TEST_CASE("fuse-epilogues fuses nhwc conv2d epilogues: [O] bias, [N, 1, 1, C] gate") {
  check_pass({"fuse-epilogues"}, R"(
graph(%x: f32[1,3,3,4], %g: f32[1,1,1,4], %w: f32[2,1,1,4]) {
  %c: f32[2] = constant [0.5, -0.5]
  %se: f32[1,3,3,4] = mul(%x, %g)
  %y: f32[1,3,3,2] = conv2d(%se, %w) {dilation=[1, 1], groups=1, layout="nhwc", padding=[0, 0, 0, 0], stride=[1, 1]}
  %sum: f32[1,3,3,2] = add(%y, %c)
  %out: f32[1,3,3,2] = hardswish(%sum)
  return %out
})",
             R"(
graph(%x: f32[1,3,3,4], %g: f32[1,1,1,4], %w: f32[2,1,1,4]) {
  %y_bias_add: f32[2] = constant [0.5, -0.5]
  %out: f32[1,3,3,2] = conv2d(%x, %w, %y_bias_add, %g) {activation="hardswish", dilation=[1, 1], gate=true, groups=1, layout="nhwc", padding=[0, 0, 0, 0], stride=[1, 1]}
  return %out
})",
             test::kFp32);
}

TEST_CASE("fuse-epilogues leaves conv2d epilogues it cannot fuse") {
  // y1 has two uses; y2 is a graph output; y3 already has an activation (the add comes after
  // it); the add to y4 broadcasts over the spatial dims; the add to y5 promotes to f64; y6 has
  // a residual already; the gate of m7 spans a spatial dim; m8 is also a graph output; y9 is
  // added to itself.
  check_unchanged({"fuse-epilogues"}, R"(
graph(%x: f32[1,2,4,4], %w: f32[2,2,1,1], %b: f32[2], %r: f32[1,2,4,4], %row: f32[1,1,4,4], %r64: f64[1,2,4,4], %gs: f32[1,2,4,1], %g: f32[1,2,1,1]) {
  %y1: f32[1,2,4,4] = conv2d(%x, %w, %b) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]}
  %a1: f32[1,2,4,4] = relu(%y1)
  %e1: f32[1,2,4,4] = exp(%y1)
  %y2: f32[1,2,4,4] = conv2d(%x, %w, %b) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]}
  %a2: f32[1,2,4,4] = relu(%y2)
  %y3: f32[1,2,4,4] = conv2d(%x, %w, %b) {activation="relu", dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]}
  %a3: f32[1,2,4,4] = add(%y3, %r)
  %y4: f32[1,2,4,4] = conv2d(%x, %w, %b) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]}
  %a4: f32[1,2,4,4] = add(%y4, %row)
  %y5: f32[1,2,4,4] = conv2d(%x, %w, %b) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]}
  %a5: f64[1,2,4,4] = add(%y5, %r64)
  %y6: f32[1,2,4,4] = conv2d(%x, %w, %b, %r) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], residual=true, stride=[1, 1]}
  %a6: f32[1,2,4,4] = add(%y6, %x)
  %m7: f32[1,2,4,4] = mul(%x, %gs)
  %y7: f32[1,2,4,4] = conv2d(%m7, %w, %b) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]}
  %m8: f32[1,2,4,4] = mul(%x, %g)
  %y8: f32[1,2,4,4] = conv2d(%m8, %w, %b) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]}
  %y9: f32[1,2,4,4] = conv2d(%x, %w, %b) {dilation=[1, 1], groups=1, padding=[0, 0, 0, 0], stride=[1, 1]}
  %a9: f32[1,2,4,4] = add(%y9, %y9)
  return %a1, %e1, %y2, %a2, %a3, %a4, %a5, %a6, %y7, %m8, %y8, %a9
})");
}

}  // namespace
}  // namespace inferno
