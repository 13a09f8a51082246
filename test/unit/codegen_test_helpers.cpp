#include "codegen_test_helpers.h"

#include "support/catch.h"

namespace inferno::test {

codegen::CodegenOptions fixed_codegen_options() {
  codegen::CodegenOptions o;
  o.source_model_hash = "0";
  o.cuda_version = "13.0";
  return o;
}

std::string generate_cu(const ir::Graph& graph) {
  auto generated = codegen::generate(graph, fixed_codegen_options());
  INFO((generated ? "" : generated.status().to_string()));
  REQUIRE(generated.has_value());
  return generated->cuda_source;
}

std::string plan_text(const ir::Graph& graph) {
  auto text = codegen::describe_memory_plan(graph, fixed_codegen_options());
  INFO((text ? "" : text.status().to_string()));
  REQUIRE(text.has_value());
  return *text;
}

}  // namespace inferno::test
