#include "support/source_hygiene.h"

#include "codegen/source_walk.h"

namespace inferno::test {
namespace {

bool is_trigraph_end(std::string_view comment) {
  static constexpr std::string_view kLast = "=/'()!<>-";
  return comment.size() >= 3 && comment[comment.size() - 3] == '?' &&
         comment[comment.size() - 2] == '?' && kLast.find(comment.back()) != std::string_view::npos;
}

}  // namespace

std::string source_hygiene_problem(std::string_view source) {
  for (size_t i = 0; i < source.size(); ++i) {
    const auto byte = static_cast<unsigned char>(source[i]);
    if (byte != '\n' && (byte < 0x20 || byte > 0x7e)) {
      return "byte " + std::to_string(byte) + " at offset " + std::to_string(i);
    }
  }
  return codegen::walk_source(
      source, [](char) {},
      [](std::string_view comment) -> std::string {
        if (!comment.empty() && comment.back() == '\\') {
          return "a // comment ending in a backslash: " + std::string(comment);
        }
        if (is_trigraph_end(comment)) {
          return "a // comment ending in a trigraph: " + std::string(comment);
        }
        return "";
      });
}

}  // namespace inferno::test
