// Generated convolution code on a GPU (kernels/conv.cuh through codegen/emit_conv.cpp) against the
// reference interpreter: 3x3 with padding and bias, 1x1 without bias, stride 2, dilation with
// asymmetric padding, groups, depthwise, a conv1d-shaped [N, C, 1, L] and a larger layer that
// takes several grid-stride passes, in f32, f16, bf16 and f64; conv_transpose2d likewise (stride,
// output_padding, groups, dilation, depthwise, a decoder layer); conv2d's fused epilogues in both
// layouts (test/support/conv_epilogue_graph.h). Part of test_gpu_codegen (label
// gpu); prints "SKIPPED: no CUDA device" without one.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "compiled_model.h"
#include "ir/builder.h"
#include "reference/interpreter.h"
#include "support/catch.h"
#include "support/conv_epilogue_graph.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using ir::DType;
using ir::IntList;
using ir::OpKind;

struct Conv {
  ir::Shape x, w;
  bool bias;
  IntList stride, padding, dilation;
  int64_t groups;
};

// The kernel sums at most 4608 products in float (double for f64) where the reference sums in
// double: a relative error of a few float epsilons times the sum of magnitudes (inputs in [-2, 2)
// make that at most a few hundred here), then one rounding to the dtype (rtol).
struct Tolerance {
  double rtol, atol;
};
Tolerance tolerance(DType dtype) {
  switch (dtype) {
    case DType::kF16:
      return {1e-3, 2e-3};
    case DType::kBF16:
      return {8e-3, 2e-3};
    case DType::kF64:
      return {1e-12, 1e-10};
    default:
      return {1e-5, 2e-3};
  }
}

TEST_CASE("gpu: conv2d matches the reference, in every floating dtype", "[gpu][codegen]") {
  if (!test::has_cuda_device()) {
    std::printf("SKIPPED: no CUDA device\n");
    return;
  }
  const std::vector<Conv> convs = {
      {{2, 3, 8, 8}, {4, 3, 3, 3}, true, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1},       // 3x3, padding 1
      {{2, 4, 6, 6}, {6, 4, 1, 1}, false, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1},      // 1x1, no bias
      {{1, 3, 9, 8}, {4, 3, 3, 3}, true, {2, 2}, {1, 1, 1, 1}, {1, 1}, 1},       // stride 2
      {{1, 2, 9, 10}, {3, 2, 3, 2}, true, {2, 1}, {2, 0, 1, 3}, {2, 3}, 1},      // dilated, asym.
      {{2, 4, 6, 6}, {6, 2, 3, 3}, true, {1, 1}, {1, 1, 1, 1}, {1, 1}, 2},       // groups 2
      {{1, 6, 7, 7}, {6, 1, 3, 3}, false, {2, 2}, {1, 1, 1, 1}, {1, 1}, 6},      // depthwise
      {{2, 3, 1, 20}, {4, 3, 1, 5}, true, {1, 3}, {0, 2, 0, 2}, {1, 2}, 1},      // conv1d-shaped
      {{2, 512, 9, 9}, {64, 512, 3, 3}, true, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1},  // K = 4608
      {{4, 16, 40, 40}, {32, 16, 3, 3}, true, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1},  // 204800 outputs
  };
  for (const DType dtype : {DType::kF32, DType::kF16, DType::kBF16, DType::kF64}) {
    INFO(ir::dtype_name(dtype));
    ir::Graph g;
    std::vector<ir::Tensor> inputs;
    std::vector<ir::ValueId> outs;
    uint64_t seed = 11;
    for (size_t i = 0; i < convs.size(); ++i) {
      const Conv& c = convs[i];
      const std::string tag = "conv" + std::to_string(i);
      inputs.push_back(test::random_tensor({dtype, c.x}, seed++));
      std::vector<ir::ValueId> in = {g.add_input(tag + "_x", inputs.back().type)};
      in.push_back(g.add_constant(tag + "_w", test::random_tensor({dtype, c.w}, seed++)));
      if (c.bias) {
        in.push_back(g.add_constant(tag + "_b", test::random_tensor({dtype, {c.w[0]}}, seed++)));
      }
      ir::Attributes a;
      a.set("stride", c.stride);
      a.set("padding", c.padding);
      a.set("dilation", c.dilation);
      a.set("groups", c.groups);
      auto y = ir::build_value(g, OpKind::kConv2d, in, a, tag);
      INFO(tag << ": " << (y ? "" : y.status().to_string()));
      REQUIRE(y.has_value());
      outs.push_back(*y);
    }
    g.set_outputs(outs);
    auto expected = reference::evaluate(g, inputs);
    REQUIRE(expected.has_value());
    test::CompiledModel model(g);
    const std::vector<ir::Tensor> got = model.run(inputs);
    REQUIRE(got.size() == expected->size());
    const Tolerance tol = tolerance(dtype);
    for (size_t i = 0; i < got.size(); ++i) {
      const std::string mismatch = test::compare_close(got[i], (*expected)[i], tol.rtol, tol.atol);
      INFO("conv" << i << ": " << mismatch);
      CHECK(mismatch.empty());
    }
  }
}

