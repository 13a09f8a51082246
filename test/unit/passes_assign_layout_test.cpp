// assign-layout: which convolutions go channels-last, where the conversions end up, and that the
// outputs stay bit for bit on the reference interpreter (check_pass runs both graphs).
#include <string>
#include <vector>

#include "ir/printer.h"
#include "passes/assign_layout.h"
#include "passes/pipeline.h"
#include "passes_helpers.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using test::check_pass;
using test::check_unchanged;

/// A deterministic value for element i, exact in every float dtype.
double value_at(int64_t i) { return static_cast<double>(i % 7 - 3) * 0.25; }

std::string list(const std::vector<double>& values) {
  std::string out;
  for (const double v : values) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.9g", v);
    out += (out.empty() ? "" : ", ") + std::string(buffer);
  }
  return "[" + out + "]";
}

std::vector<double> values(int64_t count, int64_t offset = 0) {
  std::vector<double> out;
  for (int64_t i = 0; i < count; ++i) out.push_back(value_at(i + offset));
  return out;
}

/// An OIHW weight's values (values(o * c * kh * kw)) as OHWI, written out index by index.
std::vector<double> ohwi(int64_t o, int64_t c, int64_t kh, int64_t kw) {
  const std::vector<double> oihw = values(o * c * kh * kw);
  std::vector<double> out;
  for (int64_t a = 0; a < o; ++a)
    for (int64_t y = 0; y < kh; ++y)
      for (int64_t x = 0; x < kw; ++x)
        for (int64_t b = 0; b < c; ++b) out.push_back(oihw[((a * c + b) * kh + y) * kw + x]);
  return out;
}

std::string conv_attrs(const std::string& layout, int64_t groups = 1, int64_t pad = 1,
                       const std::string& extra = "residual=false") {
  const std::string p = std::to_string(pad);
  return "{activation=\"none\", dilation=[1, 1], gate=false, groups=" + std::to_string(groups) +
         ", layout=\"" + layout + "\", padding=[" + p + ", " + p + ", " + p + ", " + p + "], " +
         extra + ", stride=[1, 1]}";
}

// x [1, 2, 5, 5] (a graph input) -> conv 3x3 -> y [1, 3, 5, 5] (a graph output).
const std::string kSingleConv = R"(
graph(%x: f32[1,2,5,5]) {
  %w: f32[3,2,3,3] = constant )" +
                                list(values(54)) + R"(
  %b: f32[3] = constant [0.5, -0.25, 1]
  %y: f32[1,3,5,5] = conv2d(%x, %w, %b) )" +
                                conv_attrs("nchw") + R"( loc("m.py":3)
  return %y
})";

ir::Graph with_layout(const std::string& text, passes::ConvLayout mode) {
  ir::Graph graph = test::parse(text);
  passes::PassOptions options;
  options.conv_layout = mode;
  const Status status = passes::assign_layout(graph, options);
  INFO(status.to_string());
  REQUIRE(status.is_ok());
  return graph;
}

/// check_pass for assign-layout under `mode`: the printed result, and the outputs bit for bit.
void check_layout(passes::ConvLayout mode, const std::string& input, const std::string& expected) {
  const ir::Graph before = test::parse(input);
  const ir::Graph after = with_layout(input, mode);
  CHECK(ir::print_graph(after) == ir::print_graph(test::parse(expected)));
  for (uint64_t seed : {7, 8}) {
    std::vector<ir::Tensor> inputs;
    for (ir::ValueId v : before.inputs())
      inputs.push_back(test::random_tensor(before.type(v), seed * 100 + v));
    test::check_same_outputs(before, after, inputs, test::kBitExact);
  }
}

TEST_CASE("assign-layout: a lone conv stays NCHW under auto, --layout nhwc converts each way") {
  // NCHW on both sides: channels-last would cost two copies for one kernel.
  check_unchanged({"assign-layout"}, kSingleConv);
  check_layout(passes::ConvLayout::kNhwc, kSingleConv,
               R"(
graph(%x: f32[1,2,5,5]) {
  %b: f32[3] = constant [0.5, -0.25, 1]
  %w_nhwc: f32[3,3,3,2] = constant )" +
                   list(ohwi(3, 2, 3, 3)) + R"(
  %x_nhwc: f32[1,5,5,2] = permute(%x) {dims=[0, 2, 3, 1]} loc("m.py":3)
  %y_nhwc: f32[1,5,5,3] = conv2d(%x_nhwc, %w_nhwc, %b) )" +
                   conv_attrs("nhwc") + R"( loc("m.py":3)
  %y: f32[1,3,5,5] = permute(%y_nhwc) {dims=[0, 3, 1, 2]} loc("m.py":3)
  return %y
})");
}

