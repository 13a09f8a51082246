// conv2d's fused epilogue as codegen writes it (test/support/conv_epilogue_graph.h: every
// activation, both layouts, bias, residual and gate in turn, f32/f16/bf16/f64), compiled here by
// nvcc with the driver's build directory and command (to PTX), warnings as errors. The activation
// functors are the ops' ops.def expressions; the GPU test (test/gpu/conv_gpu_test.cpp) runs the
// same graph against the reference. Label nvcc.
#include <algorithm>
#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "driver/build.h"
#include "driver/nvcc_plan.h"
#include "support/catch.h"
#include "support/conv_epilogue_graph.h"
#include "support/subprocess.h"

namespace inferno {

TEST_CASE("nvcc compiles conv2d with every epilogue and layout", "[codegen][nvcc]") {
  auto toolchain = driver::check_toolchain(driver::NvccSearch::from_environment(""));
  if (!toolchain) {
    WARN("SKIPPED: no nvcc: " << toolchain.status().to_string());
    return;
  }
  auto sources = driver::find_source_dirs();
  INFO((sources ? "" : sources.status().to_string()));
  REQUIRE(sources.has_value());

  Expected<test::ConvEpilogueGraph> convs = test::conv_epilogue_graph(
      {ir::DType::kF32, ir::DType::kF16, ir::DType::kBF16, ir::DType::kF64});
  INFO((convs ? "" : convs.status().to_string()));
  REQUIRE(convs.has_value());
  codegen::CodegenOptions options;
  options.target.sm_archs = {90};
  options.source_model_hash = "0";
  options.cuda_version = toolchain->version.to_string();
  auto generated = codegen::generate(convs->graph, options);
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

  char pattern[] = "/tmp/inferno_conv_epilogue_nvcc_XXXXXX";
  REQUIRE(mkdtemp(pattern) != nullptr);
  const std::string dir = pattern;
  driver::BuildOptions build;
  build.toolchain = *toolchain;
  build.source_dirs = *sources;
  build.archs = {driver::SmArch{90, false}};
  build.output = dir + "/" + driver::kLibraryFile;
  REQUIRE(driver::write_build_dir(dir, *generated, build).is_ok());
  std::vector<std::string> argv = driver::nvcc_command(build);
  argv.insert(argv.begin() + 1, {"-Werror", "all-warnings", "-Xcompiler", "-Wall,-Wextra,-Werror"});
  // PTX only: what varies here is the epilogue's C++, which the front end and cicc check; ptxas
  // on 72 kernel instantiations would take most of ten minutes, and every conv kernel path is
  // already assembled to SASS by codegen_conv_nvcc_test.cpp.
  const auto sass = std::find(argv.begin(), argv.end(), "-gencode=arch=compute_90,code=sm_90");
  REQUIRE(sass != argv.end());
  argv.erase(sass);
  REQUIRE(std::find(argv.begin(), argv.end(), "-gencode=arch=compute_90,code=compute_90") !=
          argv.end());
  const test::ProcessResult result = test::run_process(argv, dir);
  INFO(nodes << " nodes; nvcc in " << dir << ": " << result.out << result.err);
  REQUIRE(result.exit_code == 0);
  driver::remove_tree(dir);
}

}  // namespace inferno
