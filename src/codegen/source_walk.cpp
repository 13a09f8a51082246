#include "codegen/source_walk.h"

namespace inferno::codegen {

std::string code_skeleton(std::string_view source) {
  std::string out;
  out.reserve(source.size());
  const std::string problem = walk_source(
      source, [&out](char c) { out += c; }, [](std::string_view) { return std::string(); });
  return problem.empty() ? out : "unparsable: " + problem;
}

}  // namespace inferno::codegen
