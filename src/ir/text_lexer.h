// Tokenizer for the IR text form (see docs/ir.md). Internal to the parser.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace inferno::ir {

enum class TokenKind : uint8_t {
  kEnd,        ///< end of input
  kError,      ///< a lexical error; `str` holds the message
  kIdent,      ///< [A-Za-z_][A-Za-z0-9_.]*: keywords, op, dtype and attribute names, inf, nan
  kValueName,  ///< %name; `text` is the name without '%'
  kNumber,     ///< -?[0-9]... or -inf / -nan; `text` is its spelling, interpreted by the parser
  kString,     ///< "..."; `str` holds the decoded bytes
  kPunct,      ///< one of ( ) [ ] { } , : = < >
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string_view text;  ///< the token's source text (see TokenKind)
  std::string str;        ///< decoded string literal, or the error message of a kError token
  int64_t line = 1;       ///< 1-based
  int64_t col = 1;        ///< 1-based, in bytes

  bool is_punct(char c) const { return kind == TokenKind::kPunct && text[0] == c; }
  bool is_ident(std::string_view word) const { return kind == TokenKind::kIdent && text == word; }
};

/// Splits the text into tokens on demand. Spaces, tabs, newlines and `//` comments separate
/// tokens and are otherwise ignored. Never fails hard: bad input yields a kError token, after
/// which it keeps returning kEnd.
class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}
  Token next();

 private:
  char peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  bool at_end() const { return pos_ >= text_.size(); }
  void advance();
  void skip_blanks_and_comments();
  Token make(TokenKind kind, size_t start, int64_t line, int64_t col) const;
  Token error(std::string message, int64_t line, int64_t col);
  Token lex_number(size_t start, int64_t line, int64_t col);
  Token lex_string(size_t start, int64_t line, int64_t col);
  /// Decodes the escape after a backslash into `out`; false for an unknown escape.
  bool lex_escape(std::string& out);

  std::string_view text_;
  size_t pos_ = 0;
  int64_t line_ = 1;
  int64_t col_ = 1;
};

/// A short, printable description of a token for error messages: 'linear', '%x', '(', a string,
/// end of input.
std::string describe_token(const Token& token);

}  // namespace inferno::ir