TEST_CASE("assign-layout: --layout nchw changes nothing, running it twice is running it once") {
  const ir::Graph off = with_layout(kSingleConv, passes::ConvLayout::kNchw);
  CHECK(ir::print_graph(off) == ir::print_graph(test::parse(kSingleConv)));
  ir::Graph twice = with_layout(kSingleConv, passes::ConvLayout::kNhwc);
  const std::string once = ir::print_graph(twice);
  REQUIRE(passes::assign_layout(twice, {}).is_ok());
  CHECK(ir::print_graph(twice) == once);
}

TEST_CASE("assign-layout: a conv chain with elementwise ops between converts once each way") {
  // The per-channel constants [4, 1, 1] become [4]; the rank-0 scalar stays rank 0.
  check_layout(passes::ConvLayout::kNhwc,
               R"(
graph(%x: f32[2,3,6,6], %w1: f32[4,3,3,3], %w2: f32[4,4,1,1]) {
  %scale: f32[4,1,1] = constant [0.5, 2, -1, 0.25]
  %shift: f32[1,4,1,1] = constant [1, 0, -0.5, 3]
  %six: f32[] = constant [6]
  %c1: f32[2,4,6,6] = conv2d(%x, %w1) )" +
                   conv_attrs("nchw") + R"(
  %m: f32[2,4,6,6] = mul(%c1, %scale)
  %a: f32[2,4,6,6] = add(%m, %shift)
  %r: f32[2,4,6,6] = minimum(%a, %six)
  %c2: f32[2,4,6,6] = conv2d(%r, %w2) )" +
                   conv_attrs("nchw", 1, 0) + R"(
  %s: f32[2,4,6,6] = sigmoid(%c2)
  return %s
})",
               R"(
graph(%x: f32[2,3,6,6], %w1: f32[4,3,3,3], %w2: f32[4,4,1,1]) {
  %six: f32[] = constant [6]
  %scale_nhwc: f32[4] = constant [0.5, 2, -1, 0.25]
  %shift_nhwc: f32[1,1,1,4] = constant [1, 0, -0.5, 3]
  %x_nhwc: f32[2,6,6,3] = permute(%x) {dims=[0, 2, 3, 1]}
  %w1_nhwc: f32[4,3,3,3] = permute(%w1) {dims=[0, 2, 3, 1]}
  %c1_nhwc: f32[2,6,6,4] = conv2d(%x_nhwc, %w1_nhwc) )" +
                   conv_attrs("nhwc") + R"(
  %m_nhwc: f32[2,6,6,4] = mul(%c1_nhwc, %scale_nhwc)
  %a_nhwc: f32[2,6,6,4] = add(%m_nhwc, %shift_nhwc)
  %r_nhwc: f32[2,6,6,4] = minimum(%a_nhwc, %six)
  %w2_nhwc: f32[4,1,1,4] = reshape(%w2) {shape=[4, 1, 1, 4]}
  %c2_nhwc: f32[2,6,6,4] = conv2d(%r_nhwc, %w2_nhwc) )" +
                   conv_attrs("nhwc", 1, 0) + R"(
  %s_nhwc: f32[2,6,6,4] = sigmoid(%c2_nhwc)
  %s: f32[2,4,6,6] = permute(%s_nhwc) {dims=[0, 3, 1, 2]}
  return %s
})");
}

