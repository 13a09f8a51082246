// Reading generated C++ back the way the preprocessor splits it: code, comments and literals.
// Model-provided text (names, source files) only ever reaches comments and the contents of string
// literals, so anything that reads generated code for its meaning (the profile plan, the codegen
// fuzz oracle) reads its skeleton, never the raw text.
#pragma once

#include <string>
#include <string_view>

namespace inferno::codegen {

/// Walks `s`: `on_code` gets the code bytes and the literals' quotes (a `/* */` comment becomes one
/// blank), `on_comment` the text of each `//` comment and may return a problem that stops the
/// walk. Returns that problem, or why `s` cannot be split (an unterminated literal or comment, a
/// literal that runs to the end of its line), or "". Raw strings are not generated, so not handled.
template <typename Code, typename Comment>
std::string walk_source(std::string_view s, Code on_code, Comment on_comment) {
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      const size_t end = s.find('\n', i);
      const std::string_view comment =
          s.substr(i, end == std::string_view::npos ? s.npos : end - i);
      std::string problem = on_comment(comment);
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

/// `source` with its comments removed and the contents of its string and character literals
/// blanked (`"..."` becomes `""`): what the compiler parses, less the text that may carry model
/// strings. "unparsable: <why>" when walk_source() cannot split it.
std::string code_skeleton(std::string_view source);

}  // namespace inferno::codegen