// A tensor-core kernel multiplies the gate into its f16/bf16 input before the MMA, rounding each
// x * g to the dtype (as the unfused mul would), where the reference keeps it exact: output o
// may move by up to u * sum |x g w| over its taps (u the dtype's unit roundoff), times the
// activation's largest slope (1.5, hardswish's). This is that bound per output element, 0 for
// f32/f64 and ungated nodes (there the tolerances above hold alone).
ir::Tensor gate_rounding_bound(const ir::Graph& graph, const std::vector<ir::Tensor>& inputs,
                               const ir::Node& node) {
  const ir::TensorType& out = graph.type(node.outputs[0]);
  const DType dtype = out.dtype;
  const double u = dtype == DType::kF16 ? 0x1p-11 : dtype == DType::kBF16 ? 0x1p-8 : 0.0;
  if (u == 0.0 || !node.attrs.get_bool("gate")) return ir::Tensor::zeros({DType::kF64, out.shape});
  auto input = [&](ir::ValueId v) -> const ir::Tensor& {
    for (size_t i = 0; i < graph.inputs().size(); ++i) {
      if (graph.inputs()[i] == v) return inputs[i];
    }
    FAIL("not a graph input");
    return inputs[0];
  };
  const ir::Tensor &x = input(node.inputs[0]), &g = input(node.inputs.back());
  const ir::Tensor& w = *graph.value(node.inputs[1]).constant;
  const bool nhwc = node.attrs.get_string("layout") == "nhwc";
  const ir::Shape& xs = x.type.shape;
  const int64_t c_size = xs[nhwc ? 3 : 1], hw = xs[nhwc ? 1 : 2] * xs[nhwc ? 2 : 3];
  ir::Tensor xg = ir::Tensor::zeros({DType::kF64, xs}),
             wa = ir::Tensor::zeros({DType::kF64, w.type.shape});
  for (int64_t i = 0; i < x.numel(); ++i) {
    const int64_t n = i / (c_size * hw), c = nhwc ? i % c_size : (i / hw) % c_size;
    xg.set(i, std::abs(x.get(i) * g.get(n * c_size + c)));
  }
  for (int64_t i = 0; i < w.numel(); ++i) wa.set(i, std::abs(w.get(i)));
  ir::Graph sums;
  const ir::ValueId xv = sums.add_input("xg", xg.type);
  ir::Attributes a = node.attrs;
  a.set("activation", std::string("none"));
  a.set("residual", false);
  a.set("gate", false);
  auto y = ir::build_value(sums, OpKind::kConv2d, {xv, sums.add_constant("w", wa)}, a, "sum");
  REQUIRE(y.has_value());
  sums.set_outputs({*y});
  auto total = reference::evaluate(sums, {xg});
  REQUIRE(total.has_value());
  ir::Tensor bound = std::move((*total)[0]);
  for (int64_t i = 0; i < bound.numel(); ++i) bound.set(i, 1.5 * u * bound.get(i));
  return bound;
}