TEST_CASE("assign-layout: a ResNet basic block, its residual fused into the conv and unfused") {
  check_layout(passes::ConvLayout::kNhwc,
               R"(
graph(%x: f32[1,4,5,5], %w1: f32[4,4,3,3], %w2: f32[4,4,3,3], %b: f32[4]) {
  %h: f32[1,4,5,5] = conv2d(%x, %w1, %b) {activation="relu", dilation=[1, 1], gate=false, groups=1, layout="nchw", padding=[1, 1, 1, 1], residual=false, stride=[1, 1]}
  %y: f32[1,4,5,5] = conv2d(%h, %w2, %b, %x) {activation="relu", dilation=[1, 1], gate=false, groups=1, layout="nchw", padding=[1, 1, 1, 1], residual=true, stride=[1, 1]}
  %z: f32[1,4,5,5] = conv2d(%y, %w1) )" +
                   conv_attrs("nchw") + R"(
  %sum: f32[1,4,5,5] = add(%z, %y)
  %out: f32[1,4,5,5] = relu(%sum)
  return %out
})",
               R"(
graph(%x: f32[1,4,5,5], %w1: f32[4,4,3,3], %w2: f32[4,4,3,3], %b: f32[4]) {
  %x_nhwc: f32[1,5,5,4] = permute(%x) {dims=[0, 2, 3, 1]}
  %w1_nhwc: f32[4,3,3,4] = permute(%w1) {dims=[0, 2, 3, 1]}
  %h_nhwc: f32[1,5,5,4] = conv2d(%x_nhwc, %w1_nhwc, %b) {activation="relu", dilation=[1, 1], gate=false, groups=1, layout="nhwc", padding=[1, 1, 1, 1], residual=false, stride=[1, 1]}
  %w2_nhwc: f32[4,3,3,4] = permute(%w2) {dims=[0, 2, 3, 1]}
  %y_nhwc: f32[1,5,5,4] = conv2d(%h_nhwc, %w2_nhwc, %b, %x_nhwc) {activation="relu", dilation=[1, 1], gate=false, groups=1, layout="nhwc", padding=[1, 1, 1, 1], residual=true, stride=[1, 1]}
  %z_nhwc: f32[1,5,5,4] = conv2d(%y_nhwc, %w1_nhwc) )" +
                   conv_attrs("nhwc") + R"(
  %sum_nhwc: f32[1,5,5,4] = add(%z_nhwc, %y_nhwc)
  %out_nhwc: f32[1,5,5,4] = relu(%sum_nhwc)
  %out: f32[1,4,5,5] = permute(%out_nhwc) {dims=[0, 3, 1, 2]}
  return %out
})");
}

TEST_CASE("assign-layout: a depthwise conv and a squeeze-and-excitation gate stay channels-last") {
  // The gate's path runs on [N, C, 1, 1] values, whose conversions are reshapes (views).
  check_pass({"assign-layout"},
             R"(
graph(%x: f32[2,4,5,5], %dw: f32[4,1,3,3], %w1: f32[2,4,1,1], %w2: f32[4,2,1,1], %w3: f32[3,4,1,1], %b: f32[3]) {
  %d: f32[2,4,5,5] = conv2d(%x, %dw) )" +
                 conv_attrs("nchw", 4) + R"(
  %a: f32[2,4,5,5] = silu(%d)
  %pooled: f32[2,4,1,1] = mean(%a) {dims=[2, 3], keepdim=true}
  %s1: f32[2,2,1,1] = conv2d(%pooled, %w1) )" +
                 conv_attrs("nchw", 1, 0) + R"(
  %r: f32[2,2,1,1] = relu(%s1)
  %s2: f32[2,4,1,1] = conv2d(%r, %w2) )" +
                 conv_attrs("nchw", 1, 0) + R"(
  %g: f32[2,4,1,1] = hardsigmoid(%s2)
  %y: f32[2,3,5,5] = conv2d(%a, %w3, %b, %g) {activation="none", dilation=[1, 1], gate=true, groups=1, layout="nchw", padding=[0, 0, 0, 0], residual=false, stride=[1, 1]}
  return %y, %g
})",
             R"(
