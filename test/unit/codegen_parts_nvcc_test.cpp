// A model whose run_steps() is in parts, compiled by nvcc as the driver plans it for several jobs
// (driver/nvcc_plan.h: one object for the rest and one per part, then the link), warnings as
// errors (support/nvcc_build.h), and inspected by the runtime without a GPU.
// test/gpu/codegen_gpu_test.cpp runs one. Label nvcc.
#include <optional>
#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "driver/nvcc_plan.h"
#include "ir/parser.h"
#include "support/catch.h"
#include "support/nvcc_build.h"

#if INFERNO_HAVE_RUNTIME
#include "inferno/runtime.h"
#endif

namespace inferno {

TEST_CASE("nvcc compiles a model in parts as several objects into a model.so the runtime accepts",
          "[codegen][nvcc]") {
  const std::optional<test::Nvcc> nvcc = test::find_nvcc();
  if (!nvcc) return;

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
  auto generated = codegen::generate(*graph, nvcc->codegen_options());
  INFO((generated ? "" : generated.status().to_string()));
  REQUIRE(generated.has_value());
  REQUIRE(generated->num_parts == 2);

  const test::NvccBuildDir dir(*nvcc, *generated, "parts_nvcc");
  const driver::NvccPlan plan = driver::nvcc_plan(dir.build, generated->num_parts, 3, 2);
  REQUIRE(plan.compiles.size() == 3);
  REQUIRE_FALSE(plan.link.empty());
  for (const std::vector<std::string>& argv : plan.compiles) dir.run_strict(argv);
  dir.run_strict(plan.link);
#if INFERNO_HAVE_RUNTIME
  const inferno_status status = inferno_model_check(dir.build.output.c_str(), 90);
  INFO(inferno_last_error());
  CHECK(status == INFERNO_STATUS_OK);
#endif
}

}  // namespace inferno
