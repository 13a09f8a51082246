// Parser and printer of fused_elementwise bodies (grammar in ir/fused_expr.h and docs/ir.md).
//
// The parser is a single left-to-right scan over at most kMaxFusedExprBytes bytes, with no
// recursion; it accepts only the canonical spelling that fused_expr_to_string writes, so the
// text of a body is a canonical key (CSE can compare attribute strings). Each step is typed by
// calling the op's own shape rule, which is what makes a fused node compute what the unfused
// nodes did.
#include "ir/fused_expr.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>

#include "ir/attr_schema.h"
#include "ir/shape_rules.h"
#include "ir/text_format.h"
#include "support/check.h"

namespace inferno::ir {
namespace {

constexpr size_t kMaxExcerpt = 40;  // bytes of untrusted text quoted in an error message

/// `s` for an error message: printable ASCII kept, other bytes as \xHH, long text shortened.
std::string excerpt(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  const bool shortened = s.size() > kMaxExcerpt;
  if (shortened) s = s.substr(0, kMaxExcerpt);
  std::string out;
  for (char c : s) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f) {
      out += c;
    } else {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    }
  }
  return shortened ? out + "..." : out;
}

bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/// The bracketed attribute values of a step, in schema order ("f16" for cast[f16]); "" for
/// ops without attributes.
std::string bracket_text(const FusedStep& step) {
  std::string out;
  for (const AttrSpec& spec : op_attr_schema(step.op)) {
    const AttrValue* value = step.attrs.find(spec.name);
    if (value == nullptr) continue;
    out += (out.empty() ? "" : ", ") + format_attr_value(*value);
  }
  return out;
}

std::string example_value(AttrType type) {
  switch (type) {
    case AttrType::kDType:
      return "f16";
    case AttrType::kFloat:
      return "0.5";
    case AttrType::kBool:
      return "true";
    default:
      return "1";
  }
}

/// One bracketed value: a dtype name, an int, a float (the IR's spelling, inf and nan
/// included) or a bool. Other attribute types have no bracket form.
std::optional<AttrValue> parse_bracket_value(AttrType type, std::string_view text) {
  const char* end = text.data() + text.size();
  switch (type) {
    case AttrType::kDType:
      if (std::optional<DType> d = parse_dtype(text)) return AttrValue(*d);
      return std::nullopt;
    case AttrType::kBool:
      if (text == "true" || text == "false") return AttrValue(text == "true");
      return std::nullopt;
    case AttrType::kInt: {
      int64_t v = 0;
      const auto r = std::from_chars(text.data(), end, v);
      if (r.ec != std::errc() || r.ptr != end) return std::nullopt;
      return AttrValue(v);
    }
    case AttrType::kFloat: {
      double v = 0;
      const auto r = std::from_chars(text.data(), end, v);
      if (text.empty() || r.ec != std::errc() || r.ptr != end) return std::nullopt;
      return AttrValue(v);
    }
    default:
      return std::nullopt;
  }
}

/// Types one step from its operands' types with its op's own shape rule; `error` wraps a
/// message into the caller's Status.
template <typename ErrorFn>
Expected<TensorType> type_step(const FusedStep& step, const std::vector<TensorType>& operand_types,
                               ErrorFn error) {
  const int n = static_cast<int>(step.operands.size());
  if (n < op_min_inputs(step.op) || n > op_max_inputs(step.op)) {
    return error(std::string(op_name(step.op)) + " takes " +
                 std::to_string(op_max_inputs(step.op)) + " operand(s), got " + std::to_string(n));
  }
  Expected<std::vector<TensorType>> types = infer_output_types(step.op, operand_types, step.attrs);
  if (!types) return error(types.status().message());
  INFERNO_CHECK(types->size() == 1, "elementwise ops have one output");
  return std::move((*types)[0]);
}

