// Decoding pieces of model.json: TensorMeta, SymInt, dtype codes, node targets, outputs and
// source locations; and a small evaluator for symbolic size expressions.
#include <algorithm>
#include <cctype>
#include <utility>

#include "frontend/pt2_json.h"
#include "frontend/pt2_model.h"

namespace inferno::frontend::pt2 {

Expected<SymDim> parse_sym_int(const JsonRef& j) {
  INFERNO_ASSIGN_OR_RETURN(auto member, j.one_of());
  auto& [kind, v] = member;
  SymDim dim;
  if (kind == "as_int") {
    INFERNO_ASSIGN_OR_RETURN(dim.value, v.integer());
    return dim;
  }
  if (kind != "as_expr") return v.error("unknown SymInt kind '" + kind + "'");
  INFERNO_ASSIGN_OR_RETURN(JsonRef expr, v.at("expr_str"));
  INFERNO_ASSIGN_OR_RETURN(dim.expr, expr.string());
  if (std::optional<JsonRef> hint = v.find("hint")) {
    if (hint->raw().is_number_integer()) {
      INFERNO_ASSIGN_OR_RETURN(dim.hint, hint->integer());
    } else {
      INFERNO_ASSIGN_OR_RETURN(auto h, hint->one_of());
      if (h.first == "as_int") {
        INFERNO_ASSIGN_OR_RETURN(dim.hint, h.second.integer());
      }
    }
  }
  return dim;
}

Expected<TensorMeta> parse_tensor_meta(const JsonRef& j) {
  TensorMeta meta;
  INFERNO_ASSIGN_OR_RETURN(JsonRef dtype, j.at("dtype"));
  INFERNO_ASSIGN_OR_RETURN(meta.dtype_code, dtype.integer());
  for (auto [key, out] : {std::pair{"sizes", &meta.sizes}, std::pair{"strides", &meta.strides}}) {
    std::optional<JsonRef> list = j.find(key);
    if (!list) {
      if (out == &meta.strides) continue;  // strides are only needed for payloads
      return j.error(std::string("missing field '") + key + "'");
    }
    INFERNO_ASSIGN_OR_RETURN(std::vector<JsonRef> dims, list->items());
    for (const JsonRef& d : dims) {
      INFERNO_ASSIGN_OR_RETURN(SymDim dim, parse_sym_int(d));
      out->push_back(std::move(dim));
    }
  }
  if (meta.sizes.size() > kMaxRank) {
    return j.error("rank " + std::to_string(meta.sizes.size()) +
                   ", more than infernoc's limit of " + std::to_string(kMaxRank));
  }
  if (std::optional<JsonRef> offset = j.find("storage_offset")) {
    INFERNO_ASSIGN_OR_RETURN(meta.storage_offset, parse_sym_int(*offset));
  } else {
    meta.storage_offset.value = 0;
  }
  return meta;
}

Expected<ir::DType> dtype_from_code(int64_t code, const std::string& what) {
  switch (code) {
    case 4:
      return ir::DType::kI32;
    case 5:
      return ir::DType::kI64;
    case 6:
      return ir::DType::kF16;
    case 7:
      return ir::DType::kF32;
    case 8:
      return ir::DType::kF64;
    case 12:
      return ir::DType::kBool;
    case 13:
      return ir::DType::kBF16;
    default:
      break;
  }
  static const std::map<int64_t, const char*> kNames = {
      {1, "uint8"},           {2, "int8"},
      {3, "int16"},           {9, "complex32"},
      {10, "complex64"},      {11, "complex128"},
      {28, "uint16"},         {29, "float8_e4m3fn"},
      {30, "float8_e5m2"},    {31, "float8_e4m3fnuz"},
      {32, "float8_e5m2fnuz"}};
  auto it = kNames.find(code);
  if (it == kNames.end())
    return invalid_input(what + " has unknown dtype code " + std::to_string(code));
  return unsupported(what + " has dtype " + it->second + ", which infernoc does not support");
}

namespace {

// Recursive descent over: expr = term (('+'|'-') term)*; term = unary (('*'|'//'|'%') unary)*;
// unary = '-' unary | primary; primary = integer | symbol | '(' expr ')'.
class ExprParser {
 public:
  ExprParser(std::string_view s, const Symbols& symbols) : s_(s), symbols_(symbols) {}

