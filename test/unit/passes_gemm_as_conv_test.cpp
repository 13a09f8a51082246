// gemm-as-conv: which GEMMs become 1x1 channels-last convolutions, what the rewritten graph looks
// like, and that its outputs match on the reference.
#include <algorithm>
#include <string>
#include <vector>

#include "ir/printer.h"
#include "passes/gemm_as_conv.h"
#include "passes_helpers.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno {
namespace {

/// `count` values -0.75, -0.625, ..., exact in f16.
std::string constant_data(int64_t count) { return test::stepped_constants(count, 0.125); }

/// ConvNeXt's first MLP layer, small: x [2, 3, 5, k] in `dtype` times a [24, k] weight plus a
/// bias, activation `activation`, `extra` attributes and inputs as given.
std::string mlp(const std::string& dtype, int64_t k, const std::string& activation,
                bool residual = false, const std::string& alpha = "1.0") {
  const std::string ks = std::to_string(k);
  return "graph(%x: " + dtype + "[2,3,5," + ks + "]" +
         (residual ? ", %r: " + dtype + "[2,3,5,24]" : std::string()) + ") {\n  %w: " + dtype +
         "[24," + ks + "] = constant " + constant_data(24 * k) + "\n  %b: " + dtype +
         "[24] = constant " + constant_data(24) + "\n  %y: " + dtype +
         "[2,3,5,24] = gemm(%x, %w, %b" + (residual ? ", %r" : "") + ") {activation=\"" +
         activation + "\", alpha=" + alpha + ", beta=1.0, trans_b=true}\n  return %y\n}";
}

ir::Graph rewritten(const std::string& text) {
  ir::Graph graph = test::parse(text);
  const Status status = passes::gemm_as_conv(graph, {});
  INFO(status.to_string());
  REQUIRE(status.is_ok());
  return graph;
}

/// The gemm's reference rounds its sum to the dtype before the activation (as cuBLASLt's output
/// and the in-place epilogue kernel after it do), the conv's applies it to the float sum and
/// rounds once, so the two differ by up to half an ulp of the sum times the activation's slope
/// (at most 1.13 for gelu and gelu_tanh), plus an ulp of the result. The sums here reach 8: half
/// an ulp there is 2^-9 in f16 and 2^-6 in bf16, so the bounds are torch.testing's relative ones
/// with those (doubled) as absolute ones. A wrong weight, bias or residual is off by far more.
void check_close(const std::string& text, const ir::Graph& after, bool bf16) {
  const test::Tolerance tolerance =
      bf16 ? test::Tolerance{1.6e-2, 2 * 0x1p-6} : test::Tolerance{1e-3, 2 * 0x1p-9};
  test::check_same_on_random_inputs(test::parse(text), after, tolerance);
}

TEST_CASE("gemm-as-conv: a 16-bit GEMM with gelu becomes a 1x1 NHWC conv over its rows") {
  for (const std::string dtype : {"f16", "bf16"}) {
    INFO(dtype);
    const std::string text = mlp(dtype, 16, "gelu");
    const ir::Graph graph = rewritten(text);
    REQUIRE(graph.nodes().size() == 3);
    const ir::Node& rows = graph.nodes()[0];
    const ir::Node& conv = graph.nodes()[1];
    const ir::Node& back = graph.nodes()[2];
    CHECK(rows.op == ir::OpKind::kReshape);
    CHECK(graph.type(rows.outputs[0]).shape == ir::Shape{1, 1, 30, 16});
    CHECK(conv.op == ir::OpKind::kConv2d);
    CHECK(conv.attrs.get_string("layout") == "nhwc");
    CHECK(conv.attrs.get_string("activation") == "gelu");
    CHECK(graph.type(conv.inputs[1]).shape == ir::Shape{24, 1, 1, 16});
    CHECK(graph.type(conv.outputs[0]).shape == ir::Shape{1, 1, 30, 24});
    CHECK(back.op == ir::OpKind::kReshape);
    CHECK(graph.type(back.outputs[0]).shape == ir::Shape{2, 3, 5, 24});
    check_close(text, graph, dtype == "bf16");
    // Running it again changes nothing.
    ir::Graph again = graph;
    REQUIRE(passes::gemm_as_conv(again, {}).is_ok());
    CHECK(ir::print_graph(again) == ir::print_graph(graph));
  }
}

TEST_CASE("gemm-as-conv: a residual addend becomes the conv's residual") {
  const std::string text = mlp("f16", 8, "gelu_tanh", true);
  const ir::Graph graph = rewritten(text);
  const auto conv = std::find_if(graph.nodes().begin(), graph.nodes().end(),
                                 [](const ir::Node& n) { return n.op == ir::OpKind::kConv2d; });
  REQUIRE(conv != graph.nodes().end());
  CHECK(conv->attrs.get_bool("residual"));
  CHECK(graph.type(conv->inputs[3]).shape == ir::Shape{1, 1, 30, 24});
  check_close(text, graph, false);
}

TEST_CASE("gemm-as-conv leaves f32, cuBLASLt's activations, long or odd K and pre-sm_80 alone") {
  test::check_unchanged({"gemm-as-conv"}, mlp("f32", 16, "gelu"));
  test::check_unchanged({"gemm-as-conv"}, mlp("f16", 16, "relu"));
  test::check_unchanged({"gemm-as-conv"}, mlp("f16", 16, "none"));
  test::check_unchanged({"gemm-as-conv"}, mlp("f16", 12, "gelu"));   // K not whole 16-byte pieces
  test::check_unchanged({"gemm-as-conv"}, mlp("f16", 264, "gelu"));  // past kGemmAsConvMaxK
  test::check_unchanged({"gemm-as-conv"}, mlp("f16", 16, "gelu", false, "2.0"));
  ir::Graph graph = test::parse(mlp("f16", 16, "gelu"));
  const std::string before = ir::print_graph(graph);
  passes::PassOptions turing;
  turing.target.sm_archs = {75, 90};
  REQUIRE(passes::gemm_as_conv(graph, turing).is_ok());
  CHECK(ir::print_graph(graph) == before);
}

}  // namespace
}  // namespace inferno