graph(%x: f32[2,4,5,5], %dw: f32[4,1,3,3], %w1: f32[2,4,1,1], %w2: f32[4,2,1,1], %w3: f32[3,4,1,1], %b: f32[3]) {
  %x_nhwc: f32[2,5,5,4] = permute(%x) {dims=[0, 2, 3, 1]}
  %dw_nhwc: f32[4,3,3,1] = reshape(%dw) {shape=[4, 3, 3, 1]}
  %d_nhwc: f32[2,5,5,4] = conv2d(%x_nhwc, %dw_nhwc) )" +
                 conv_attrs("nhwc", 4) + R"(
  %a_nhwc: f32[2,5,5,4] = silu(%d_nhwc)
  %pooled_nhwc: f32[2,1,1,4] = mean(%a_nhwc) {dims=[1, 2], keepdim=true}
  %w1_nhwc: f32[2,1,1,4] = reshape(%w1) {shape=[2, 1, 1, 4]}
  %s1_nhwc: f32[2,1,1,2] = conv2d(%pooled_nhwc, %w1_nhwc) )" +
                 conv_attrs("nhwc", 1, 0) + R"(
  %r_nhwc: f32[2,1,1,2] = relu(%s1_nhwc)
  %w2_nhwc: f32[4,1,1,2] = reshape(%w2) {shape=[4, 1, 1, 2]}
  %s2_nhwc: f32[2,1,1,4] = conv2d(%r_nhwc, %w2_nhwc) )" +
                 conv_attrs("nhwc", 1, 0) + R"(
  %g_nhwc: f32[2,1,1,4] = hardsigmoid(%s2_nhwc)
  %w3_nhwc: f32[3,1,1,4] = reshape(%w3) {shape=[3, 1, 1, 4]}
  %y_nhwc: f32[2,5,5,3] = conv2d(%a_nhwc, %w3_nhwc, %b, %g_nhwc) {activation="none", dilation=[1, 1], gate=true, groups=1, layout="nhwc", padding=[0, 0, 0, 0], residual=false, stride=[1, 1]}
  %y: f32[2,3,5,5] = permute(%y_nhwc) {dims=[0, 3, 1, 2]}
  %g: f32[2,4,1,1] = reshape(%g_nhwc) {shape=[2, 4, 1, 1]}
  return %y, %g
})");
}

TEST_CASE("assign-layout: a pool follows NHWC, a mean over H and W and a flatten read NHWC") {
  // A sum over H alone would leave [N, W, C] in NHWC, not [N, C, W]: it reads NCHW.
  check_layout(passes::ConvLayout::kNhwc,
               R"(
graph(%x: f32[1,3,8,8], %v: f32[3,3,3,3], %w: f32[4,3,3,3]) {
  %z: f32[1,3,8,8] = conv2d(%x, %v) )" +
                   conv_attrs("nchw") + R"(
  %c: f32[1,4,8,8] = conv2d(%z, %w) )" +
                   conv_attrs("nchw") + R"(
  %p: f32[1,4,4,4] = max_pool2d(%c) {ceil_mode=false, dilation=[1, 1], kernel=[2, 2], padding=[0, 0], stride=[2, 2]}
  %m: f32[1,4] = mean(%c) {dims=[2, 3], keepdim=false}
  %k: f32[1,4,1,1] = mean(%c) {dims=[2, 3], keepdim=true}
  %f: f32[1,4] = reshape(%k) {shape=[1, 4]}
  %h: f32[1,4,8] = sum(%c) {dims=[2], keepdim=false}
  return %p, %m, %f, %h
})",
               R"(
graph(%x: f32[1,3,8,8], %v: f32[3,3,3,3], %w: f32[4,3,3,3]) {
  %x_nhwc: f32[1,8,8,3] = permute(%x) {dims=[0, 2, 3, 1]}
  %v_nhwc: f32[3,3,3,3] = permute(%v) {dims=[0, 2, 3, 1]}
  %z_nhwc: f32[1,8,8,3] = conv2d(%x_nhwc, %v_nhwc) )" +
                   conv_attrs("nhwc") + R"(
  %w_nhwc: f32[4,3,3,3] = permute(%w) {dims=[0, 2, 3, 1]}
  %c_nhwc: f32[1,8,8,4] = conv2d(%z_nhwc, %w_nhwc) )" +
                   conv_attrs("nhwc") + R"(
  %p_nhwc: f32[1,4,4,4] = max_pool2d(%c_nhwc) {ceil_mode=false, dilation=[1, 1], kernel=[2, 2], layout="nhwc", padding=[0, 0], stride=[2, 2]}
  %m: f32[1,4] = mean(%c_nhwc) {dims=[1, 2], keepdim=false}
  %k_nhwc: f32[1,1,1,4] = mean(%c_nhwc) {dims=[1, 2], keepdim=true}
  %f: f32[1,4] = reshape(%k_nhwc) {shape=[1, 4]}
  %c: f32[1,4,8,8] = permute(%c_nhwc) {dims=[0, 3, 1, 2]}
  %h: f32[1,4,8] = sum(%c) {dims=[2], keepdim=false}
  %p: f32[1,4,4,4] = permute(%p_nhwc) {dims=[0, 3, 1, 2]}
  return %p, %m, %f, %h
})");
}