  std::optional<int64_t> parse() {
    std::optional<int64_t> v = expr();
    skip();
    return pos_ == s_.size() ? v : std::nullopt;
  }

 private:
  void skip() {
    while (pos_ < s_.size() && s_[pos_] == ' ') ++pos_;
  }
  bool eat(std::string_view tok) {
    skip();
    if (s_.substr(pos_, tok.size()) != tok) return false;
    pos_ += tok.size();
    return true;
  }
  std::optional<int64_t> expr() {
    std::optional<int64_t> v = term();
    while (v) {
      int64_t r = 0;
      if (eat("+")) {
        std::optional<int64_t> t = term();
        if (!t || __builtin_add_overflow(*v, *t, &r)) return std::nullopt;
      } else if (eat("-")) {
        std::optional<int64_t> t = term();
        if (!t || __builtin_sub_overflow(*v, *t, &r)) return std::nullopt;
      } else {
        break;
      }
      v = r;
    }
    return v;
  }
  std::optional<int64_t> term() {
    std::optional<int64_t> v = unary();
    while (v) {
      int64_t r = 0;
      if (eat("*")) {
        std::optional<int64_t> u = unary();
        if (!u || __builtin_mul_overflow(*v, *u, &r)) return std::nullopt;
      } else if (eat("//") || eat("%")) {
        const bool mod = s_[pos_ - 1] == '%';
        std::optional<int64_t> u = unary();
        if (!u || *u == 0 || (*v == INT64_MIN && *u == -1)) return std::nullopt;
        const int64_t q = *v / *u - ((*v % *u != 0) && ((*v < 0) != (*u < 0)));  // floor division
        r = mod ? *v - q * *u : q;
      } else {
        break;
      }
      v = r;
    }
    return v;
  }
  std::optional<int64_t> unary() {
    if (depth_ >= kMaxDepth) return std::nullopt;  // the string is untrusted: bound the recursion
    ++depth_;
    std::optional<int64_t> v;
    if (eat("-")) {
      v = unary();
      if (v && *v != INT64_MIN)
        v = -*v;
      else
        v.reset();
    } else {
      v = primary();
    }
    --depth_;
    return v;
  }
  std::optional<int64_t> primary() {
    skip();
    if (eat("(")) {
      std::optional<int64_t> v = expr();
      return v && eat(")") ? v : std::nullopt;
    }
    const size_t start = pos_;
    if (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
      int64_t v = 0;
      for (; pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_])); ++pos_) {
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s_[pos_] - '0', &v))
          return std::nullopt;
      }
      return v;
    }
    while (pos_ < s_.size() &&
           (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))
      ++pos_;
    const std::string_view name = s_.substr(start, pos_ - start);
    if (eat("(")) return call(name);
    auto it = symbols_.find(name);
    if (pos_ == start || it == symbols_.end()) return std::nullopt;
    return it->second;
  }
  // sympy's srepr form, as torch 2.9+ writes sizes: Symbol('s0', positive=True, integer=True),
  // Integer(16), Add(a, b, ...), Mul(a, b, ...), FloorDiv(a, b), Mod(a, b), Max(a, b), Min(a, b).
  std::optional<int64_t> call(std::string_view function) {
    if (function == "Symbol") {
      if (!eat("'")) return std::nullopt;
      const size_t begin = pos_, end = s_.find('\'', pos_);
      if (end == std::string_view::npos) return std::nullopt;
      pos_ = end + 1;
      const size_t close = s_.find(')', pos_);  // the assumptions: keyword=True, ...
      if (close == std::string_view::npos) return std::nullopt;
      pos_ = close + 1;
      auto it = symbols_.find(s_.substr(begin, end - begin));
      if (it == symbols_.end()) return std::nullopt;
      return it->second;
    }
    std::vector<int64_t> args;
    do {
      std::optional<int64_t> v = expr();
      if (!v) return std::nullopt;
      args.push_back(*v);
    } while (eat(","));
    if (!eat(")") || args.empty()) return std::nullopt;
    int64_t r = args[0];
    if (function == "Integer" && args.size() == 1) return r;
    if (function == "Add" || function == "Mul") {
      for (size_t i = 1; i < args.size(); ++i) {
        const bool overflow = function == "Add" ? __builtin_add_overflow(r, args[i], &r)
                                                : __builtin_mul_overflow(r, args[i], &r);
        if (overflow) return std::nullopt;
      }
      return r;
    }
    if ((function == "Max" || function == "Min") && args.size() >= 2) {
      for (int64_t a : args) r = function == "Max" ? std::max(r, a) : std::min(r, a);
      return r;
    }
    if ((function == "FloorDiv" || function == "Mod" || function == "PythonMod") &&
        args.size() == 2) {
      const int64_t a = args[0], b = args[1];
      if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
      const int64_t q = a / b - ((a % b != 0) && ((a < 0) != (b < 0)));  // floor division
      return function == "FloorDiv" ? q : a - q * b;
    }
    return std::nullopt;
  }

  static constexpr int kMaxDepth = 200;
  std::string_view s_;
  const Symbols& symbols_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

