// A model whose run_steps() is in parts, compiled by nvcc as the driver plans it for several jobs
// (driver/nvcc_plan.h: one object for the rest and one per part, then the link), warnings as
// errors, and inspected by the runtime without a GPU. test/gpu/codegen_gpu_test.cpp runs one.
// Label nvcc.
#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "driver/build.h"
#include "driver/nvcc_plan.h"
#include "ir/parser.h"
#include "support/catch.h"
#include "support/subprocess.h"

#if INFERNO_HAVE_RUNTIME
#include "inferno/runtime.h"
#endif

namespace inferno {

TEST_CASE("nvcc compiles a model in parts as several objects into a model.so the runtime accepts",
          "[codegen][nvcc]") {
  auto toolchain = driver::check_toolchain(driver::NvccSearch::from_environment(""));
  if (!toolchain) {
    WARN("SKIPPED: no nvcc: " << toolchain.status().to_string());
    return;
  }
  auto sources = driver::find_source_dirs();
  INFO((sources ? "" : sources.status().to_string()));
  REQUIRE(sources.has_value());

  // 60 kernels and a weight: parts of 48 and 12 steps.
  std::string text =
      "graph(%x: f32[8]) {\n  %w: f32[8] = constant [1, 2, 3, 4, 5, 6, 7, 8]\n"
      "  %v0: f32[8] = mul(%x, %w)\n";
  for (int i = 1; i < 60; ++i) {
    text += "  %v" + std::to_string(i) + ": f32[8] = " + (i % 2 ? "neg" : "tanh") + "(%v" +
            std::to_string(i - 1) + ")\n";
  }
  text += "  return %v59\n}";
  auto graph = ir::parse_graph(text);
  INFO((graph ? "" : graph.status().to_string()));
  REQUIRE(graph.has_value());
  codegen::CodegenOptions options;
  options.target.sm_archs = {90};
  options.source_model_hash = "0";
  options.cuda_version = toolchain->version.to_string();
  auto generated = codegen::generate(*graph, options);
  INFO((generated ? "" : generated.status().to_string()));
  REQUIRE(generated.has_value());
  REQUIRE(generated->num_parts == 2);

  char pattern[] = "/tmp/inferno_parts_nvcc_XXXXXX";
  REQUIRE(mkdtemp(pattern) != nullptr);
  const std::string dir = pattern;
  driver::BuildOptions build;
  build.toolchain = *toolchain;
  build.source_dirs = *sources;
  build.archs = {driver::SmArch{90, false}};
  build.output = dir + "/" + driver::kLibraryFile;
  REQUIRE(driver::write_build_dir(dir, *generated, build).is_ok());
  const driver::NvccPlan plan = driver::nvcc_plan(build, generated->num_parts, 3, 2);
  REQUIRE(plan.compiles.size() == 3);
  REQUIRE_FALSE(plan.link.empty());
  // The driver's commands, with every warning an error (as the fixtures' nvcc test), one by one.
  for (std::vector<std::string> argv : plan.compiles) {
    argv.insert(argv.begin() + 1,
                {"-Werror", "all-warnings", "-Xcompiler", "-Wall,-Wextra,-Werror"});
    const test::ProcessResult result = test::run_process(argv, dir);
    INFO("nvcc in " << dir << ": " << result.out << result.err);
    REQUIRE(result.exit_code == 0);
  }
  const test::ProcessResult linked = test::run_process(plan.link, dir);
  INFO("the link in " << dir << ": " << linked.out << linked.err);
  REQUIRE(linked.exit_code == 0);
#if INFERNO_HAVE_RUNTIME
  const inferno_status status = inferno_model_check(build.output.c_str(), 90);
  INFO(inferno_last_error());
  CHECK(status == INFERNO_STATUS_OK);
#endif
  driver::remove_tree(dir);
}

}  // namespace inferno