TEST_CASE("assign-layout: a returned conv output also read by a conv comes back NCHW once") {
  check_layout(passes::ConvLayout::kNhwc,
               R"(
graph(%x: f32[1,2,4,4], %w: f32[2,2,3,3]) {
  %a: f32[1,2,4,4] = conv2d(%x, %w) )" +
                   conv_attrs("nchw") + R"(
  %b: f32[1,2,4,4] = conv2d(%a, %w) )" +
                   conv_attrs("nchw") + R"(
  %n: f32[1,2,4,4] = neg(%a)
  return %a, %b, %n
})",
               R"(
graph(%x: f32[1,2,4,4], %w: f32[2,2,3,3]) {
  %x_nhwc: f32[1,4,4,2] = permute(%x) {dims=[0, 2, 3, 1]}
  %w_nhwc: f32[2,3,3,2] = permute(%w) {dims=[0, 2, 3, 1]}
  %a_nhwc: f32[1,4,4,2] = conv2d(%x_nhwc, %w_nhwc) )" +
                   conv_attrs("nhwc") + R"(
  %b_nhwc: f32[1,4,4,2] = conv2d(%a_nhwc, %w_nhwc) )" +
                   conv_attrs("nhwc") + R"(
  %n_nhwc: f32[1,4,4,2] = neg(%a_nhwc)
  %a: f32[1,2,4,4] = permute(%a_nhwc) {dims=[0, 3, 1, 2]}
  %b: f32[1,2,4,4] = permute(%b_nhwc) {dims=[0, 3, 1, 2]}
  %n: f32[1,2,4,4] = permute(%n_nhwc) {dims=[0, 3, 1, 2]}
  return %a, %b, %n
})");
}

TEST_CASE("assign-layout: an elementwise op goes NHWC only if that copies no more") {
  // add(conv, y) with y a graph input: one copy either way, so NHWC (the next conv reads it);
  // sub(z, conv) with z [1, 2, 4, 4] and conv [1, 2, 1, 1]: z would be copied, conv is a view.
  check_layout(passes::ConvLayout::kNhwc,
               R"(
graph(%x: f32[1,2,4,4], %y: f32[1,2,4,4], %z: f32[1,2,4,4], %w: f32[2,2,3,3], %v: f32[2,2,4,4]) {
  %c: f32[1,2,4,4] = conv2d(%x, %w) )" +
                   conv_attrs("nchw") + R"(
  %s: f32[1,2,4,4] = add(%c, %y)
  %d: f32[1,2,4,4] = conv2d(%s, %w) )" +
                   conv_attrs("nchw") + R"(
  %e: f32[1,2,1,1] = conv2d(%x, %v) )" +
                   conv_attrs("nchw", 1, 0) + R"(
  %f: f32[1,2,4,4] = sub(%z, %e)
  return %d, %f
})",
               R"(
graph(%x: f32[1,2,4,4], %y: f32[1,2,4,4], %z: f32[1,2,4,4], %w: f32[2,2,3,3], %v: f32[2,2,4,4]) {
  %x_nhwc: f32[1,4,4,2] = permute(%x) {dims=[0, 2, 3, 1]}
  %w_nhwc: f32[2,3,3,2] = permute(%w) {dims=[0, 2, 3, 1]}
  %c_nhwc: f32[1,4,4,2] = conv2d(%x_nhwc, %w_nhwc) )" +
                   conv_attrs("nhwc") + R"(
  %y_nhwc: f32[1,4,4,2] = permute(%y) {dims=[0, 2, 3, 1]}
  %s_nhwc: f32[1,4,4,2] = add(%c_nhwc, %y_nhwc)
  %d_nhwc: f32[1,4,4,2] = conv2d(%s_nhwc, %w_nhwc) )" +
                   conv_attrs("nhwc") + R"(
  %v_nhwc: f32[2,4,4,2] = permute(%v) {dims=[0, 2, 3, 1]}
  %e_nhwc: f32[1,1,1,2] = conv2d(%x_nhwc, %v_nhwc) )" +
                   conv_attrs("nhwc", 1, 0) + R"(
  %e: f32[1,2,1,1] = reshape(%e_nhwc) {shape=[1, 2, 1, 1]}
  %f: f32[1,2,4,4] = sub(%z, %e)
  %d: f32[1,2,4,4] = permute(%d_nhwc) {dims=[0, 3, 1, 2]}
  return %d, %f
})");
}

