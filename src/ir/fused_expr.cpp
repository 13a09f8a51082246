// Parser and printer of fused_elementwise bodies (grammar in ir/fused_expr.h and docs/ir.md).
//
// The parser is a single left-to-right scan over at most kMaxFusedExprBytes bytes, with no
// recursion; it accepts only the canonical spelling that fused_expr_to_string writes, so the
// text of a body is a canonical key (CSE can compare attribute strings). Each step is typed by
// calling the op's own shape rule, which is what makes a fused node compute what the unfused
// nodes did.
#include "ir/fused_expr.h"

#include <algorithm>
#include <optional>
#include <string>

#include "ir/shape_rules.h"
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

/// The bracketed attribute of a step, or "" for ops without one.
std::string bracket_text(const FusedStep& step) {
  if (step.op == OpKind::kGelu) return step.attrs.get_string("approximate");
  if (step.op == OpKind::kCast) return std::string(dtype_name(step.attrs.get_dtype("dtype")));
  return "";
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
    const int n = static_cast<int>(step.operands.size());
    if (n < op_min_inputs(step.op) || n > op_max_inputs(step.op)) {
      return error(std::string(op_name(step.op)) + " takes " +
                   std::to_string(op_max_inputs(step.op)) + " operand(s), got " +
                   std::to_string(n));
    }
    Expected<std::vector<TensorType>> types =
        infer_output_types(step.op, operand_types, step.attrs);
    if (!types) return error(types.status().message());
    INFERNO_CHECK(types->size() == 1, "elementwise ops have one output");
    step.type = std::move((*types)[0]);
    expr_.steps.push_back(std::move(step));
    return Status::ok();
  }

  /// `[none]`/`[tanh]` for gelu, `[dtype]` for cast; no other op takes brackets.
  Status parse_bracket(FusedStep& step) {
    const std::string_view name = op_name(step.op);
    if (!consume("[")) {
      if (step.op == OpKind::kGelu) return error("gelu needs [none] or [tanh]");
      if (step.op == OpKind::kCast) return error("cast needs a dtype in brackets, as in cast[f16]");
      return Status::ok();
    }
    const std::string_view value = ident();
    if (!consume("]")) return error("expected an identifier and ']' after '['");
    if (step.op == OpKind::kGelu) {
      if (value != "none" && value != "tanh")
        return error("gelu takes [none] or [tanh], got [" + excerpt(value) + "]");
      step.attrs.set("approximate", std::string(value));
    } else if (step.op == OpKind::kCast) {
      const std::optional<DType> dtype = parse_dtype(value);
      if (!dtype) return error("unknown dtype '" + excerpt(value) + "'");
      step.attrs.set("dtype", *dtype);
    } else {
      return error(std::string(name) + " takes no attribute in brackets");
    }
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

  /// Every input is read and every step but the last feeds a later one: dead code would leave
  /// inputs that need not broadcast to the result, which codegen's one loop relies on.
  Expected<FusedExpr> check_uses() {
    std::vector<bool> input_read(inputs_.size(), false), step_read(expr_.steps.size(), false);
    for (const FusedStep& step : expr_.steps) {
      for (const FusedOperand& operand : step.operands) {
        (operand.kind == FusedOperand::Kind::kInput ? input_read : step_read)[operand.index] = true;
      }
    }
    for (size_t i = 0; i < input_read.size(); ++i) {
      if (!input_read[i])
        return invalid_input("input $" + std::to_string(i) + " is not read by any step");
    }
    for (size_t k = 0; k + 1 < step_read.size(); ++k) {
      if (!step_read[k]) {
        return invalid_input("step " + std::to_string(k) + " '" + excerpt(step_text(k)) +
                             "': its result is not read by a later step");
      }
    }
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

}  // namespace inferno::ir
