#include "support/source_hygiene.h"

namespace inferno::test {
namespace {

// Walks C++ source the way the preprocessor splits it: code, `//` and `/* */` comments, string
// and character literals (raw strings are not generated, so not handled). `on_code` gets the code
// bytes and the literals' quotes; `on_comment_end` the text of each `//` comment.
template <typename Code, typename CommentEnd>
std::string walk(std::string_view s, Code on_code, CommentEnd on_comment_end) {
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      const size_t end = s.find('\n', i);
      const std::string_view comment =
          s.substr(i, end == std::string_view::npos ? s.npos : end - i);
      std::string problem = on_comment_end(comment);
      if (!problem.empty()) return problem;
      i += comment.size();
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      const size_t end = s.find("*/", i + 2);
      if (end == std::string_view::npos) return "an unterminated /* comment";
      on_code(' ');
      i = end + 2;
    } else if (c == '"' || c == '\'') {
      on_code(c);
      size_t j = i + 1;
      while (j < s.size() && s[j] != c) {
        if (s[j] == '\n') return "a literal that runs to the end of its line";
        j += s[j] == '\\' ? 2 : 1;
      }
      if (j >= s.size()) return "an unterminated literal";
      on_code(c);
      i = j + 1;
    } else {
      on_code(c);
      ++i;
    }
  }
  return "";
}

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
  return walk(
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

std::string code_skeleton(std::string_view source) {
  std::string out;
  const std::string problem = walk(
      source, [&out](char c) { out += c; }, [](std::string_view) { return std::string(); });
  return problem.empty() ? out : "unparsable: " + problem;
}

}  // namespace inferno::test