TEST_CASE("assign-layout: a grouped conv follows its input's layout under auto") {
  // One region: convs b, d and e prefer NHWC, and it copies two values (x, e): three > two.
  // (The grouped conv a reads x in NCHW, so the copy is of a; its weight is permuted in place.)
  const std::string input = R"(
graph(%x: f32[1,4,4,4], %w: f32[4,4,1,1]) {
  %g: f32[4,2,3,3] = constant )" +
                            list(values(72)) + R"(
  %a: f32[1,4,4,4] = conv2d(%x, %g) )" +
                            conv_attrs("nchw", 2) + R"(
  %b: f32[1,4,4,4] = conv2d(%a, %w) )" +
                            conv_attrs("nchw", 1, 0) + R"(
  %c: f32[1,4,4,4] = conv2d(%b, %g) )" +
                            conv_attrs("nchw", 2) + R"(
  %d: f32[1,4,4,4] = conv2d(%c, %w) )" +
                            conv_attrs("nchw", 1, 0) + R"(
  %e: f32[1,4,4,4] = conv2d(%d, %w) )" +
                            conv_attrs("nchw", 1, 0) + R"(
  return %e
})";
  check_pass({"assign-layout"}, input,
             R"(
graph(%x: f32[1,4,4,4], %w: f32[4,4,1,1]) {
  %g: f32[4,2,3,3] = constant )" +
                 list(values(72)) + R"(
  %g_nhwc: f32[4,3,3,2] = constant )" +
                 list(ohwi(4, 2, 3, 3)) + R"(
  %a: f32[1,4,4,4] = conv2d(%x, %g) )" +
                 conv_attrs("nchw", 2) + R"(
  %a_nhwc: f32[1,4,4,4] = permute(%a) {dims=[0, 2, 3, 1]}
  %w_nhwc: f32[4,1,1,4] = reshape(%w) {shape=[4, 1, 1, 4]}
  %b_nhwc: f32[1,4,4,4] = conv2d(%a_nhwc, %w_nhwc) )" +
                 conv_attrs("nhwc", 1, 0) + R"(
  %c_nhwc: f32[1,4,4,4] = conv2d(%b_nhwc, %g_nhwc) )" +
                 conv_attrs("nhwc", 2) + R"(
  %d_nhwc: f32[1,4,4,4] = conv2d(%c_nhwc, %w_nhwc) )" +
                 conv_attrs("nhwc", 1, 0) + R"(
  %e_nhwc: f32[1,4,4,4] = conv2d(%d_nhwc, %w_nhwc) )" +
                 conv_attrs("nhwc", 1, 0) + R"(
  %e: f32[1,4,4,4] = permute(%e_nhwc) {dims=[0, 3, 1, 2]}
  return %e
})");

  int nhwc = 0;
  const ir::Graph converted = with_layout(input, passes::ConvLayout::kNhwc);
  for (const ir::Node& node : converted.nodes())
    nhwc += node.op == ir::OpKind::kConv2d && node.attrs.get_string("layout") == "nhwc";
  CHECK(nhwc == 5);
}

