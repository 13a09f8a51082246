// The conv kernel paths (test/support/conv_cases.h: 1x1, 3x3, 7x7 stride 2, dilated, depthwise,
// grouped, gated, transposed, in both layouts) after legalize, as codegen writes them: each conv
// calls the launcher its shape selects (emit_conv.cpp), and nvcc compiles the model with the
// driver's command, warnings as errors, for f32, f16 and bf16. test/gpu/conv_paths_gpu_test.cpp
// runs the same graphs on a device. Label nvcc.
#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "driver/build.h"
#include "driver/nvcc_plan.h"
#include "passes/legalize.h"
#include "support/catch.h"
#include "support/conv_cases.h"
#include "support/subprocess.h"
#include "support/test_support.h"

namespace inferno {

TEST_CASE("nvcc compiles every conv kernel path, each conv on the launcher its shape selects",
          "[codegen][nvcc]") {
  auto toolchain = driver::check_toolchain(driver::NvccSearch::from_environment(""));
  if (!toolchain) {
    WARN("SKIPPED: no nvcc: " << toolchain.status().to_string());
    return;
  }
  auto sources = driver::find_source_dirs();
  INFO((sources ? "" : sources.status().to_string()));
  REQUIRE(sources.has_value());

  for (const ir::DType dtype : {ir::DType::kF32, ir::DType::kF16, ir::DType::kBF16}) {
    INFO(ir::dtype_name(dtype));
    test::ConvPathGraph cases = test::conv_path_graph(dtype);
    REQUIRE(passes::legalize(cases.graph, {}).is_ok());
    codegen::CodegenOptions options;
    options.target.sm_archs = {90};
    options.source_model_hash = "0";
    options.cuda_version = toolchain->version.to_string();
    auto generated = codegen::generate(cases.graph, options);
    INFO((generated ? "" : generated.status().to_string()));
    REQUIRE(generated.has_value());
    for (const char* launcher : {"kernels::conv2d_igemm<", "kernels::conv2d_depthwise<",
                                 "kernels::conv2d<", "kernels::conv_transpose2d<", "run_gemm("}) {
      INFO(launcher);
      CHECK(test::count_occurrences(generated->cuda_source, launcher) ==
            test::expected_calls(cases, launcher));
    }

    char pattern[] = "/tmp/inferno_conv_nvcc_XXXXXX";
    REQUIRE(mkdtemp(pattern) != nullptr);
    const std::string dir = pattern;
    driver::BuildOptions build;
    build.toolchain = *toolchain;
    build.source_dirs = *sources;
    build.archs = {driver::SmArch{90, false}};
    build.output = dir + "/" + driver::kLibraryFile;
    REQUIRE(driver::write_build_dir(dir, *generated, build).is_ok());
    std::vector<std::string> argv = driver::nvcc_command(build);
    argv.insert(argv.begin() + 1,
                {"-Werror", "all-warnings", "-Xcompiler", "-Wall,-Wextra,-Werror"});
    const test::ProcessResult result = test::run_process(argv, dir);
    INFO("nvcc in " << dir << ": " << result.out << result.err);
    REQUIRE(result.exit_code == 0);
    driver::remove_tree(dir);
  }
}

}  // namespace inferno