/// Every input is read and every step but the last feeds a later one: dead code would leave
/// inputs that need not broadcast to the result, which codegen's one loop relies on. `step_text`
/// names a step in the error.
template <typename StepTextFn>
Status check_uses(const FusedExpr& expr, size_t num_inputs, StepTextFn step_text) {
  std::vector<bool> input_read(num_inputs, false), step_read(expr.steps.size(), false);
  for (const FusedStep& step : expr.steps) {
    for (const FusedOperand& operand : step.operands) {
      (operand.kind == FusedOperand::Kind::kInput ? input_read : step_read)[operand.index] = true;
    }
  }
  for (size_t i = 0; i < input_read.size(); ++i) {
    if (!input_read[i]) {
      return invalid_input("input $" + std::to_string(i) + " is not read by any step");
    }
  }
  for (size_t k = 0; k + 1 < step_read.size(); ++k) {
    if (!step_read[k]) {
      return invalid_input("step " + std::to_string(k) + " '" + excerpt(step_text(k)) +
                           "': its result is not read by a later step");
    }
  }
  return Status::ok();
}

std::string operand_text(const FusedOperand& operand) {
  return (operand.kind == FusedOperand::Kind::kInput ? "$" : "#") + std::to_string(operand.index);
}

/// One left-to-right pass over the text; `pos_` is the next unread byte.
class ExprParser {
 public:
  ExprParser(std::string_view text, const std::vector<TensorType>& inputs)
      : text_(text), inputs_(inputs) {}

  Expected<FusedExpr> parse() {
    if (text_.size() > kMaxFusedExprBytes) {
      return invalid_input("expr has " + std::to_string(text_.size()) +
                           " bytes, more than the limit of " + std::to_string(kMaxFusedExprBytes));
    }
    if (inputs_.size() > static_cast<size_t>(kMaxFusedInputs)) {
      return invalid_input(std::to_string(inputs_.size()) + " inputs, more than the limit of " +
                           std::to_string(kMaxFusedInputs));
    }
    if (text_.empty()) return invalid_input("expr is empty");
    while (true) {
      if (expr_.steps.size() == static_cast<size_t>(kMaxFusedSteps)) {
        return invalid_input("expr has more than " + std::to_string(kMaxFusedSteps) + " steps");
      }
      step_index_ = expr_.steps.size();
      step_begin_ = pos_;
      INFERNO_RETURN_IF_ERROR(parse_step());
      if (pos_ == text_.size()) break;
      if (!consume("; ")) return error("expected '; ' or the end of the expr after ')'");
    }
    return check_uses();
  }

 private:
  Status parse_step() {
    FusedStep step;
    const std::string_view name = ident();
    if (name.empty()) return error("expected an op name");
    const std::optional<OpKind> op = parse_op_name(name);
    if (!op) return error("unknown op '" + excerpt(name) + "'");
    if (!op_has_trait(*op, kElementwise))
      return error(std::string(op_name(*op)) + " is not an elementwise op");
    step.op = *op;
    INFERNO_RETURN_IF_ERROR(parse_bracket(step));
    if (!consume("(")) return error("expected '(' after the op");
    std::vector<TensorType> operand_types;
    do {
      FusedOperand operand;
      INFERNO_RETURN_IF_ERROR(parse_operand(operand));
      operand_types.push_back(operand.kind == FusedOperand::Kind::kInput
                                  ? inputs_[operand.index]
                                  : expr_.steps[operand.index].type);
      step.operands.push_back(operand);
    } while (consume(", "));  // as many as the text holds; the length limit bounds them
    if (!consume(")")) return error("expected ', ' or ')' after an operand");
    INFERNO_ASSIGN_OR_RETURN(
        step.type,
        type_step(step, operand_types, [&](const std::string& what) { return error(what); }));
    expr_.steps.push_back(std::move(step));
    return Status::ok();
  }

