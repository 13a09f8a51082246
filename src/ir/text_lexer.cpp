// The lexer is a plain loop over bytes: it skips blanks and `//` comments, then picks the token
// kind from the first byte. Numbers are lexed loosely (a sign, then a run of name characters, with
// a sign allowed right after an exponent 'e') and interpreted by the parser, which knows whether
// it wants an int, a float of some dtype or a NaN payload.
#include "ir/text_lexer.h"

#include "ir/text_format.h"

namespace inferno::ir {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_punct(char c) {
  constexpr std::string_view kPunct = "()[]{},:=<>";
  return c != '\0' && kPunct.find(c) != std::string_view::npos;
}
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

void Lexer::advance() {
  if (at_end()) return;
  if (text_[pos_] == '\n') {
    ++line_;
    col_ = 1;
  } else {
    ++col_;
  }
  ++pos_;
}

void Lexer::skip_blanks_and_comments() {
  while (!at_end()) {
    const char c = peek();
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      advance();
    } else if (c == '/' && peek(1) == '/') {
      while (!at_end() && peek() != '\n') advance();
    } else {
      return;
    }
  }
}

Token Lexer::make(TokenKind kind, size_t start, int64_t line, int64_t col) const {
  Token t;
  t.kind = kind;
  t.text = text_.substr(start, pos_ - start);
  t.line = line;
  t.col = col;
  return t;
}

Token Lexer::error(std::string message, int64_t line, int64_t col) {
  pos_ = text_.size();  // stop: everything after a lexical error is end of input
  Token t;
  t.kind = TokenKind::kError;
  t.str = std::move(message);
  t.line = line;
  t.col = col;
  return t;
}

Token Lexer::next() {
  skip_blanks_and_comments();
  const size_t start = pos_;
  const int64_t line = line_, col = col_;
  if (at_end()) return make(TokenKind::kEnd, start, line, col);
  const char c = peek();
  if (is_punct(c)) {
    advance();
    return make(TokenKind::kPunct, start, line, col);
  }
  if (c == '%') {
    advance();
    while (is_name_char(peek())) advance();
    if (pos_ == start + 1) return error("expected a value name after '%'", line, col);
    Token t = make(TokenKind::kValueName, start, line, col);
    t.text.remove_prefix(1);
    return t;
  }
  if (is_ident_start(c)) {
    while (is_name_char(peek())) advance();
    return make(TokenKind::kIdent, start, line, col);
  }
  if (c == '-' || is_digit(c)) return lex_number(start, line, col);
  if (c == '"') return lex_string(start, line, col);
  return error("unexpected character " + quote_string(std::string_view(&text_[pos_], 1)), line,
               col);
}

Token Lexer::lex_number(size_t start, int64_t line, int64_t col) {
  if (peek() == '-') advance();
  if (!is_name_char(peek())) return error("expected a number after '-'", line, col);
  const bool decimal = is_digit(peek());  // not inf/nan: may have an exponent sign
  advance();
  for (;;) {
    const char c = peek(), prev = text_[pos_ - 1];
    const bool exponent_sign = decimal && (c == '+' || c == '-') && (prev == 'e' || prev == 'E');
    if (!is_name_char(c) && !exponent_sign) break;
    advance();
  }
  return make(TokenKind::kNumber, start, line, col);
}

Token Lexer::lex_string(size_t start, int64_t line, int64_t col) {
  advance();  // opening quote
  std::string decoded;
  for (;;) {
    if (at_end()) return error("unterminated string", line, col);
    const char c = peek();
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"') break;
    if (c == '\n') return error("unterminated string", line, col);
    if (byte < 0x20 || byte == 0x7f)
      return error("control character in string (write it as \\xHH)", line_, col_);
    if (c == '\\') {
      const int64_t esc_line = line_, esc_col = col_;
      advance();
      if (!lex_escape(decoded))
        return error("unknown escape sequence in string", esc_line, esc_col);
    } else {
      decoded += c;
      advance();
    }
  }
  advance();  // closing quote
  Token t = make(TokenKind::kString, start, line, col);
  t.str = std::move(decoded);
  return t;
}

bool Lexer::lex_escape(std::string& out) {
  const char c = peek();
  advance();
  switch (c) {
    case '\\':
      out += '\\';
      return true;
    case '"':
      out += '"';
      return true;
    case 'n':
      out += '\n';
      return true;
    case 't':
      out += '\t';
      return true;
    case 'x': {
      const int hi = hex_value(peek()), lo = hex_value(peek(1));
      if (hi < 0 || lo < 0) return false;
      advance();
      advance();
      out += static_cast<char>(hi * 16 + lo);
      return true;
    }
    default:
      return false;
  }
}

std::string describe_token(const Token& token) {
  constexpr size_t kMaxShown = 24;
  switch (token.kind) {
    case TokenKind::kEnd:
      return "end of input";
    case TokenKind::kError:
      return "invalid input";
    case TokenKind::kString:
      return "string " + quote_string(token.str.substr(0, kMaxShown));
    case TokenKind::kValueName:
      return "'%" + std::string(token.text.substr(0, kMaxShown)) + "'";
    default:
      return "'" + std::string(token.text.substr(0, kMaxShown)) + "'";
  }
}

}  // namespace inferno::ir
