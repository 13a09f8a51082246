#include "support/conv_cases.h"

#include "ir/builder.h"
#include "support/check.h"
#include "support/test_support.h"

namespace inferno::test {
namespace {

using ir::IntList;
using ir::OpKind;

struct ConvSpec {
  const char* name;
  const char* path;  ///< the launcher model.cu calls for it (see expected_calls)
  int64_t n, c, h, w, o, kh, kw;
  IntList stride, padding, dilation;
  int64_t groups;
  bool bias, residual, gate;
  const char* activation;
};

// Odd sizes, so every kernel meets partial tiles. Fields: name, launcher, n c h w o kh kw, stride,
// padding (top, left, bottom, right), dilation, groups, bias residual gate, activation.
// clang-format off
const ConvSpec kSpecs[] = {
    {"3x3",             "kernels::conv2d_igemm<",     2, 16, 11, 9, 24, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1,
     true, false, false, "relu"},
    {"7x7 stride 2",    "kernels::conv2d_igemm<",     1, 3, 23, 21, 16, 7, 7, {2, 2}, {3, 3, 3, 3}, {1, 1}, 1,
     true, false, false, "relu"},
    {"dilated",         "kernels::conv2d_igemm<",     2, 8, 12, 10, 12, 3, 3, {1, 1}, {2, 1, 2, 3}, {2, 2}, 1,
     true, true, false, "silu"},
    {"1x1",             "run_gemm(",                  2, 32, 5, 7, 20, 1, 1, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1,
     true, false, false, "relu"},
    // A residual keeps a 1x1 on the implicit GEMM (passes/conv_as_gemm.h says why).
    {"1x1 residual",    "kernels::conv2d_igemm<",     1, 16, 6, 5, 12, 1, 1, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1,
     true, true, false, "none"},
    {"1x1 gated",       "kernels::conv2d_igemm<",     2, 24, 5, 3, 40, 1, 1, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1,
     true, false, true, "hardswish"},
    {"1x1 stride 2",    "kernels::conv2d_igemm<",     1, 12, 9, 9, 10, 1, 1, {2, 2}, {0, 0, 0, 0}, {1, 1}, 1,
     false, false, false, "none"},
    {"depthwise",       "kernels::conv2d_depthwise<", 2, 24, 9, 10, 24, 3, 3, {2, 2}, {1, 1, 1, 1}, {1, 1}, 24,
     true, false, false, "relu6"},
    {"depthwise gated", "kernels::conv2d_depthwise<", 1, 20, 7, 7, 20, 5, 5, {1, 1}, {2, 2, 2, 2}, {1, 1}, 20,
     true, true, true, "sigmoid"},
    // ConvNeXt's 7x7 over more channels than one block of the 16-byte NHWC kernel covers.
    {"depthwise 7x7",   "kernels::conv2d_depthwise<", 1, 72, 9, 8, 72, 7, 7, {1, 1}, {3, 3, 3, 3}, {1, 1}, 72,
     true, true, false, "none"},
    {"grouped",         "kernels::conv2d<",           1, 16, 8, 7, 8, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, 4,
     true, false, false, "gelu"},
    // RegNet's shape: 8 channels a group, so the NHWC kernel's 16-byte pieces stay in one group;
    // 72 channels span two of its blocks.
    {"grouped 8",       "kernels::conv2d<",           2, 72, 9, 10, 72, 3, 3, {2, 2}, {1, 1, 1, 1}, {1, 1}, 9,
     true, true, false, "relu"},
    {"long K",          "kernels::conv2d_igemm<",     1, 256, 7, 7, 72, 3, 3, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1,
     true, true, false, "relu"},
};
// clang-format on

int64_t out_size(int64_t in, int64_t before, int64_t after, int64_t k, int64_t stride,
                 int64_t dilation) {
  return (in + before + after - dilation * (k - 1) - 1) / stride + 1;
}

}  // namespace

ConvPathGraph conv_path_graph(ir::DType dtype) {
  ConvPathGraph g;
  uint64_t seed = 5;
  std::vector<ir::ValueId> outputs;
  for (const bool nhwc : {false, true}) {
    for (const ConvSpec& s : kSpecs) {
      const std::string tag =
          std::string(nhwc ? "nhwc_" : "nchw_") + std::to_string(outputs.size());
      const int64_t oh =
          out_size(s.h, s.padding[0], s.padding[2], s.kh, s.stride[0], s.dilation[0]);
      const int64_t ow =
          out_size(s.w, s.padding[1], s.padding[3], s.kw, s.stride[1], s.dilation[1]);
      const int64_t cg = s.c / s.groups;
      auto dims = [nhwc](int64_t n, int64_t c, int64_t h, int64_t w) {
        return nhwc ? ir::Shape{n, h, w, c} : ir::Shape{n, c, h, w};
      };
      const ir::Shape x = dims(s.n, s.c, s.h, s.w), out = dims(s.n, s.o, oh, ow);
      const ir::Shape w = nhwc ? ir::Shape{s.o, s.kh, s.kw, cg} : ir::Shape{s.o, cg, s.kh, s.kw};
      auto input = [&](const std::string& name, const ir::Shape& shape) {
        g.inputs.push_back(random_tensor({dtype, shape}, seed++));
        return g.graph.add_input(tag + name, g.inputs.back().type);
      };
      std::vector<ir::ValueId> in = {input("_x", x)};
      in.push_back(g.graph.add_constant(tag + "_w", random_tensor({dtype, w}, seed++)));
      if (s.bias)
        in.push_back(g.graph.add_constant(tag + "_b", random_tensor({dtype, {s.o}}, seed++)));
      if (s.residual) in.push_back(input("_residual", out));
      if (s.gate)
        in.push_back(input("_gate", nhwc ? ir::Shape{s.n, 1, 1, s.c} : ir::Shape{s.n, s.c, 1, 1}));
      ir::Attributes a;
      a.set("stride", s.stride);
      a.set("padding", s.padding);
      a.set("dilation", s.dilation);
      a.set("groups", s.groups);
      a.set("activation", std::string(s.activation));
      a.set("residual", s.residual);
      a.set("gate", s.gate);
      a.set("layout", std::string(nhwc ? "nhwc" : "nchw"));
      auto y = ir::build_value(g.graph, OpKind::kConv2d, in, a, tag);
      INFERNO_CHECK(y.has_value(),
                    "conv case " + std::string(s.name) + ": " + y.status().to_string());
      outputs.push_back(*y);
      g.names.push_back(std::string(s.name) + (nhwc ? " (nhwc)" : " (nchw)"));
      g.paths.push_back(s.path);
      g.reduction.push_back(cg * s.kh * s.kw);
      g.gated.push_back(s.gate);
    }
  }
  // conv_transpose2d (NCHW only): stride 2 with output_padding, on the direct gather kernel.
  {
    g.inputs.push_back(random_tensor({dtype, {1, 6, 5, 4}}, seed++));
    std::vector<ir::ValueId> in = {g.graph.add_input("transposed_x", g.inputs.back().type)};
    in.push_back(
        g.graph.add_constant("transposed_w", random_tensor({dtype, {6, 4, 3, 3}}, seed++)));
    in.push_back(g.graph.add_constant("transposed_b", random_tensor({dtype, {4}}, seed++)));
    ir::Attributes a;
    a.set("stride", IntList{2, 2});
    a.set("padding", IntList{1, 1});
    a.set("output_padding", IntList{1, 0});
    a.set("dilation", IntList{1, 1});
    a.set("groups", int64_t{1});
    auto y = ir::build_value(g.graph, OpKind::kConvTranspose2d, in, a, "transposed");
    INFERNO_CHECK(y.has_value(), "conv_transpose2d case: " + y.status().to_string());
    outputs.push_back(*y);
    g.names.push_back("transposed");
    g.paths.push_back("kernels::conv_transpose2d<");
    g.reduction.push_back(6 * 9);
    g.gated.push_back(false);
  }
  g.graph.set_outputs(outputs);
  return g;
}

int expected_calls(const ConvPathGraph& g, const std::string& launcher) {
  int calls = 0;
  for (const std::string& path : g.paths) calls += path == launcher ? 1 : 0;
  return calls;
}

}  // namespace inferno::test