// The fused epilogue (bias, residual, gate, each activation as its ops.def expression in the
// accumulation type) and the nhwc layout, in each dtype: the kernel rounds once after the
// activation, as the reference does, so the tolerances above hold, plus the gate's rounding
// (gate_rounding_bound) for f16/bf16.
TEST_CASE("gpu: conv2d epilogues and nhwc match the reference", "[gpu][codegen]") {
  if (!test::has_cuda_device()) {
    std::printf("SKIPPED: no CUDA device\n");
    return;
  }
  for (const DType dtype : {DType::kF32, DType::kF16, DType::kBF16, DType::kF64}) {
    INFO(ir::dtype_name(dtype));
    Expected<test::ConvEpilogueGraph> convs = test::conv_epilogue_graph({dtype});
    INFO((convs ? "" : convs.status().to_string()));
    REQUIRE(convs.has_value());
    auto expected = reference::evaluate(convs->graph, convs->inputs);
    REQUIRE(expected.has_value());
    test::CompiledModel model(convs->graph);
    const std::vector<ir::Tensor> got = model.run(convs->inputs);
    REQUIRE(got.size() == expected->size());
    const Tolerance tol = tolerance(dtype);
    for (size_t i = 0; i < got.size(); ++i) {
      const ir::Tensor bound =
          gate_rounding_bound(convs->graph, convs->inputs, convs->graph.nodes()[i]);
      int64_t bad = 0, worst = -1;
      double worst_excess = 0;
      for (int64_t k = 0; k < got[i].numel(); ++k) {
        const double e = (*expected)[i].get(k), d = std::abs(got[i].get(k) - e);
        const double excess = d - (tol.atol + tol.rtol * std::abs(e) + bound.get(k));
        if (!(excess <= 0)) {  // NaN counts as a mismatch
          ++bad;
          if (worst < 0 || excess > worst_excess) worst = k, worst_excess = excess;
        }
      }
      INFO(convs->labels[i] << ": " << bad << " of " << got[i].numel() << " differ; worst at "
                            << worst << ": got " << (worst >= 0 ? got[i].get(worst) : 0.0)
                            << ", expected " << (worst >= 0 ? (*expected)[i].get(worst) : 0.0));
      CHECK(bad == 0);
    }
  }
}

TEST_CASE("gpu: conv_transpose2d matches the reference, in every floating dtype",
          "[gpu][codegen]") {
  if (!test::has_cuda_device()) {
    std::printf("SKIPPED: no CUDA device\n");
    return;
  }
  struct ConvT {
    ir::Shape x, w;
    bool bias;
    IntList stride, padding, output_padding, dilation;
    int64_t groups;
  };
  const std::vector<ConvT> convs = {
      {{2, 3, 4, 5}, {3, 4, 3, 3}, true, {2, 2}, {1, 1}, {1, 1}, {1, 1}, 1},   // stride 2
      {{1, 2, 3, 3}, {2, 3, 2, 2}, false, {2, 2}, {0, 0}, {0, 0}, {1, 1}, 1},  // 2x2 stride 2
      {{1, 4, 3, 4}, {4, 2, 3, 2}, true, {2, 1}, {1, 0}, {1, 0}, {1, 2}, 2},   // groups, dilation
      {{1, 8, 5, 5}, {8, 1, 3, 3}, false, {1, 1}, {1, 1}, {0, 0}, {1, 1}, 8},  // depthwise
      {{2, 64, 16, 16}, {64, 32, 4, 4}, true, {2, 2}, {1, 1}, {0, 0}, {1, 1}, 1},  // a decoder
  };
  for (const DType dtype : {DType::kF32, DType::kF16, DType::kBF16, DType::kF64}) {
    INFO(ir::dtype_name(dtype));
    ir::Graph g;
    std::vector<ir::Tensor> inputs;
    std::vector<ir::ValueId> outs;
    uint64_t seed = 71;
    for (size_t i = 0; i < convs.size(); ++i) {
      const ConvT& c = convs[i];
      const std::string tag = "conv_t" + std::to_string(i);
      inputs.push_back(test::random_tensor({dtype, c.x}, seed++));
      std::vector<ir::ValueId> in = {g.add_input(tag + "_x", inputs.back().type)};
      in.push_back(g.add_constant(tag + "_w", test::random_tensor({dtype, c.w}, seed++)));
      if (c.bias) {
        in.push_back(
            g.add_constant(tag + "_b", test::random_tensor({dtype, {c.w[1] * c.groups}}, seed++)));
      }
      ir::Attributes a;
      a.set("stride", c.stride);
      a.set("padding", c.padding);
      a.set("output_padding", c.output_padding);
      a.set("dilation", c.dilation);
      a.set("groups", c.groups);
      auto y = ir::build_value(g, OpKind::kConvTranspose2d, in, a, tag);
      INFO(tag << ": " << (y ? "" : y.status().to_string()));
      REQUIRE(y.has_value());
      outs.push_back(*y);
    }
    g.set_outputs(outs);
    auto expected = reference::evaluate(g, inputs);
    REQUIRE(expected.has_value());
    test::CompiledModel model(g);
    const std::vector<ir::Tensor> got = model.run(inputs);
    REQUIRE(got.size() == expected->size());
    const Tolerance tol = tolerance(dtype);
    for (size_t i = 0; i < got.size(); ++i) {
      const std::string mismatch = test::compare_close(got[i], (*expected)[i], tol.rtol, tol.atol);
      INFO("conv_t" << i << ": " << mismatch);
      CHECK(mismatch.empty());
    }
  }
}

}  // namespace
}  // namespace inferno
