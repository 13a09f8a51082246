// A graph of conv2d nodes covering the fused epilogue of ops.def's conv2d: every activation, in
// both layouts, with the bias, residual and gate operands in turn, on the dtypes asked for. The
// nvcc test (test/unit/codegen_conv_epilogue_nvcc_test.cpp) compiles it; the GPU test
// (test/gpu/conv_gpu_test.cpp) runs it against the reference interpreter. Header-only, so both
// test binaries take it without another source file.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ir/builder.h"
#include "ir/graph.h"
#include "support/test_support.h"

namespace inferno::test {

/// The activations conv2d's epilogue takes (ops.def).
inline const std::vector<std::string>& conv_activations() {
  static const std::vector<std::string> names = {
      "none", "relu", "relu6", "silu", "hardswish", "hardsigmoid", "sigmoid", "gelu", "gelu_tanh"};
  return names;
}

struct ConvEpilogueGraph {
  ir::Graph graph;
  std::vector<ir::Tensor> inputs;   ///< values for the graph's inputs, in order
  std::vector<std::string> labels;  ///< one per output: what the node fuses
};

/// For each dtype and activation, an nchw and an nhwc conv2d (3x3, padding 1, groups 2 for one of
/// them); the residual, the gate and the bias switch on and off from node to node so that every
/// combination occurs in each layout. x, residual and gate are graph inputs; w and bias constants.
inline Expected<ConvEpilogueGraph> conv_epilogue_graph(const std::vector<ir::DType>& dtypes) {
  ConvEpilogueGraph out;
  std::vector<ir::ValueId> outputs;
  uint64_t seed = 500;
  int variant = 0;
  for (const ir::DType dtype : dtypes) {
    for (const std::string& activation : conv_activations()) {
      for (const bool nhwc : {false, true}) {
        const bool residual = variant % 2 == 1, gate = variant % 4 >= 2;
        const bool bias = residual || gate || variant % 3 != 0;
        const int64_t groups = variant % 5 == 0 ? 2 : 1;
        const std::string tag = "c" + std::to_string(variant++);
        const int64_t n = 2, c = 4, h = 6, w = 5, o = 6;
        const ir::Shape xs = nhwc ? ir::Shape{n, h, w, c} : ir::Shape{n, c, h, w};
        const ir::Shape ws = nhwc ? ir::Shape{o, 3, 3, c / groups} : ir::Shape{o, c / groups, 3, 3};
        const ir::Shape ys = nhwc ? ir::Shape{n, h, w, o} : ir::Shape{n, o, h, w};
        const ir::Shape gs = nhwc ? ir::Shape{n, 1, 1, c} : ir::Shape{n, c, 1, 1};
        auto input = [&](const std::string& name, const ir::Shape& shape) {
          out.inputs.push_back(random_tensor({dtype, shape}, seed++));
          return out.graph.add_input(tag + name, out.inputs.back().type);
        };
        std::vector<ir::ValueId> in = {input("_x", xs)};
        in.push_back(out.graph.add_constant(tag + "_w", random_tensor({dtype, ws}, seed++)));
        if (bias)
          in.push_back(out.graph.add_constant(tag + "_b", random_tensor({dtype, {o}}, seed++)));
        if (residual) in.push_back(input("_r", ys));
        if (gate) in.push_back(input("_g", gs));
        ir::Attributes a;
        a.set("stride", ir::IntList{1, 1});
        a.set("padding", ir::IntList{1, 1, 1, 1});
        a.set("dilation", ir::IntList{1, 1});
        a.set("groups", groups);
        a.set("activation", activation);
        a.set("residual", residual);
        a.set("gate", gate);
        a.set("layout", std::string(nhwc ? "nhwc" : "nchw"));
        Expected<ir::ValueId> y = ir::build_value(out.graph, ir::OpKind::kConv2d, in, a, tag);
        if (!y) return y.status();
        outputs.push_back(*y);
        out.labels.push_back(tag + ": " + std::string(ir::dtype_name(dtype)) + " " + activation +
                             (nhwc ? " nhwc" : " nchw") + (bias ? " bias" : "") +
                             (residual ? " residual" : "") + (gate ? " gate" : "") + " groups " +
                             std::to_string(groups));
      }
    }
  }
  out.graph.set_outputs(outputs);
  return out;
}

}  // namespace inferno::test