  /// `[v0, v1]`: the values of the op's attributes, in its schema's order (ops.def); ops
  /// without attributes take no brackets.
  Status parse_bracket(FusedStep& step) {
    const std::vector<AttrSpec>& schema = op_attr_schema(step.op);
    const std::string name(op_name(step.op));
    if (!consume("[")) {
      if (schema.empty()) return Status::ok();
      return error(name + " needs its attribute values in brackets, as in " + name + "[" +
                   example_value(schema[0].type) + "]");
    }
    if (schema.empty()) return error(name + " takes no attribute in brackets");
    for (size_t i = 0; i < schema.size(); ++i) {
      if (i > 0 && !consume(", ")) return error("expected ', ' between attribute values");
      const size_t begin = pos_;
      while (pos_ < text_.size() && (is_ident_char(text_[pos_]) || text_[pos_] == '.' ||
                                     text_[pos_] == '-' || text_[pos_] == '+')) {
        ++pos_;
      }
      const std::string_view value = text_.substr(begin, pos_ - begin);
      std::optional<AttrValue> parsed = parse_bracket_value(schema[i].type, value);
      if (!parsed) {
        return error("bad " + std::string(attr_type_name(schema[i].type)) + " '" + excerpt(value) +
                     "' for " + name + "'s attribute " + schema[i].name);
      }
      step.attrs.set(schema[i].name, std::move(*parsed));
    }
    if (!consume("]")) return error("expected ']' after " + name + "'s attribute values");
    return Status::ok();
  }

  /// `$i` (input i) or `#k` (step k < the current step), i and k without leading zeros.
  Status parse_operand(FusedOperand& operand) {
    const size_t begin = pos_;
    if (consume("$")) {
      operand.kind = FusedOperand::Kind::kInput;
    } else if (consume("#")) {
      operand.kind = FusedOperand::Kind::kStep;
    } else {
      return error("expected an operand ($i or #k)");
    }
    const size_t digits = pos_;
    int64_t value = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      value = std::min<int64_t>(value * 10 + (text_[pos_] - '0'),
                                int64_t{1} << 31);  // saturates, no overflow
      ++pos_;
    }
    const std::string spelled = excerpt(text_.substr(begin, pos_ - begin));
    if (pos_ == digits) return error("expected digits after '" + spelled + "'");
    if (text_[digits] == '0' && pos_ - digits > 1)
      return error("operand " + spelled + " has a leading zero");
    const auto current = static_cast<int64_t>(expr_.steps.size());
    if (operand.kind == FusedOperand::Kind::kInput &&
        value >= static_cast<int64_t>(inputs_.size())) {
      return error(spelled + " is out of range: the node has " + std::to_string(inputs_.size()) +
                   " input(s)");
    }
    if (operand.kind == FusedOperand::Kind::kStep && value == current)
      return error(spelled + " refers to its own step");
    if (operand.kind == FusedOperand::Kind::kStep && value > current)
      return error(spelled + " refers to a later step");
    operand.index = static_cast<int32_t>(value);
    return Status::ok();
  }

  Expected<FusedExpr> check_uses() {
    INFERNO_RETURN_IF_ERROR(
        inferno::ir::check_uses(expr_, inputs_.size(), [&](size_t k) { return step_text(k); }));
    return std::move(expr_);
  }

  /// The identifier at pos_ (possibly empty), consumed.
  std::string_view ident() {
    const size_t begin = pos_;
    while (pos_ < text_.size() && is_ident_char(text_[pos_])) ++pos_;
    return text_.substr(begin, pos_ - begin);
  }

  bool consume(std::string_view token) {
    if (text_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }

  /// Text of step k as written: from its start up to the next ';' (or the end).
  std::string_view step_text(size_t k) const {
    size_t begin = 0;
    for (size_t i = 0; i < k; ++i) begin = text_.find(';', begin) + 1;
    return step_text_at(begin);
  }
  std::string_view step_text_at(size_t begin) const {
    const size_t end = text_.find(';', begin);
    return text_.substr(begin,
                        end == std::string_view::npos ? std::string_view::npos : end - begin);
  }

  Status error(const std::string& what) const {
    return invalid_input("step " + std::to_string(step_index_) + " '" +
                         excerpt(step_text_at(step_begin_)) + "': " + what);
  }

  std::string_view text_;
  const std::vector<TensorType>& inputs_;
  size_t pos_ = 0;
  size_t step_index_ = 0;  // the step being read, named by errors
  size_t step_begin_ = 0;
  FusedExpr expr_;
};

}  // namespace

