// The conv kernel paths (test/support/conv_cases.h: 1x1, 3x3, 7x7 stride 2, dilated, depthwise,
// grouped, gated, transposed, in both layouts) after legalize, as codegen writes them: each conv
// calls the launcher its shape selects (emit_conv.cpp), and nvcc compiles the model with the
// driver's command, warnings as errors, for f32, f16, bf16 and f64.
// test/gpu/conv_paths_gpu_test.cpp runs the same graphs on a device. Label nvcc.
#include <optional>
#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "driver/arch.h"
#include "driver/nvcc_plan.h"
#include "ir/parser.h"
#include "passes/legalize.h"
#include "passes/pad_conv_channels.h"
#include "support/catch.h"
#include "support/conv_cases.h"
#include "support/nvcc_build.h"
#include "support/test_support.h"

namespace inferno {

TEST_CASE("nvcc compiles every conv kernel path, each conv on the launcher its shape selects",
          "[codegen][nvcc]") {
  const std::optional<test::Nvcc> nvcc = test::find_nvcc();
  if (!nvcc) return;

  // f64 too: a kernel template instantiated for double must fit its limits (shared memory).
  for (const ir::DType dtype :
       {ir::DType::kF32, ir::DType::kF16, ir::DType::kBF16, ir::DType::kF64}) {
    INFO(ir::dtype_name(dtype));
    test::ConvPathGraph cases = test::conv_path_graph(dtype);
    REQUIRE(passes::legalize(cases.graph, {}).is_ok());
    auto generated = codegen::generate(cases.graph, nvcc->codegen_options());
    INFO((generated ? "" : generated.status().to_string()));
    REQUIRE(generated.has_value());
    for (const char* launcher : {"kernels::conv2d_igemm<", "kernels::conv2d_depthwise<",
                                 "kernels::conv2d<", "kernels::conv_transpose2d<", "run_gemm("}) {
      INFO(launcher);
      CHECK(test::count_occurrences(generated->cuda_source, launcher) ==
            test::expected_calls(cases, launcher));
    }
    // These depthwise convs are too small for the strip kernel to pay (the next test has one).
    CHECK(test::count_occurrences(generated->cuda_source, "DepthwisePlan::kGeneric") == 6);

    const test::NvccBuildDir dir(*nvcc, *generated, "conv_nvcc");
    dir.run_strict(driver::nvcc_command(dir.build));
  }
}

TEST_CASE("nvcc compiles the wgmma convolutions of an sm_90a build", "[codegen][nvcc]") {
  const std::optional<test::Nvcc> nvcc = test::find_nvcc();
  if (!nvcc) return;
  // 136 x 136 output pixels: 145 row tiles of 128, a block for each of 132 SMs, so an sm_90a
  // build takes the wgmma tiles: 128 x 128 for the f16 conv (128 channels), 128 x 64 for bf16.
  const std::string attrs =
      R"({activation="relu", dilation=[1, 1], gate=false, groups=1, layout="nhwc", )"
      R"(padding=[1, 1, 1, 1], residual=false, stride=[1, 1]})";
  auto graph = ir::parse_graph(
      "graph(%x: f16[1,136,136,64], %w: f16[128,3,3,64], %b: f16[128], %xb: bf16[1,136,136,64], "
      "%wb: bf16[64,3,3,64]) {\n"
      "  %y: f16[1,136,136,128] = conv2d(%x, %w, %b) " +
      attrs +
      "\n"
      "  %yb: bf16[1,136,136,64] = conv2d(%xb, %wb) " +
      attrs +
      "\n"
      "  return %y, %yb\n}");
  INFO((graph ? "" : graph.status().to_string()));
  REQUIRE(graph.has_value());
  codegen::CodegenOptions options = nvcc->codegen_options();
  options.target.wgmma = true;
  auto generated = codegen::generate(*graph, options);
  INFO((generated ? "" : generated.status().to_string()));
  REQUIRE(generated.has_value());
  CHECK(test::count_occurrences(generated->cuda_source, "IgemmTiles::kWgmma128x128") == 1);
  CHECK(test::count_occurrences(generated->cuda_source, "IgemmTiles::kWgmma128x64") == 1);

  test::NvccBuildDir dir(*nvcc, *generated, "conv_wgmma_nvcc");
  dir.build.archs = {driver::SmArch{90, true}};
  dir.run_strict(driver::nvcc_command(dir.build));
}

TEST_CASE("nvcc compiles a large depthwise conv on the strip kernel its window names",
          "[codegen][nvcc]") {
  const std::optional<test::Nvcc> nvcc = test::find_nvcc();
  if (!nvcc) return;
  // ConvNeXt-Tiny's first 7x7 at batch 8: 8 * 56 * 14 strips of 4 pixels times 12 pieces of 8
  // channels, past kDepthwiseStripMinThreads.
  std::string weights = "[";
  for (int i = 0; i < 96 * 7 * 7; ++i) weights += (i == 0 ? "" : ", ") + std::to_string(i % 3);
  auto graph = ir::parse_graph(
      "graph(%x: f16[8,56,56,96]) {\n"
      "  %w: f16[96,7,7,1] = constant " +
      weights +
      "]\n"
      "  %y: f16[8,56,56,96] = conv2d(%x, %w) {activation=\"none\", dilation=[1, 1], "
      "gate=false, groups=96, layout=\"nhwc\", padding=[3, 3, 3, 3], residual=false, "
      "stride=[1, 1]}\n"
      "  return %y\n}");
  INFO((graph ? "" : graph.status().to_string()));
  REQUIRE(graph.has_value());
  auto generated = codegen::generate(*graph, nvcc->codegen_options());
  INFO((generated ? "" : generated.status().to_string()));
  REQUIRE(generated.has_value());
  CHECK(test::count_occurrences(generated->cuda_source, "DepthwisePlan::kStrip7x7s1") == 1);
  const test::NvccBuildDir dir(*nvcc, *generated, "conv_depthwise_strip_nvcc");
  dir.run_strict(driver::nvcc_command(dir.build));
}

TEST_CASE("nvcc compiles an fp16 stem whose image is read padded to 8 channels",
          "[codegen][nvcc]") {
  const std::optional<test::Nvcc> nvcc = test::find_nvcc();
  if (!nvcc) return;
  // The graph as assign-layout leaves a 16-bit stem: the NCHW image permuted, then the conv.
  std::string weights = "[";
  for (int i = 0; i < 8 * 7 * 7 * 3; ++i) weights += (i == 0 ? "" : ", ") + std::to_string(i % 5);
  auto graph = ir::parse_graph(
      "graph(%x: f16[2,3,32,32]) {\n"
      "  %w: f16[8,7,7,3] = constant " +
      weights +
      "]\n"
      "  %x_nhwc: f16[2,32,32,3] = permute(%x) {dims=[0, 2, 3, 1]}\n"
      "  %y: f16[2,16,16,8] = conv2d(%x_nhwc, %w) {activation=\"relu\", dilation=[1, 1], "
      "gate=false, groups=1, layout=\"nhwc\", padding=[3, 3, 3, 3], residual=false, "
      "stride=[2, 2]}\n"
      "  return %y\n}");
  INFO((graph ? "" : graph.status().to_string()));
  REQUIRE(graph.has_value());
  REQUIRE(passes::pad_conv_channels(*graph, {}).is_ok());
  auto generated = codegen::generate(*graph, nvcc->codegen_options());
  INFO((generated ? "" : generated.status().to_string()));
  REQUIRE(generated.has_value());
  // One pass over the NCHW image writes 16-byte rows (no permute copy), and the conv reads them
  // with 16-byte loads on both operands.
  CHECK(test::count_occurrences(generated->cuda_source, "strided_copy") == 0);
  CHECK(test::count_occurrences(generated->cuda_source, "reinterpret_cast<uint4*>(out)[i]") == 1);
  CHECK(test::count_occurrences(generated->cuda_source, "IgemmPlan::kNhwcVecAW") == 1);
  const test::NvccBuildDir dir(*nvcc, *generated, "conv_stem_pad_nvcc");
  dir.run_strict(driver::nvcc_command(dir.build));
}

}  // namespace inferno
