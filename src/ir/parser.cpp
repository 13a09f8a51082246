// Parser for the IR text form (grammar in docs/ir.md).
//
// How it works: a recursive-descent parser over the token stream of ir/text_lexer.h, with one
// token of lookahead (`cur_`). Each grammar rule is one method; none of them recurses into itself,
// so the stack depth is fixed whatever the input. Newlines are ordinary whitespace: the grammar
// alone tells where a statement ends.
//
// The graph is built as the text is read, in text order: a value must be defined (as a graph
// input, a constant or a node output) before a node uses it, exactly as the verifier requires.
// Names are resolved through a hash map from name to value; the text's names are used verbatim.
// For each node the parser runs the op's shape rule and compares the result with the declared
// output types, so a mismatch is reported at its line. After the closing brace it runs
// ir::verify as a last check.
//
// Sizes are bounded before anything is allocated: a type has at most kMaxRank dims and at most
// kMaxElements elements, and a constant's data grows only as its elements are read, so a
// hostile `f32[1099511627776]` costs nothing until its elements are actually present.
//
// Every error is an invalid-input Status whose message starts with "LINE:COL: ".
#include "ir/parser.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <unordered_map>

#include "ir/attr_schema.h"
#include "ir/fused_expr.h"
#include "ir/shape_rules.h"
#include "ir/text_format.h"
#include "ir/text_lexer.h"
#include "ir/verifier.h"
#include "support/check.h"
#include "support/half.h"

