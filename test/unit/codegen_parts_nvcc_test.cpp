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

namespace {

// A chain of `n` kernels on f32[`width`] and a weight: parts of 48 steps and the rest.
ir::Graph chain(int n, int width) {
  const std::string type = "f32[" + std::to_string(width) + "]";
  std::string weights;
  for (int i = 0; i < width; ++i) weights += (i ? ", " : "") + std::to_string(i + 1);
  std::string text = "graph(%x: " + type + ") {\n  %w: " + type + " = constant [" + weights +
                     "]\n  %v0: " + type + " = mul(%x, %w)\n";
  for (int i = 1; i < n; ++i) {
    text += "  %v" + std::to_string(i) + ": " + type + " = " + (i % 2 ? "neg" : "tanh") + "(%v" +
            std::to_string(i - 1) + ")\n";
  }
  text += "  return %v" + std::to_string(n - 1) + "\n}";
  auto graph = ir::parse_graph(text);
  INFO((graph ? "" : graph.status().to_string()));
  REQUIRE(graph.has_value());
  return std::move(*graph);
}

// Compiles `generated` as the driver plans it for three jobs on two CPUs, warnings as errors,
// then has the runtime inspect the library.
void compile_as_objects(const test::Nvcc& nvcc, const codegen::GeneratedModel& generated) {
  const test::NvccBuildDir dir(nvcc, generated, "parts_nvcc");
  const driver::NvccPlan plan = driver::nvcc_plan(dir.build, generated.num_parts, 3, 2);
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

}  // namespace

TEST_CASE("nvcc compiles a model in parts as several objects into a model.so the runtime accepts",
          "[codegen][nvcc]") {
  const std::optional<test::Nvcc> nvcc = test::find_nvcc();
  if (!nvcc) return;
  // 60 kernels: parts of 48 and 12 steps, an object each and one for the rest.
  auto generated = codegen::generate(chain(60, 8), nvcc->codegen_options());
  INFO((generated ? "" : generated.status().to_string()));
  REQUIRE(generated.has_value());
  REQUIRE(generated->num_parts == 2);
  compile_as_objects(*nvcc, *generated);

  // Two variants in parts (an LLM's prompt and decode steps): four parts, each looking its names
  // up in its variant's namespace, dealt out to two objects beside the rest's.
  const ir::Graph model = chain(50, 8), variant = chain(50, 4);
  generated = codegen::generate_variants({&model, &variant}, nvcc->codegen_options());
  INFO((generated ? "" : generated.status().to_string()));
  REQUIRE(generated.has_value());
  REQUIRE(generated->num_parts == 4);
  compile_as_objects(*nvcc, *generated);
}

}  // namespace inferno