TEST_CASE("assign-layout under auto: a region goes NHWC when it has more convs than copies") {
  // {a, b} alone would copy x and b for two convs and stay NCHW; the max pool between them and
  // {c, d, e} joins the five convs into one region that copies x in and e out.
  const std::string input = R"(
graph(%x: f32[1,4,8,8]) {
  %w: f32[4,4,3,3] = constant )" +
                            list(values(144)) + R"(
  %a: f32[1,4,8,8] = conv2d(%x, %w) )" +
                            conv_attrs("nchw") + R"(
  %b: f32[1,4,8,8] = conv2d(%a, %w) )" +
                            conv_attrs("nchw") + R"(
  %p: f32[1,4,4,4] = max_pool2d(%b) {ceil_mode=false, dilation=[1, 1], kernel=[2, 2], padding=[0, 0], stride=[2, 2]}
  %c: f32[1,4,4,4] = conv2d(%p, %w) )" +
                            conv_attrs("nchw") + R"(
  %r: f32[1,4,4,4] = relu(%c)
  %d: f32[1,4,4,4] = conv2d(%r, %w) )" +
                            conv_attrs("nchw") + R"(
  %e: f32[1,4,4,4] = conv2d(%d, %w) )" +
                            conv_attrs("nchw") + R"(
  return %e
})";
  const ir::Graph graph = with_layout(input, passes::ConvLayout::kAuto);
  std::string layouts;
  int permutes = 0;
  for (const ir::Node& node : graph.nodes()) {
    if (node.op == ir::OpKind::kConv2d) layouts += node.attrs.get_string("layout") + " ";
    permutes += node.op == ir::OpKind::kPermute;
  }
  CHECK(layouts == "nhwc nhwc nhwc nhwc nhwc ");
  CHECK(permutes == 2);  // x in, e out
  const ir::Graph before = test::parse(input);
  std::vector<ir::Tensor> inputs;
  for (ir::ValueId v : before.inputs())
    inputs.push_back(test::random_tensor(before.type(v), 5 + v));
  test::check_same_outputs(before, graph, inputs, test::kBitExact);
}

TEST_CASE("assign-layout under auto: a concatenation inside a converting region stays NHWC") {
  // DenseNet's shape: p comes from a pool (NCHW) and is concatenated with conv outputs; by one
  // node's copies the first cat would stay NCHW (p is larger than a), but the region converts.
  const std::string input = R"(
graph(%x: f32[1,8,8,8]) {
  %w4: f32[4,8,3,3] = constant )" +
                            list(values(288)) + R"(
  %w12: f32[4,12,3,3] = constant )" +
                            list(values(432)) + R"(
  %w16: f32[4,16,3,3] = constant )" +
                            list(values(576)) + R"(
  %p: f32[1,8,4,4] = max_pool2d(%x) {ceil_mode=false, dilation=[1, 1], kernel=[2, 2], padding=[0, 0], stride=[2, 2]}
  %r: f32[1,8,4,4] = relu(%p)
  %a: f32[1,4,4,4] = conv2d(%r, %w4) )" +
                            conv_attrs("nchw") + R"(
  %c1: f32[1,12,4,4] = cat(%p, %a) {dim=1}
  %b: f32[1,4,4,4] = conv2d(%c1, %w12) )" +
                            conv_attrs("nchw") + R"(
  %c2: f32[1,16,4,4] = cat(%p, %a, %b) {dim=1}
  %d: f32[1,4,4,4] = conv2d(%c2, %w16) )" +
                            conv_attrs("nchw") + R"(
  return %d
})";
  const ir::Graph graph = with_layout(input, passes::ConvLayout::kAuto);
  std::string ops;
  for (const ir::Node& node : graph.nodes()) {
    ops += std::string(ir::op_name(node.op));
    if (node.op == ir::OpKind::kConv2d) ops += "." + node.attrs.get_string("layout");
    if (node.op == ir::OpKind::kCat) ops += "." + std::to_string(node.attrs.get_int("dim"));
    ops += " ";
  }
  CHECK(ops ==
        "max_pool2d relu permute conv2d.nhwc permute cat.3 conv2d.nhwc cat.3 conv2d.nhwc permute ");
  const ir::Graph before = test::parse(input);
  std::vector<ir::Tensor> inputs;
  for (ir::ValueId v : before.inputs())
    inputs.push_back(test::random_tensor(before.type(v), 9 + v));
  test::check_same_outputs(before, graph, inputs, test::kBitExact);
}

TEST_CASE("assign-layout: the model's own permutes to and from NHWC cancel with its conversions") {
  // A ConvNeXt-style block: conv, permute to channels-last, elementwise, permute back, conv.
  check_layout(passes::ConvLayout::kNhwc,
               R"(
graph(%x: f32[1,2,3,3], %w: f32[2,2,1,1], %s: f32[2]) {
  %c: f32[1,2,3,3] = conv2d(%x, %w) )" +
                   conv_attrs("nchw", 1, 0) + R"(
  %t: f32[1,3,3,2] = permute(%c) {dims=[0, 2, 3, 1]}
  %m: f32[1,3,3,2] = mul(%t, %s)
  %u: f32[1,2,3,3] = permute(%m) {dims=[0, 3, 1, 2]}
  %d: f32[1,2,3,3] = conv2d(%u, %w) )" +
                   conv_attrs("nchw", 1, 0) + R"(
  return %d
})",
               R"(
