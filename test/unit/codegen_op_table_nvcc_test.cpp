// The op x dtype table's graph (test/support/op_table_cases.h: every elementwise op on every dtype
// it accepts, every cast, the norms on the floating dtypes, in one graph) as codegen writes it,
// compiled here by nvcc with the driver's build directory and command, warnings as errors
// (support/nvcc_build.h), and
// inspected by the runtime without a GPU. test/gpu/op_table_gpu_test.cpp compiles the same graph
// and runs it on a device. Label nvcc.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "driver/nvcc_plan.h"
#include "support/catch.h"
#include "support/nvcc_build.h"
#include "support/op_table_cases.h"

#if INFERNO_HAVE_RUNTIME
#include "inferno/runtime.h"
#endif

namespace inferno {

TEST_CASE("nvcc compiles the op x dtype table into a model.so the runtime accepts",
          "[codegen][nvcc]") {
  const std::optional<test::Nvcc> nvcc = test::find_nvcc();
  if (!nvcc) return;

  const test::TableGraph table = test::table_graph();
  auto generated = codegen::generate(table.graph, nvcc->codegen_options());
  INFO((generated ? "" : generated.status().to_string()));
  REQUIRE(generated.has_value());
  // One generated kernel per elementwise application: none was folded away or merged. (The norms
  // launch kernels/norm.cuh's; independent neighbours share a launch as a launch group's member
  // functions, launch_groups.h.)
  size_t elementwise = 0;
  for (const ir::Node& node : table.graph.nodes())
    elementwise += ir::op_has_trait(node.op, ir::kElementwise) ? 1 : 0;
  size_t kernels = 0;
  for (const char* const kind : {"__global__ void", "__device__ __noinline__ void k"}) {
    for (size_t at = 0; (at = generated->cuda_source.find(kind, at)) != std::string::npos; ++at) {
      ++kernels;
    }
  }
  CHECK(kernels >= elementwise);

  const test::NvccBuildDir dir(*nvcc, *generated, "op_table_nvcc");
  INFO(table.graph.nodes().size() << " nodes");
  dir.run_strict(driver::nvcc_command(dir.build));
#if INFERNO_HAVE_RUNTIME
  const inferno_status status = inferno_model_check(dir.build.output.c_str(), 90);
  INFO(inferno_last_error());
  CHECK(status == INFERNO_STATUS_OK);
#endif
}

}  // namespace inferno
