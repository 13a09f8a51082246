// Writing generated C++/CUDA text: an indenting line writer, and the escapes that keep
// model-provided strings (value names, source file names) from changing the code's meaning.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace inferno::codegen {

/// Accumulates lines of source at an indentation level (two spaces per level).
class SourceWriter {
 public:
  /// One line at the current indentation; an empty `text` writes an empty line.
  void line(std::string_view text);
  /// Several lines separated by '\n', each indented (a trailing '\n' adds nothing).
  void lines(std::string_view text);
  /// `text` + " {" and one level deeper; close() writes "}" (or `closing`) one level out.
  void open(std::string_view text);
  void close(std::string_view closing = "}");
  void indent() { ++depth_; }
  void dedent();
  /// One line at the current indentation, inserted at byte `offset` of the text (a line start).
  void insert_line(size_t offset, std::string_view text);
  /// Appends another writer's text, indented by this writer's current level.
  void append(const SourceWriter& other);

  const std::string& text() const { return text_; }
  bool empty() const { return text_.empty(); }

 private:
  std::string text_;
  int depth_ = 0;
};

/// A call's arguments, each after a comment naming its parameter, so a reader of model.cu sees
/// what every number means: "/* in */ v_x, /* rows */ 4".
using NamedArgs = std::vector<std::pair<std::string, std::string>>;
std::string named_args(const NamedArgs& args);

/// Text safe inside a `//` comment: every byte outside printable ASCII and every '\\' becomes
/// '?', and the second '?' of "??" becomes '.', so a model string can neither end the comment nor
/// splice the next line (directly or by a trigraph). Longer than `max_length` bytes: cut, with
/// "..." appended.
std::string comment_text(std::string_view text, size_t max_length = 200);

/// A C string literal (with the quotes) holding exactly `text`: '"', '\\' and '?' escaped,
/// every byte outside printable ASCII as a three-digit octal escape.
std::string c_string_literal(std::string_view text);

/// A C++ identifier derived from a value name: '.' becomes '_', anything else outside
/// [A-Za-z0-9_] becomes '_', prefixed with "v_" so that no name can collide with a keyword or with
/// the generated code's own names. Cut to 64 characters.
std::string value_identifier(std::string_view name);

/// Exact C++ literals of a number in the generated code's compute types: floats as `%.9g` with an
/// `f` suffix (`0.5f`, `-0.0f`, `1e+30f`), doubles as `%.17g`, non-finite values by their bits.
std::string float_literal(float value);
std::string double_literal(double value);
/// A size or index in plain decimal ("64"), as model.cu's launch arguments and messages write it.
std::string decimal(int64_t value);
/// An int64 literal; INT64_MIN is written as an expression, since `-9223372036854775808` is not
/// a literal.
std::string int_literal(int64_t value);

}  // namespace inferno::codegen
