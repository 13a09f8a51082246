// pad-conv-channels: which convolutions read their channels zero-padded to a multiple of 8, what
// the padded graph looks like, and that its outputs stay bit for bit on the reference.
#include <string>
#include <vector>

#include "ir/printer.h"
#include "passes/pad_conv_channels.h"
#include "passes_helpers.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno {
namespace {

/// `count` values -1.5, -1.25, ..., exact in f16.
std::string constant_data(int64_t count) { return test::stepped_constants(count, 0.25); }

/// An NHWC stem: x [2, 9, 9, c] in `dtype`, a 3x3 stride-2 conv to 16 channels with a bias and
/// ReLU, `attrs` added to the conv's.
std::string stem(const std::string& dtype, int64_t c, const std::string& extra = "gate=false",
                 int64_t groups = 1) {
  const std::string cs = std::to_string(c), cg = std::to_string(c / groups);
  return "graph(%x: " + dtype + "[2,9,9," + cs + "]) {\n  %w: " + dtype + "[16,3,3," + cg +
         "] = constant " + constant_data(16 * 9 * (c / groups)) + "\n  %b: " + dtype +
         "[16] = constant " + constant_data(16) + "\n  %y: " + dtype +
         "[2,5,5,16] = conv2d(%x, %w, %b) {activation=\"relu\", dilation=[1, 1], " + extra +
         ", groups=" + std::to_string(groups) +
         ", layout=\"nhwc\", padding=[1, 1, 1, 1], residual=false, stride=[2, 2]}\n  return %y\n}";
}

/// y = conv2d(x, w) without a bias, stride 1, padding `pad` on every side.
std::string one_conv(const std::string& x, const std::string& w, int64_t w_count,
                     const std::string& y, const std::string& layout, int64_t pad) {
  const std::string p = std::to_string(pad);
  return "graph(%x: " + x + ") {\n  %w: " + w + " = constant " + constant_data(w_count) +
         "\n  %y: " + y +
         " = conv2d(%x, %w) {activation=\"none\", dilation=[1, 1], gate=false, groups=1, "
         "layout=\"" +
         layout + "\", padding=[" + p + ", " + p + ", " + p + ", " + p +
         "], residual=false, stride=[1, 1]}\n  return %y\n}";
}

ir::Graph padded(const std::string& text) {
  ir::Graph graph = test::parse(text);
  const Status status = passes::pad_conv_channels(graph, {});
  INFO(status.to_string());
  REQUIRE(status.is_ok());
  return graph;
}

void check_same(const std::string& text, const ir::Graph& after) {
  test::check_same_on_random_inputs(test::parse(text), after, test::kBitExact);
}

TEST_CASE("pad-conv-channels: a 16-bit NHWC stem reads 3 channels padded to 8") {
  for (const std::string dtype : {"f16", "bf16"}) {
    INFO(dtype);
    const std::string text = stem(dtype, 3);
    const ir::Graph graph = padded(text);
    REQUIRE(graph.nodes().size() == 2);
    const ir::Node& pad = graph.nodes()[0];
    const ir::Node& conv = graph.nodes()[1];
    CHECK(pad.op == ir::OpKind::kConstantPad);
    CHECK(pad.attrs.get_ints("after") == ir::IntList{0, 0, 0, 5});
    CHECK(conv.op == ir::OpKind::kConv2d);
    CHECK(conv.inputs[0] == pad.outputs[0]);
    CHECK(graph.type(conv.inputs[0]).shape == ir::Shape{2, 9, 9, 8});
    CHECK(graph.type(conv.inputs[1]).shape == ir::Shape{16, 3, 3, 8});
    CHECK(graph.type(conv.outputs[0]).shape == ir::Shape{2, 5, 5, 16});
    // The weight's extra channels are zeros, its own ones kept in place.
    const ir::Tensor& w = *graph.value(conv.inputs[1]).constant;
    CHECK(w.get(0) == -1.5);
    CHECK(w.get(2) == -1.0);
    for (int64_t i = 3; i < 8; ++i) CHECK(w.get(i) == 0.0);
    CHECK(w.get(8) == -0.75);
    check_same(text, graph);
    // Running it again changes nothing.
    ir::Graph again = graph;
    REQUIRE(passes::pad_conv_channels(again, {}).is_ok());
    CHECK(ir::print_graph(again) == ir::print_graph(graph));
  }
}

TEST_CASE("pad-conv-channels: 12 channels become 16") {
  const std::string text = stem("f16", 12);
  const ir::Graph graph = padded(text);
  REQUIRE(graph.nodes().size() == 2);
  CHECK(graph.type(graph.nodes()[1].inputs[0]).shape == ir::Shape{2, 9, 9, 16});
  check_same(text, graph);
}

TEST_CASE("pad-conv-channels leaves f32, multiples of 8, grouped, NCHW and 1x1-pixel convs alone") {
  test::check_unchanged({"pad-conv-channels"}, stem("f32", 3));
  test::check_unchanged({"pad-conv-channels"}, stem("f16", 16));
  test::check_unchanged({"pad-conv-channels"}, stem("f16", 4, "gate=false", 2));
  // NCHW: the implicit GEMM gathers channels across pixels there, whatever C is.
  test::check_unchanged({"pad-conv-channels"},
                        one_conv("f16[1,3,8,8]", "f16[4,3,3,3]", 108, "f16[1,4,8,8]", "nchw", 1));
  // A squeeze-and-excitation conv over [N, 1, 1, C]: nothing to gain from 16-byte loads.
  test::check_unchanged({"pad-conv-channels"},
                        one_conv("f16[2,1,1,4]", "f16[16,1,1,4]", 64, "f16[2,1,1,16]", "nhwc", 0));
}

}  // namespace
}  // namespace inferno
