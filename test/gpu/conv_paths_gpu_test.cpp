// Every conv kernel path on a GPU against the reference interpreter: the graphs of
// test/support/conv_cases.h (implicit GEMM, depthwise, direct, cuBLASLt for 1x1 after legalize,
// transposed; both layouts; bias, residual, gate, activations) compiled by codegen and nvcc and
// run in f32, f16 and bf16. Part of test_gpu_codegen (label gpu); prints "SKIPPED: no CUDA
// device" without one.
//
// Tolerance: torch.testing's per dtype (f32 1.3e-6, f16 1e-3, bf16 1.6e-2 relative), with the
// absolute part widened for the sum: the kernels add K products in float in their own order where
// the reference adds in double, which can be off by about K float roundings of the partial sums'
// size (inputs in [-2, 2), so terms and partial sums are O(1) to O(sqrt K)); 8 K 2^-24 covers
// that, and at K = 2304 (the long case) is 1.1e-3, still far below one term's size. A gated conv on
// tensor cores rounds x * gate to the dtype first, worth sqrt(K) roundings of the dtype more.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "compiled_model.h"
#include "passes/pad_conv_channels.h"
#include "reference/interpreter.h"
#include "support/catch.h"
#include "support/conv_cases.h"
#include "support/test_support.h"

namespace inferno {
namespace {

double unit_roundoff(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::kF16:
      return 0x1p-11;
    case ir::DType::kBF16:
      return 0x1p-8;
    default:
      return 0x1p-24;
  }
}

/// Every output within the tolerance the file comment derives.
void check_outputs(const test::ConvPathGraph& cases, const std::vector<ir::Tensor>& got,
                   const std::vector<ir::Tensor>& expected, ir::DType dtype) {
  REQUIRE(got.size() == expected.size());
  const test::Tolerance base = test::default_tolerance(dtype);
  for (size_t i = 0; i < got.size(); ++i) {
    const double k = static_cast<double>(cases.reduction[i]);
    double atol = base.atol + 8 * k * 0x1p-24;
    if (cases.gated[i] && dtype != ir::DType::kF32) atol += 4 * std::sqrt(k) * unit_roundoff(dtype);
    const std::string mismatch = test::compare_close(got[i], expected[i], base.rtol, atol);
    INFO(cases.names[i] << " via " << cases.paths[i] << ": " << mismatch);
    CHECK(mismatch.empty());
  }
}

TEST_CASE("gpu: every conv kernel path matches the reference in f32, f16 and bf16",
          "[gpu][codegen]") {
  if (!test::has_cuda_device()) {
    std::printf("SKIPPED: no CUDA device\n");
    return;
  }
  for (const ir::DType dtype : {ir::DType::kF32, ir::DType::kF16, ir::DType::kBF16}) {
    INFO(ir::dtype_name(dtype));
    const test::ConvPathGraph cases = test::conv_path_graph(dtype);
    auto expected = reference::evaluate(cases.graph, cases.inputs);
    REQUIRE(expected.has_value());
    test::CompiledModel model(cases.graph);  // legalizes first, as the CLI does
    for (const char* launcher : {"kernels::conv2d_igemm<", "kernels::conv2d_depthwise<",
                                 "kernels::conv2d<", "kernels::conv_transpose2d<", "run_gemm("}) {
      INFO(launcher);
      CHECK(test::count_occurrences(model.cuda_source(), launcher) ==
            test::expected_calls(cases, launcher));
    }
    check_outputs(cases, model.run(cases.inputs), *expected, dtype);
  }
}

// The same graph after pad-conv-channels: its 16-bit NHWC convs with channels not a multiple of 8
// (the 7x7 stem's 3 among them) read zero-padded channels and run on the tensor-core kernels; the
// outputs still match the reference of the graph as it was.
TEST_CASE("gpu: convs with padded channels match the unpadded reference in f16 and bf16",
          "[gpu][codegen]") {
  if (!test::has_cuda_device()) {
    std::printf("SKIPPED: no CUDA device\n");
    return;
  }
  for (const ir::DType dtype : {ir::DType::kF16, ir::DType::kBF16}) {
    INFO(ir::dtype_name(dtype));
    const test::ConvPathGraph cases = test::conv_path_graph(dtype);
    auto expected = reference::evaluate(cases.graph, cases.inputs);
    REQUIRE(expected.has_value());
    ir::Graph graph = cases.graph;
    REQUIRE(passes::pad_conv_channels(graph, {}).is_ok());
    int pads = 0;
    for (const ir::Node& node : graph.nodes()) pads += node.op == ir::OpKind::kConstantPad;
    CHECK(pads > 0);
    test::CompiledModel model(graph);
    check_outputs(cases, model.run(cases.inputs), *expected, dtype);
  }
}

}  // namespace
}  // namespace inferno