Expected<FusedExpr> parse_fused_expr(std::string_view text,
                                     const std::vector<TensorType>& input_types) {
  return ExprParser(text, input_types).parse();
}

std::string fused_expr_to_string(const FusedExpr& expr) {
  std::string out;
  for (size_t k = 0; k < expr.steps.size(); ++k) {
    const FusedStep& step = expr.steps[k];
    if (k) out += "; ";
    out += op_name(step.op);
    const std::string bracket = bracket_text(step);
    if (!bracket.empty()) out += "[" + bracket + "]";
    out += "(";
    for (size_t i = 0; i < step.operands.size(); ++i)
      out += (i ? ", " : "") + operand_text(step.operands[i]);
    out += ")";
  }
  return out;
}

Expected<FusedExpr> type_fused_expr(const FusedExpr& expr,
                                    const std::vector<TensorType>& input_types) {
  if (expr.steps.empty()) return invalid_input("expr is empty");
  if (expr.steps.size() > static_cast<size_t>(kMaxFusedSteps)) {
    return invalid_input("expr has more than " + std::to_string(kMaxFusedSteps) + " steps");
  }
  if (input_types.size() > static_cast<size_t>(kMaxFusedInputs)) {
    return invalid_input(std::to_string(input_types.size()) + " inputs, more than the limit of " +
                         std::to_string(kMaxFusedInputs));
  }
  FusedExpr typed = expr;
  for (size_t k = 0; k < typed.steps.size(); ++k) {
    FusedStep& step = typed.steps[k];
    const auto error = [&](const std::string& what) {
      return invalid_input("step " + std::to_string(k) + " '" +
                           excerpt(fused_expr_to_string(FusedExpr{{step}})) + "': " + what);
    };
    if (!op_has_trait(step.op, kElementwise)) {
      return error(std::string(op_name(step.op)) + " is not an elementwise op");
    }
    std::vector<TensorType> operand_types;
    for (const FusedOperand& operand : step.operands) {
      const bool input = operand.kind == FusedOperand::Kind::kInput;
      const auto limit = static_cast<int32_t>(input ? input_types.size() : k);
      if (operand.index < 0 || operand.index >= limit) {
        return error(operand_text(operand) + " is out of range");
      }
      operand_types.push_back(input ? input_types[operand.index] : typed.steps[operand.index].type);
    }
    INFERNO_ASSIGN_OR_RETURN(step.type, type_step(step, operand_types, error));
  }
  INFERNO_RETURN_IF_ERROR(check_uses(typed, input_types.size(), [&](size_t k) {
    return fused_expr_to_string(FusedExpr{{typed.steps[k]}});
  }));
  return typed;
}

Status parse_body_attributes(OpKind op, const std::vector<TensorType>& input_types,
                             Attributes& attrs) {
  for (const AttrSpec& spec : op_attr_schema(op)) {
    if (spec.type != AttrType::kBody || !attrs.has_typed<std::string>(spec.name)) continue;
    Expected<FusedExpr> body = parse_fused_expr(attrs.get_string(spec.name), input_types);
    if (!body) return invalid_input(std::string(op_name(op)) + ": " + body.status().message());
    attrs.set(spec.name, make_fused_body(std::move(body).value()));
  }
  return Status::ok();
}

FusedBody make_fused_body(FusedExpr expr) {
  return FusedBody(std::make_shared<const FusedExpr>(std::move(expr)));
}

FusedBody::FusedBody(std::shared_ptr<const FusedExpr> expr) : expr_(std::move(expr)) {
  INFERNO_CHECK(expr_ != nullptr, "a fused body without an expression");
}

bool FusedBody::operator==(const FusedBody& other) const {
  return expr_ == other.expr_ || *expr_ == *other.expr_;
}

}  // namespace inferno::ir