namespace inferno::ir {
namespace {

constexpr size_t kMaxRank = 64;
constexpr int64_t kMaxElements = int64_t{1} << 40;

struct Position {
  int64_t line = 1;
  int64_t col = 1;
};

Position position_of(const Token& token) { return {token.line, token.col}; }

Status error_at(Position pos, const std::string& message) {
  return invalid_input(std::to_string(pos.line) + ":" + std::to_string(pos.col) + ": " + message);
}

/// `text` as an int64 when it is exactly -?[0-9]+ and in range.
std::optional<int64_t> to_int(std::string_view text) {
  int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || ptr != text.data() + text.size() || text[0] == '+') return std::nullopt;
  return v;
}

/// A finite decimal number of type F (float or double): -?digit... read in full.
template <typename F>
std::optional<F> to_finite(std::string_view text) {
  const size_t first_digit = text.starts_with('-') ? 1 : 0;
  if (text.size() <= first_digit || text[first_digit] < '0' || text[first_digit] > '9')
    return std::nullopt;
  F v{};
  const auto [ptr, ec] =
      std::from_chars(text.data(), text.data() + text.size(), v, std::chars_format::general);
  if (ec != std::errc{} || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

/// Bits of the finite or infinite value `v` in a floating `dtype`; f16/bf16 round to nearest even.
uint64_t float_bits(double v, DType dtype) {
  switch (dtype) {
    case DType::kF64:
      return std::bit_cast<uint64_t>(v);
    case DType::kF16:
      return float_to_half_bits(static_cast<float>(v));
    case DType::kBF16:
      return float_to_bf16_bits(static_cast<float>(v));
    default:
      return std::bit_cast<uint32_t>(static_cast<float>(v));
  }
}

/// A value declared on the left of '=' (or in the graph header): `%name: type`.
struct Declaration {
  std::string_view name;
  TensorType type;
  Position pos;
};

struct Definition {
  ValueId id;
  Position pos;
};

class Parser {
 public:
  explicit Parser(std::string_view text) : lexer_(text), cur_(lexer_.next()) {}

  Expected<Graph> parse_graph();

 private:
  // Token helpers.
  void advance() { cur_ = lexer_.next(); }
  Status expected(const std::string& what) const;
  bool accept(char punct);
  Status expect(char punct);
  Status expect_word(std::string_view word);
  bool accept_word(std::string_view word);

  // Grammar rules, one per method.
  Status parse_header();
  Status parse_definition();
  Expected<Declaration> parse_declaration(const std::vector<Declaration>& same_statement);
  Expected<TensorType> parse_type();
  Expected<int64_t> parse_int();
  Expected<ValueId> parse_use();
  Status parse_constant(const Declaration& decl);
  Status parse_state();
  Status parse_element(DType dtype, std::vector<std::byte>& data);
  Expected<uint64_t> parse_float_bits(DType dtype);
  Status parse_node(const std::vector<Declaration>& decls);
  Status check_node_types(const Node& node, Position op_pos, const std::vector<Declaration>& decls);
  Status parse_attributes(Attributes& attrs);
  Expected<AttrValue> parse_attr_value();
  Status parse_bodies(Node& node, Position op_pos);
  Status parse_loc(SourceLocation& loc);
  Status parse_return();

  void define(const Declaration& decl, ValueId id);
  Status verify_graph() const;

  Lexer lexer_;
  Token cur_;
  Graph graph_;
  std::unordered_map<std::string_view, Definition> defined_;
};

Status Parser::expected(const std::string& what) const {
  if (cur_.kind == TokenKind::kError) return error_at(position_of(cur_), cur_.str);
  return error_at(position_of(cur_), "expected " + what + ", found " + describe_token(cur_));
}

bool Parser::accept(char punct) {
  if (!cur_.is_punct(punct)) return false;
  advance();
  return true;
}

Status Parser::expect(char punct) {
  if (accept(punct)) return Status::ok();
  return expected(std::string("'") + punct + "'");
}

bool Parser::accept_word(std::string_view word) {
  if (!cur_.is_ident(word)) return false;
  advance();
  return true;
}

Status Parser::expect_word(std::string_view word) {
  if (!cur_.is_ident(word)) return expected("'" + std::string(word) + "'");
  advance();
  return Status::ok();
}

Expected<Graph> Parser::parse_graph() {
  INFERNO_RETURN_IF_ERROR(parse_header());
  while (!cur_.is_ident("return")) {
    if (cur_.is_ident("state")) {
      INFERNO_RETURN_IF_ERROR(parse_state());
      continue;
    }
    if (cur_.kind != TokenKind::kValueName) return expected("a value definition or 'return'");
    INFERNO_RETURN_IF_ERROR(parse_definition());
  }
  INFERNO_RETURN_IF_ERROR(parse_return());
  INFERNO_RETURN_IF_ERROR(expect('}'));
  if (cur_.kind != TokenKind::kEnd) return expected("end of input");
  INFERNO_RETURN_IF_ERROR(verify_graph());
  return std::move(graph_);
}

// header := 'graph' '(' [declaration {',' declaration}] ')' '{'
Status Parser::parse_header() {
  INFERNO_RETURN_IF_ERROR(expect_word("graph"));
  INFERNO_RETURN_IF_ERROR(expect('('));
  if (!accept(')')) {
    do {
      INFERNO_ASSIGN_OR_RETURN(Declaration decl, parse_declaration({}));
      define(decl, graph_.add_input(decl.name, decl.type));
    } while (accept(','));
    INFERNO_RETURN_IF_ERROR(expect(')'));
  }
  return expect('{');
}

// definition := declaration {',' declaration} '=' (constant | node)
Status Parser::parse_definition() {
  std::vector<Declaration> decls;
  do {
    INFERNO_ASSIGN_OR_RETURN(Declaration decl, parse_declaration(decls));
    decls.push_back(std::move(decl));
  } while (accept(','));
  INFERNO_RETURN_IF_ERROR(expect('='));
  if (!cur_.is_ident("constant")) return parse_node(decls);
  if (decls.size() != 1) return error_at(decls[1].pos, "a constant defines exactly one value");
  advance();
  return parse_constant(decls[0]);
}

// declaration := VALUE ':' type
Expected<Declaration> Parser::parse_declaration(const std::vector<Declaration>& same_statement) {
  if (cur_.kind != TokenKind::kValueName) return expected("a value name");
  Declaration decl{cur_.text, {}, position_of(cur_)};
  std::optional<Position> first;
  if (auto previous = defined_.find(decl.name); previous != defined_.end())
    first = previous->second.pos;
  for (const Declaration& other : same_statement) {
    if (other.name == decl.name) first = other.pos;
  }
  if (first) {
    return error_at(decl.pos, "duplicate definition of %" + std::string(decl.name) +
                                  " (first defined at " + std::to_string(first->line) + ":" +
                                  std::to_string(first->col) + ")");
  }
  advance();
  INFERNO_RETURN_IF_ERROR(expect(':'));
  INFERNO_ASSIGN_OR_RETURN(decl.type, parse_type());
  return decl;
}

// type := DTYPE '[' [int {',' int}] ']'
Expected<TensorType> Parser::parse_type() {
  const Token dtype_token = cur_;
  if (dtype_token.kind != TokenKind::kIdent) return expected("a dtype");
  const std::optional<DType> dtype = parse_dtype(dtype_token.text);
  if (!dtype)
    return error_at(position_of(dtype_token),
                    "unknown dtype '" + std::string(dtype_token.text) + "'");
  advance();
  INFERNO_RETURN_IF_ERROR(expect('['));
  TensorType type{*dtype, {}};
  int64_t elements = 1;  // product of the nonzero dims, kept <= kMaxElements
  if (!accept(']')) {
    do {
      const Position dim_pos = position_of(cur_);
      INFERNO_ASSIGN_OR_RETURN(int64_t dim, parse_int());
      if (dim < 0) return error_at(dim_pos, "negative dimension " + std::to_string(dim));
      if (type.shape.size() == kMaxRank)
        return error_at(dim_pos, "more than " + std::to_string(kMaxRank) + " dimensions");
      if (dim > 0 && dim > kMaxElements / elements) {
        return error_at(dim_pos, "shape has more than 2^40 elements");
      }
      if (dim > 0) elements *= dim;
      type.shape.push_back(dim);
    } while (accept(','));
    INFERNO_RETURN_IF_ERROR(expect(']'));
  }
  return type;
}

Expected<int64_t> Parser::parse_int() {
  if (cur_.kind != TokenKind::kNumber) return expected("an integer");
  const std::optional<int64_t> v = to_int(cur_.text);
  if (!v && cur_.text.find_first_not_of("-0123456789") == std::string_view::npos) {
    return error_at(position_of(cur_), "integer " + std::string(cur_.text.substr(0, 40)) +
                                           " is out of range for int64");
  }
  if (!v) return expected("an integer");
  advance();
  return *v;
}

Expected<ValueId> Parser::parse_use() {
  if (cur_.kind != TokenKind::kValueName) return expected("a value name");
  auto it = defined_.find(cur_.text);
  if (it == defined_.end())
    return error_at(position_of(cur_), "unknown value %" + std::string(cur_.text));
  advance();
  return it->second.id;
}

// constant := 'constant' ('<' 'elided' '>' | '[' [element {',' element}] ']')
Status Parser::parse_constant(const Declaration& decl) {
  if (accept('<')) {
    INFERNO_RETURN_IF_ERROR(expect_word("elided"));
    INFERNO_RETURN_IF_ERROR(expect('>'));
    define(decl, graph_.add_constant(decl.name, decl.type, nullptr));
    return Status::ok();
  }
  INFERNO_RETURN_IF_ERROR(expect('['));
  const int64_t numel = decl.type.numel();
  const std::string what =
      "constant %" + std::string(decl.name) + " of type " + decl.type.to_string();
  std::vector<std::byte> data;
  int64_t count = 0;
  if (!cur_.is_punct(']')) {
    do {
      if (count == numel)
        return error_at(position_of(cur_),
                        what + " has " + std::to_string(numel) + " elements, found more");
      INFERNO_RETURN_IF_ERROR(parse_element(decl.type.dtype, data));
      ++count;
    } while (accept(','));
  }
  if (cur_.is_punct(']') && count != numel) {
    return error_at(position_of(cur_), what + " needs " + std::to_string(numel) +
                                           " elements, found " + std::to_string(count));
  }
  INFERNO_RETURN_IF_ERROR(expect(']'));
  Tensor tensor{decl.type, std::move(data)};
  define(decl, graph_.add_constant(decl.name, std::move(tensor)));
  return Status::ok();
}

// element := int | float | 'true' | 'false', as the constant's dtype requires
Status Parser::parse_element(DType dtype, std::vector<std::byte>& data) {
  uint64_t bits = 0;
  if (dtype == DType::kBool) {
    if (!cur_.is_ident("true") && !cur_.is_ident("false")) return expected("true or false");
    bits = cur_.is_ident("true") ? 1 : 0;
    advance();
  } else if (is_integral(dtype)) {
    const Position pos = position_of(cur_);
    INFERNO_ASSIGN_OR_RETURN(int64_t v, parse_int());
    if (dtype == DType::kI32 && (v < INT32_MIN || v > INT32_MAX))
      return error_at(pos, std::to_string(v) + " does not fit in i32");
    bits = static_cast<uint64_t>(v);
  } else {
    INFERNO_ASSIGN_OR_RETURN(bits, parse_float_bits(dtype));
  }
  const auto size = static_cast<size_t>(dtype_size(dtype));
  const size_t offset = data.size();
  data.resize(offset + size);
  std::memcpy(data.data() + offset, &bits, size);  // little-endian host: the low bytes
  return Status::ok();
}

// float := NUMBER | ['-'] 'inf' | ['-'] 'nan' | 'nan' '(' HEX ')'
Expected<uint64_t> Parser::parse_float_bits(DType dtype) {
  const bool word = cur_.kind == TokenKind::kIdent && (cur_.text == "inf" || cur_.text == "nan");
  if (cur_.kind != TokenKind::kNumber && !word) return expected("a number");
  const Token token = cur_;
  const bool negative = token.text.starts_with('-');
  const std::string_view magnitude = token.text.substr(negative ? 1 : 0);
  const FloatLayout layout = float_layout(dtype);
  advance();
  if (magnitude == "inf") return float_bits(negative ? -HUGE_VAL : HUGE_VAL, dtype);
  if (magnitude == "nan") {
    if (!cur_.is_punct('(')) return layout.canonical_nan() | (negative ? layout.sign : 0);
    advance();
    const Token payload = cur_;
    uint64_t bits = 0;
    const std::string_view hex =
        payload.text.substr(payload.text.starts_with("0x") ? 2 : payload.text.size());
    const auto [ptr, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), bits, 16);
    if (payload.kind != TokenKind::kNumber || hex.empty() || ec != std::errc{} ||
        ptr != hex.data() + hex.size()) {
      return expected("the bits of a nan as 0x...");
    }
    if (negative || (bits & ~layout.all()) != 0 || !layout.is_nan(bits)) {
      return error_at(position_of(payload), std::string(payload.text) + " is not a nan of " +
                                                std::string(dtype_name(dtype)));
    }
    advance();
    INFERNO_RETURN_IF_ERROR(expect(')'));
    return bits;
  }
  std::optional<uint64_t> bits;
  if (dtype == DType::kF64) {
    if (auto v = to_finite<double>(token.text)) bits = float_bits(*v, dtype);
  } else if (auto v = to_finite<float>(token.text)) {
    bits = float_bits(*v, dtype);
  }
  if (!bits)
    return error_at(position_of(token), "invalid " + std::string(dtype_name(dtype)) + " number '" +
                                            std::string(token.text.substr(0, 40)) + "'");
  return *bits;
}

// node := OP '(' [VALUE {',' VALUE}] ')' [attributes] [loc]
Status Parser::parse_node(const std::vector<Declaration>& decls) {
  const Token op_token = cur_;
  if (op_token.kind != TokenKind::kIdent) return expected("an op name or 'constant'");
  const std::optional<OpKind> op = parse_op_name(op_token.text);
  if (!op)
    return error_at(position_of(op_token), "unknown op '" + std::string(op_token.text) + "'");
  advance();
  Node node{*op, {}, {}, {}, {}};
  INFERNO_RETURN_IF_ERROR(expect('('));
  if (!accept(')')) {
    do {
      INFERNO_ASSIGN_OR_RETURN(ValueId input, parse_use());
      node.inputs.push_back(input);
    } while (accept(','));
    INFERNO_RETURN_IF_ERROR(expect(')'));
  }
  if (cur_.is_punct('{')) INFERNO_RETURN_IF_ERROR(parse_attributes(node.attrs));
  if (cur_.is_ident("loc")) INFERNO_RETURN_IF_ERROR(parse_loc(node.loc));
  apply_attr_defaults(node.op, node.attrs);
  INFERNO_RETURN_IF_ERROR(parse_bodies(node, position_of(op_token)));
  INFERNO_RETURN_IF_ERROR(check_node_types(node, position_of(op_token), decls));
  for (const Declaration& decl : decls) {
    const ValueId id = graph_.add_node_output(decl.name, decl.type);
    node.outputs.push_back(id);
    define(decl, id);
  }
  graph_.append_node(std::move(node));
  return Status::ok();
}

/// Bodies arrive as strings: parsed once here, against the node's input types, into the
/// structured form every later stage reads.
Status Parser::parse_bodies(Node& node, Position op_pos) {
  std::vector<TensorType> input_types;
  for (ValueId v : node.inputs) input_types.push_back(graph_.type(v));
  Status status = parse_body_attributes(node.op, input_types, node.attrs);
  if (!status) return error_at(op_pos, status.message());
  return Status::ok();
}

/// The declared output types must be what the op's shape rule computes.
Status Parser::check_node_types(const Node& node, Position op_pos,
                                const std::vector<Declaration>& decls) {
  std::vector<TensorType> input_types;
  for (ValueId v : node.inputs) input_types.push_back(graph_.type(v));
  Expected<std::vector<TensorType>> inferred = infer_output_types(node.op, input_types, node.attrs);
  if (!inferred) return error_at(op_pos, inferred.status().message());
  const std::string op(op_name(node.op));
  if (inferred->size() != decls.size()) {
    return error_at(op_pos, op + " produces " + std::to_string(inferred->size()) +
                                " output(s), but " + std::to_string(decls.size()) +
                                " are declared");
  }
  for (size_t i = 0; i < decls.size(); ++i) {
    if (decls[i].type != (*inferred)[i]) {
      return error_at(decls[i].pos, "%" + std::string(decls[i].name) + " is declared " +
                                        decls[i].type.to_string() + " but " + op + " produces " +
                                        (*inferred)[i].to_string());
    }
  }
  return Status::ok();
}

// attributes := '{' [IDENT '=' attr_value {',' IDENT '=' attr_value}] '}'
Status Parser::parse_attributes(Attributes& attrs) {
  INFERNO_RETURN_IF_ERROR(expect('{'));
  if (accept('}')) return Status::ok();
  do {
    const Token name = cur_;
    if (name.kind != TokenKind::kIdent) return expected("an attribute name");
    if (attrs.has(name.text))
      return error_at(position_of(name), "duplicate attribute '" + std::string(name.text) + "'");
    advance();
    INFERNO_RETURN_IF_ERROR(expect('='));
    INFERNO_ASSIGN_OR_RETURN(AttrValue value, parse_attr_value());
    attrs.set(std::string(name.text), std::move(value));
  } while (accept(','));
  return expect('}');
}

// attr_value := int | float | 'true' | 'false' | STRING | DTYPE | '[' [int {',' int}] ']'
Expected<AttrValue> Parser::parse_attr_value() {
  if (accept('[')) {
    IntList list;
    if (accept(']')) return AttrValue(std::move(list));
    do {
      INFERNO_ASSIGN_OR_RETURN(int64_t v, parse_int());
      list.push_back(v);
    } while (accept(','));
    INFERNO_RETURN_IF_ERROR(expect(']'));
    return AttrValue(std::move(list));
  }
  if (cur_.kind == TokenKind::kString) {
    std::string s = std::move(cur_.str);
    advance();
    return AttrValue(std::move(s));
  }
  if (cur_.is_ident("true") || cur_.is_ident("false")) {
    const bool v = cur_.is_ident("true");
    advance();
    return AttrValue(v);
  }
  if (cur_.kind == TokenKind::kIdent && !cur_.is_ident("inf") && !cur_.is_ident("nan")) {
    const std::optional<DType> dtype = parse_dtype(cur_.text);
    if (!dtype) return expected("an attribute value");
    advance();
    return AttrValue(*dtype);
  }
  if (cur_.kind == TokenKind::kNumber) {
    if (const std::optional<int64_t> v = to_int(cur_.text)) {
      advance();
      return AttrValue(*v);
    }
  }
  INFERNO_ASSIGN_OR_RETURN(uint64_t bits, parse_float_bits(DType::kF64));
  return AttrValue(std::bit_cast<double>(bits));
}

// loc := 'loc' '(' STRING [':' int] ')'
Status Parser::parse_loc(SourceLocation& loc) {
  advance();  // 'loc'
  INFERNO_RETURN_IF_ERROR(expect('('));
  if (cur_.kind != TokenKind::kString) return expected("a file name string");
  if (cur_.str.empty()) return error_at(position_of(cur_), "empty file name in loc");
  loc.file = std::move(cur_.str);
  advance();
  if (accept(':')) {
    const Position pos = position_of(cur_);
    INFERNO_ASSIGN_OR_RETURN(loc.line, parse_int());
    if (loc.line <= 0)
      return error_at(pos, "line number must be positive, found " + std::to_string(loc.line));
  }
  return expect(')');
}

// state := 'state' declaration '=' ('zeros' | 'constant' '[' elements ']'); before any node, so
// that states follow the inputs of the header.
Status Parser::parse_state() {
  const Position pos = position_of(cur_);
  advance();  // 'state'
  if (!graph_.nodes().empty() || !graph_.constants().empty())
    return error_at(pos, "states are declared before constants and nodes");
  INFERNO_ASSIGN_OR_RETURN(Declaration decl, parse_declaration({}));
  INFERNO_RETURN_IF_ERROR(expect('='));
  if (accept_word("zeros")) {
    define(decl, graph_.add_state(decl.name, decl.type, nullptr));
    return Status::ok();
  }
  INFERNO_RETURN_IF_ERROR(expect_word("constant"));
  if (cur_.is_punct('<'))
    return error_at(position_of(cur_), "a state's initial value cannot be elided");
  // Parse the elements as a constant's, then move its data into the state.
  Graph scratch_owner;
  std::swap(scratch_owner, graph_);
  Status parsed = parse_constant(decl);
  std::swap(scratch_owner, graph_);
  if (!parsed) return parsed;
  defined_.erase(decl.name);
  const ValueId tmp = scratch_owner.constants().back();
  define(decl, graph_.add_state(decl.name, decl.type, scratch_owner.value(tmp).constant));
  return Status::ok();
}

// return := 'return' [VALUE {',' VALUE}] ['updates' VALUE {',' VALUE}] (one update per state)
Status Parser::parse_return() {
  advance();  // 'return'
  std::vector<ValueId> outputs;
  auto values = [&]() -> Status {
    do {
      INFERNO_ASSIGN_OR_RETURN(ValueId v, parse_use());
      outputs.push_back(v);
    } while (accept(','));
    return Status::ok();
  };
  if (cur_.kind == TokenKind::kValueName) INFERNO_RETURN_IF_ERROR(values());
  const size_t user_outputs = outputs.size();
  const Position updates_pos = position_of(cur_);
  if (accept_word("updates")) INFERNO_RETURN_IF_ERROR(values());
  if (outputs.size() - user_outputs != graph_.num_states()) {
    return error_at(updates_pos,
                    "the graph has " + std::to_string(graph_.num_states()) + " states and " +
                        std::to_string(outputs.size() - user_outputs) + " updates after 'return'");
  }
  graph_.set_outputs(std::move(outputs));
  return Status::ok();
}

void Parser::define(const Declaration& decl, ValueId id) {
  INFERNO_CHECK(graph_.name(id) == decl.name, "parser: value name changed by the graph");
  defined_.emplace(decl.name, Definition{id, decl.pos});
}

/// Runs the verifier; its errors are reported at the definition of the node they name.
Status Parser::verify_graph() const {
  Status status = verify(graph_);
  if (status.is_ok()) return status;
  auto it = defined_.find(status.node());
  return error_at(it != defined_.end() ? it->second.pos : Position{}, status.to_string());
}

}  // namespace

Expected<Graph> parse_graph(std::string_view text) { return Parser(text).parse_graph(); }

}  // namespace inferno::ir