graph(%x: f32[1,2,3,3], %w: f32[2,2,1,1], %s: f32[2]) {
  %x_nhwc: f32[1,3,3,2] = permute(%x) {dims=[0, 2, 3, 1]}
  %w_nhwc: f32[2,1,1,2] = reshape(%w) {shape=[2, 1, 1, 2]}
  %c_nhwc: f32[1,3,3,2] = conv2d(%x_nhwc, %w_nhwc) )" +
                   conv_attrs("nhwc", 1, 0) + R"(
  %m: f32[1,3,3,2] = mul(%c_nhwc, %s)
  %d_nhwc: f32[1,3,3,2] = conv2d(%m, %w_nhwc) )" +
                   conv_attrs("nhwc", 1, 0) + R"(
  %d: f32[1,2,3,3] = permute(%d_nhwc) {dims=[0, 3, 1, 2]}
  return %d
})");
}

TEST_CASE("assign-layout leaves a conv whose weight has no data (elided) as it is") {
  const std::string text = R"(
graph(%x: f32[1,2,4,4]) {
  %w: f32[2,2,3,3] = constant <elided>
  %a: f32[1,2,4,4] = conv2d(%x, %w) )" +
                           conv_attrs("nchw") + R"(
  return %a
})";
  CHECK(ir::print_graph(with_layout(text, passes::ConvLayout::kNhwc)) ==
        ir::print_graph(test::parse(text)));
}

TEST_CASE("assign-layout leaves graphs without conv2d alone") {
  check_unchanged({"assign-layout"}, R"(
graph(%x: f32[1,2,4,4]) {
  %p: f32[1,2,2,2] = max_pool2d(%x) {ceil_mode=false, dilation=[1, 1], kernel=[2, 2], padding=[0, 0], stride=[2, 2]}
  %r: f32[1,2,2,2] = relu(%p)
  %t: f32[1,2,2,2] = permute(%r) {dims=[0, 1, 3, 2]}
  return %t
})");
}

// The CNN fixtures through the default pipeline up to legalize: convs are channels-last, the
// passes are idempotent, and the outputs match the unoptimized graph's. (legalize lowers 1x1
// convs to reshapes around a gemm, which a second pipeline run folds further whatever the layout:
// passes/conv_as_gemm.h.)
TEST_CASE("the default pipeline with assign-layout on the CNN fixtures") {
  std::vector<std::string> names;
  for (const std::string_view name : passes::default_pipeline()) {
    if (name != "legalize") names.emplace_back(name);
  }
  for (const std::string model : {"cnn_block", "cnn_mixed"}) {
    for (const std::string& form : test::fixture_forms()) {
      INFO(model << "/" << form);
      const ir::Graph loaded = test::load_fixture(model, form);
      ir::Graph graph = test::load_fixture(model, form);
      REQUIRE(passes::run_passes(graph, names, {}).is_ok());
      const std::string once = ir::print_graph(graph);
      REQUIRE(passes::run_passes(graph, names, {}).is_ok());
      CHECK(ir::print_graph(graph) == once);
      int nchw = 0, nhwc = 0;
      for (const ir::Node& node : graph.nodes()) {
        if (node.op != ir::OpKind::kConv2d) continue;
        (node.attrs.get_string("layout") == "nhwc" ? nhwc : nchw) += 1;
      }
      CHECK(nhwc > 0);
      // cnn_block's stem conv feeds a max pool, which follows it into NHWC.
      if (std::string(model) == "cnn_block") CHECK(nchw == 0);
      std::vector<ir::Tensor> inputs;
      for (ir::ValueId v : loaded.inputs())
        inputs.push_back(test::random_tensor(loaded.type(v), 21 + v));
      test::check_same_outputs(loaded, graph, inputs, test::kFp32);
    }
  }
}

}  // namespace
}  // namespace inferno
