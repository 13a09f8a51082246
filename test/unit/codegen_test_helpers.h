// What the codegen unit tests share: generating a graph's model.cu or memory plan with fixed
// options (so the text does not depend on the machine), and a substring check.
#pragma once

#include <string>

#include "codegen/codegen.h"
#include "ir/graph.h"

namespace inferno::test {

/// Codegen options whose output is the same on every machine (no real hash or CUDA version).
codegen::CodegenOptions fixed_codegen_options();

/// The generated model.cu of `graph` (a failed generate fails the test).
std::string generate_cu(const ir::Graph& graph);

/// The memory plan's text (`--emit plan`) of `graph`.
std::string plan_text(const ir::Graph& graph);

inline bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace inferno::test
