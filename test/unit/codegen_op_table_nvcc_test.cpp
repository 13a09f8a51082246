// The op x dtype table's graph (test/support/op_table_cases.h: every elementwise op on every dtype
// it accepts, every cast, the norms on the floating dtypes, in one graph) as codegen writes it,
// compiled here by nvcc with the driver's build directory and command, warnings as errors, and
// inspected by the runtime without a GPU. test/gpu/op_table_gpu_test.cpp compiles the same graph
// and runs it on a device. Label nvcc.
#include <filesystem>
#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "driver/build.h"
#include "driver/nvcc_plan.h"
#include "support/catch.h"
#include "support/op_table_cases.h"
#include "support/subprocess.h"

#if INFERNO_HAVE_RUNTIME
#include "inferno/runtime.h"
#endif

namespace inferno {

TEST_CASE("nvcc compiles the op x dtype table into a model.so the runtime accepts",
          "[codegen][nvcc]") {
  auto toolchain = driver::check_toolchain(driver::NvccSearch::from_environment(""));
  if (!toolchain) {
    WARN("SKIPPED: no nvcc: " << toolchain.status().to_string());
    return;
  }
  auto sources = driver::find_source_dirs();
  INFO((sources ? "" : sources.status().to_string()));
  REQUIRE(sources.has_value());

  const test::TableGraph table = test::table_graph();
  codegen::CodegenOptions options;
  options.target.sm_archs = {90};
  options.source_model_hash = "0";
  options.cuda_version = toolchain->version.to_string();
  auto generated = codegen::generate(table.graph, options);
  INFO((generated ? "" : generated.status().to_string()));
  REQUIRE(generated.has_value());
  // One generated kernel per elementwise application: none was folded away or merged. (The norms
  // launch kernels/norm.cuh's.)
  size_t elementwise = 0;
  for (const ir::Node& node : table.graph.nodes())
    elementwise += ir::op_has_trait(node.op, ir::kElementwise) ? 1 : 0;
  size_t kernels = 0;
  for (size_t at = 0; (at = generated->cuda_source.find("__global__", at)) != std::string::npos;
       ++at) {
    ++kernels;
  }
  CHECK(kernels >= elementwise);

  char pattern[] = "/tmp/inferno_op_table_nvcc_XXXXXX";
  REQUIRE(mkdtemp(pattern) != nullptr);
  const std::string dir = pattern;
  driver::BuildOptions build;
  build.toolchain = *toolchain;
  build.source_dirs = *sources;
  build.archs = {driver::SmArch{90, false}};
  build.output = dir + "/" + driver::kLibraryFile;
  REQUIRE(driver::write_build_dir(dir, *generated, build).is_ok());
  // The driver's command, with every warning an error (as the fixtures' nvcc test).
  std::vector<std::string> argv = driver::nvcc_command(build);
  argv.insert(argv.begin() + 1, {"-Werror", "all-warnings", "-Xcompiler", "-Wall,-Wextra,-Werror"});
  const test::ProcessResult result = test::run_process(argv, dir);
  INFO(table.graph.nodes().size() << " nodes; nvcc in " << dir << ": " << result.out << result.err);
  REQUIRE(result.exit_code == 0);
#if INFERNO_HAVE_RUNTIME
  const inferno_status status = inferno_model_check(build.output.c_str(), 90);
  INFO(inferno_last_error());
  CHECK(status == INFERNO_STATUS_OK);
#endif
  driver::remove_tree(dir);
}

}  // namespace inferno
