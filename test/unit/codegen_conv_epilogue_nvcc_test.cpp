// conv2d's fused epilogue as codegen writes it (test/support/conv_epilogue_graph.h: every
// activation, both layouts, bias, residual and gate in turn, f32/f16/bf16/f64), compiled here by
// nvcc with the driver's build directory and command (to PTX), warnings as errors. The activation
// functors are the ops' ops.def expressions; the GPU test (test/gpu/conv_gpu_test.cpp) runs the
// same graph against the reference. Label nvcc.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "driver/nvcc_plan.h"
#include "support/catch.h"
#include "support/conv_epilogue_graph.h"
#include "support/nvcc_build.h"

namespace inferno {

TEST_CASE("nvcc compiles conv2d with every epilogue and layout", "[codegen][nvcc]") {
  const std::optional<test::Nvcc> nvcc = test::find_nvcc();
  if (!nvcc) return;

  Expected<test::ConvEpilogueGraph> convs = test::conv_epilogue_graph(
      {ir::DType::kF32, ir::DType::kF16, ir::DType::kBF16, ir::DType::kF64});
  INFO((convs ? "" : convs.status().to_string()));
  REQUIRE(convs.has_value());
  auto generated = codegen::generate(convs->graph, nvcc->codegen_options());
  INFO((generated ? "" : generated.status().to_string()));
  REQUIRE(generated.has_value());
  const std::string& cu = generated->cuda_source;
  // Every fused node is one launch (of whichever conv kernel the shape picks) carrying its
  // epilogue operands; each activation but none is one functor per compute type (float for
  // f32/f16/bf16, double for f64), shared by every conv using it.
  size_t launches = 0, functors = 0, gates = 0, residuals = 0;
  for (size_t at = 0; (at = cu.find("/* epilogue */ epilogue", at)) != std::string::npos; ++at) {
    ++launches;
  }
  for (size_t at = 0; (at = cu.find("struct conv_activation_", at)) != std::string::npos; ++at) {
    ++functors;
  }
  for (size_t at = 0; (at = cu.find("/* gate */ v_", at)) != std::string::npos; ++at) ++gates;
  for (size_t at = 0; (at = cu.find("/* residual */ v_", at)) != std::string::npos; ++at) {
    ++residuals;
  }
  const size_t nodes = convs->graph.nodes().size();
  CHECK(launches == nodes);
  CHECK(functors == 2 * (test::conv_activations().size() - 1));
  CHECK(gates == nodes / 2);
  CHECK(residuals == nodes / 2);
  CHECK(cu.find("/* nhwc */ true") != std::string::npos);

  const test::NvccBuildDir dir(*nvcc, *generated, "conv_epilogue_nvcc");
  std::vector<std::string> argv = driver::nvcc_command(dir.build);
  // PTX only: what varies here is the epilogue's C++, which the front end and cicc check; ptxas
  // on 72 kernel instantiations would take most of ten minutes, and every conv kernel path is
  // already assembled to SASS by codegen_conv_nvcc_test.cpp.
  const auto sass = std::find(argv.begin(), argv.end(), "-gencode=arch=compute_90,code=sm_90");
  REQUIRE(sass != argv.end());
  argv.erase(sass);
  REQUIRE(std::find(argv.begin(), argv.end(), "-gencode=arch=compute_90,code=compute_90") !=
          argv.end());
  INFO(nodes << " nodes");
  dir.run_strict(argv);
}

}  // namespace inferno