Target parse_target(const std::string& target) {
  constexpr std::string_view kPrefix = "torch.ops.aten.";
  if (!target.starts_with(kPrefix)) return {target, "", false};
  std::string rest = target.substr(kPrefix.size());
  const size_t dot = rest.rfind('.');
  if (dot == std::string::npos) return {"aten::" + rest, "", true};
  return {"aten::" + rest.substr(0, dot), rest.substr(dot + 1), true};
}

SourceLocation location_from(const JsonRef& node) {
  std::optional<JsonRef> meta = node.find("metadata");
  std::optional<JsonRef> trace = meta ? meta->find("stack_trace") : std::nullopt;
  if (!trace || !trace->raw().is_string()) return {};
  const std::string& text = trace->raw().get_ref<const std::string&>();
  SourceLocation best, any;
  for (size_t pos = text.find("File \""); pos != std::string::npos;
       pos = text.find("File \"", pos + 1)) {
    const size_t begin = pos + 6, end = text.find("\", line ", begin);
    if (end == std::string::npos) break;
    const std::string file = text.substr(begin, end - begin);
    int64_t line = 0;
    for (size_t i = end + 8;
         i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && line < 1e9; ++i) {
      line = line * 10 + (text[i] - '0');
    }
    SourceLocation loc{file.substr(file.find_last_of("/\\") + 1), line};
    any = loc;
    if (file.find("/torch/") == std::string::npos) best = loc;
  }
  return best.empty() ? any : best;
}

Expected<std::vector<std::string>> output_names(const JsonRef& node) {
  INFERNO_ASSIGN_OR_RETURN(JsonRef outs_json, node.at("outputs"));
  INFERNO_ASSIGN_OR_RETURN(std::vector<JsonRef> outs, outs_json.items());
  std::vector<std::string> names;
  for (const JsonRef& out : outs) {
    INFERNO_ASSIGN_OR_RETURN(auto member, out.one_of());
    auto& [kind, v] = member;
    if (kind == "as_tensor" || kind == "as_sym_int") {
      INFERNO_ASSIGN_OR_RETURN(JsonRef n, v.at(kind == "as_tensor" ? "name" : "as_name"));
      INFERNO_ASSIGN_OR_RETURN(names.emplace_back(), n.string());
    } else if (kind == "as_tensors") {
      INFERNO_ASSIGN_OR_RETURN(std::vector<JsonRef> list, v.items());
      for (const JsonRef& t : list) {
        INFERNO_ASSIGN_OR_RETURN(JsonRef n, t.at("name"));
        INFERNO_ASSIGN_OR_RETURN(names.emplace_back(), n.string());
      }
    } else if (kind == "as_none") {
      names.emplace_back();
    } else {
      return out.error("unsupported output kind '" + kind + "'");
    }
  }
  return names;
}

std::string symbol_name(std::string_view expr) {
  constexpr std::string_view kSymbol = "Symbol('";
  if (!expr.starts_with(kSymbol)) return std::string(expr);
  const size_t end = expr.find('\'', kSymbol.size());
  if (end == std::string_view::npos || expr.find(')', end) != expr.size() - 1)
    return std::string(expr);
  return std::string(expr.substr(kSymbol.size(), end - kSymbol.size()));
}

