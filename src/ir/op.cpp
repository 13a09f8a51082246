#include "ir/op.h"

#include <array>
#include <vector>

namespace inferno::ir {
namespace {

struct OpInfo {
  std::string_view name;
  int min_inputs;
  int max_inputs;
  uint32_t traits;
  DTypeClass dtypes;
  std::string_view schema;
  std::string_view expression;
  std::string_view backend;
};

// Elementwise rows carry their expression as code; the table keeps its text.
constexpr std::array<OpInfo, kNumOpKinds> kOpInfo = {{
#define INFERNO_OP(name, text, min_in, max_in, traits, dtypes, schema, backend) \
  {text, min_in, max_in, traits, DTypeClass::dtypes, schema, "", backend},
#define INFERNO_ELEMENTWISE(name, text, operands, traits, dtypes, schema, expr) \
  {text, operands, operands, (traits) | kElementwise, DTypeClass::dtypes, schema, #expr, ""},
#include "ir/ops.def"
#undef INFERNO_ELEMENTWISE
#undef INFERNO_OP
}};

const OpInfo& info(OpKind op) { return kOpInfo[static_cast<size_t>(op)]; }

}  // namespace

std::string_view op_name(OpKind op) { return info(op).name; }

std::optional<OpKind> parse_op_name(std::string_view name) {
  for (size_t i = 0; i < kOpInfo.size(); ++i) {
    if (kOpInfo[i].name == name) return static_cast<OpKind>(i);
  }
  return std::nullopt;
}

int op_min_inputs(OpKind op) { return info(op).min_inputs; }
int op_max_inputs(OpKind op) { return info(op).max_inputs; }
bool op_has_trait(OpKind op, OpTrait trait) { return (info(op).traits & trait) != 0; }
DTypeClass op_dtype_class(OpKind op) { return info(op).dtypes; }
std::string_view op_attr_schema_text(OpKind op) { return info(op).schema; }
std::string_view op_backend_note(OpKind op) { return info(op).backend; }

std::string_view op_expression(OpKind op) {
  std::string_view e = info(op).expression;  // "(x0 + x1)": the row's parentheses dropped
  if (e.size() >= 2 && e.front() == '(' && e.back() == ')') e = e.substr(1, e.size() - 2);
  return e;
}

std::optional<OpKind> epilogue_activation(std::string_view name, OpTrait trait) {
  const std::optional<OpKind> op = parse_op_name(name);
  if (!op || !op_has_trait(*op, trait) || !op_has_trait(*op, kElementwise)) return std::nullopt;
  return op;
}

std::string epilogue_activation_names(OpTrait trait) {
  std::vector<std::string> names = {"\"none\""};
  for (const OpKind op : all_op_kinds()) {
    if (epilogue_activation(op_name(op), trait))
      names.push_back("\"" + std::string(op_name(op)) + "\"");
  }
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  }
  return text;
}

}  // namespace inferno::ir
