// One graph per dtype holding a conv2d for every kernel path codegen chooses between (the implicit
// GEMM, the depthwise kernel, the direct kernel, cuBLASLt for 1x1 after legalize) and the
// configurations that choose them (1x1, 3x3, 7x7 stride 2, dilated, depthwise, grouped, gated,
// transposed), in both layouts, with bias, residual, gate and activations. The nvcc test compiles
// it here (codegen_conv_nvcc_test.cpp); the GPU test runs it against the reference interpreter
// (test/gpu/conv_paths_gpu_test.cpp).
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"

namespace inferno::test {

struct ConvPathGraph {
  ir::Graph graph;                 ///< not legalized: legalize rewrites the 1x1 convs
  std::vector<ir::Tensor> inputs;  ///< one per graph input (x, residuals, gates)
  std::vector<std::string> names;  ///< per graph output: the case and layout
  std::vector<std::string> paths;  ///< per graph output: the launcher model.cu must call
  std::vector<int64_t> reduction;  ///< per graph output: products summed per element (K)
  std::vector<bool> gated;         ///< per graph output: whether a gate scales the input
};

/// The graph for floating `dtype`, with deterministic random inputs and weights in [-2, 2).
ConvPathGraph conv_path_graph(ir::DType dtype);

/// How many times model.cu must call `launcher` ("kernels::conv2d_igemm<",
/// "kernels::conv2d_depthwise<", "kernels::conv2d<" (direct), "kernels::conv_transpose2d<", or
/// "run_gemm(" for cuBLASLt) for graph `g`: its paths counted.
int expected_calls(const ConvPathGraph& g, const std::string& launcher);

}  // namespace inferno::test