namespace {

// The identifiers of a size expression ("2*s94 + s7" -> s94, s7), numbers left out.
std::vector<std::string_view> identifiers(std::string_view expr) {
  std::vector<std::string_view> names;
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t i = 0; i < expr.size();) {
    if (!word(expr[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < expr.size() && word(expr[end])) ++end;
    if (!std::isdigit(static_cast<unsigned char>(expr[i])))
      names.push_back(expr.substr(i, end - i));
    i = end;
  }
  return names;
}

}  // namespace

bool is_identifier(std::string_view name) {
  const std::vector<std::string_view> names = identifiers(name);
  return names.size() == 1 && names.front() == name;
}

bool mentions_symbol(std::string_view expr, std::string_view symbol) {
  const std::vector<std::string_view> ours = identifiers(symbol);
  for (const std::string_view name : identifiers(expr)) {
    if (std::find(ours.begin(), ours.end(), name) != ours.end()) return true;
  }
  return false;
}

std::optional<int64_t> eval_sym_expr(std::string_view expr, const Symbols& symbols) {
  return ExprParser(expr, symbols).parse();
}

namespace {

// The SymInt operators and what eval_sym_expr spells them; neg takes one argument.
constexpr std::pair<std::string_view, std::string_view> kSymIntOps[] = {
    {"_operator.add", "+"},       {"_operator.sub", "-"}, {"_operator.mul", "*"},
    {"_operator.floordiv", "//"}, {"_operator.mod", "%"}, {"_operator.neg", "-"}};

}  // namespace

bool is_sym_int_op(std::string_view target) {
  for (const auto& [name, spelling] : kSymIntOps) {
    if (name == target) return true;
  }
  return false;
}

std::optional<int64_t> eval_sym_int_op(std::string_view target, const std::vector<int64_t>& args) {
  for (const auto& [name, spelling] : kSymIntOps) {
    if (name != target) continue;
    const size_t arity = name == "_operator.neg" ? 1 : 2;
    if (args.size() != arity) return std::nullopt;
    // Parenthesized literals: a negative argument stays one operand.
    const std::string a = "(" + std::to_string(args[0]) + ")";
    const std::string text =
        arity == 1 ? std::string(spelling) + a
                   : a + " " + std::string(spelling) + " (" + std::to_string(args[1]) + ")";
    return eval_sym_expr(text, {});
  }
  return std::nullopt;
}

std::optional<int64_t> resolve(const SymDim& dim, const Symbols& symbols) {
  if (dim.value) return dim.value;
  return eval_sym_expr(dim.expr, symbols);
}

Expected<std::string> arange_of_symbol(const JsonRef& node,
                                       const std::map<std::string, SymDim, std::less<>>& sym_ints) {
  INFERNO_ASSIGN_OR_RETURN(JsonRef inputs_json, node.at("inputs"));
  INFERNO_ASSIGN_OR_RETURN(std::vector<JsonRef> inputs, inputs_json.items());
  std::string symbol;
  for (const JsonRef& input : inputs) {
    INFERNO_ASSIGN_OR_RETURN(JsonRef name_json, input.at("name"));
    INFERNO_ASSIGN_OR_RETURN(std::string name, name_json.string());
    INFERNO_ASSIGN_OR_RETURN(JsonRef arg, input.at("arg"));
    INFERNO_ASSIGN_OR_RETURN(auto member, arg.one_of());
    if (name == "end") {
      if (member.first != "as_sym_int") return std::string();
      INFERNO_ASSIGN_OR_RETURN(auto kind, member.second.one_of());
      if (kind.first != "as_name") return std::string();
      INFERNO_ASSIGN_OR_RETURN(std::string sym, kind.second.string());
      auto it = sym_ints.find(sym);
      if (it == sym_ints.end()) return std::string();
      symbol = symbol_name(it->second.expr);
      if (!is_identifier(symbol)) return std::string();
    } else if (name == "start" || name == "step") {
      const int64_t wanted = name == "start" ? 0 : 1;
      if (member.first != "as_int" || !member.second.raw().is_number_integer() ||
          member.second.raw().get<int64_t>() != wanted) {
        return std::string();
      }
    }
  }
  return symbol;
}

}  // namespace inferno::frontend::pt2
