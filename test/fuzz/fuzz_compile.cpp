#include "fuzz_compile.h"

#include "codegen/codegen.h"
#include "fuzz_target.h"
#include "passes/pipeline.h"

namespace inferno::fuzz {

void optimize_and_generate(ir::Graph& graph) {
  const Status optimized = passes::run_default_pipeline(graph, {});
  if (!optimized.is_ok()) {
    require_not_internal(optimized, "the default pipeline");
    return;
  }
  Expected<codegen::GeneratedModel> generated = codegen::generate(graph, {});
  if (!generated) require_not_internal(generated.status(), "codegen");
}

}  // namespace inferno::fuzz
