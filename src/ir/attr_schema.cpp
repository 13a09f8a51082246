// Parses the schema text of every ops.def row once, at first use. The text is ours (the table),
// so a malformed schema is an internal error that the op table test catches.
#include "ir/attr_schema.h"

#include <array>
#include <charconv>

#include "support/check.h"

namespace inferno::ir {
namespace {

constexpr std::array<std::pair<std::string_view, AttrType>, 7> kTypeNames = {{
    {"int", AttrType::kInt},
    {"float", AttrType::kFloat},
    {"bool", AttrType::kBool},
    {"str", AttrType::kString},
    {"ints", AttrType::kInts},
    {"dtype", AttrType::kDType},
    {"body", AttrType::kBody},
}};

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

AttrValue parse_default(AttrType type, std::string_view text, OpKind op) {
  const std::string where = std::string(op_name(op)) + ": default '" + std::string(text) + "'";
  switch (type) {
    case AttrType::kInt: {
      int64_t v = 0;
      const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
      INFERNO_CHECK(r.ec == std::errc() && r.ptr == text.data() + text.size(), where);
      return v;
    }
    case AttrType::kFloat: {
      double v = 0;
      const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
      INFERNO_CHECK(r.ec == std::errc() && r.ptr == text.data() + text.size(), where);
      return v;
    }
    case AttrType::kBool:
      INFERNO_CHECK(text == "true" || text == "false", where);
      return text == "true";
    case AttrType::kString:
      return std::string(text);
    case AttrType::kDType: {
      const std::optional<DType> d = parse_dtype(text);
      INFERNO_CHECK(d.has_value(), where);
      return *d;
    }
    case AttrType::kInts:
    case AttrType::kBody:
      break;
  }
  INFERNO_CHECK(false, where + " (this type takes no default)");
  return int64_t{0};
}

std::vector<AttrSpec> parse_schema(OpKind op) {
  std::vector<AttrSpec> specs;
  std::string_view text = op_attr_schema_text(op);
  while (!trim(text).empty()) {
    const size_t comma = text.find(',');
    const std::string_view item = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    const size_t colon = item.find(':');
    INFERNO_CHECK(colon != std::string_view::npos,
                  std::string(op_name(op)) + ": schema item without a type");
    const size_t equals = item.find('=');
    const std::string_view type_text = trim(item.substr(colon + 1, equals - colon - 1));
    AttrSpec spec{std::string(trim(item.substr(0, colon))), AttrType::kInt, std::nullopt};
    bool known = false;
    for (const auto& [name, type] : kTypeNames) {
      if (name == type_text) spec.type = type, known = true;
    }
    INFERNO_CHECK(known, std::string(op_name(op)) + ": unknown attribute type '" +
                             std::string(type_text) + "'");
    if (equals != std::string_view::npos) {
      spec.default_value = parse_default(spec.type, trim(item.substr(equals + 1)), op);
    }
    specs.push_back(std::move(spec));
  }
  return specs;
}

bool has_type(const AttrValue& value, AttrType type) {
  switch (type) {
    case AttrType::kInt:
      return std::holds_alternative<int64_t>(value);
    case AttrType::kFloat:
      return std::holds_alternative<double>(value);
    case AttrType::kBool:
      return std::holds_alternative<bool>(value);
    case AttrType::kString:
      return std::holds_alternative<std::string>(value);
    case AttrType::kInts:
      return std::holds_alternative<IntList>(value);
    case AttrType::kDType:
      return std::holds_alternative<DType>(value);
    case AttrType::kBody:
      return std::holds_alternative<FusedBody>(value);
  }
  return false;
}

}  // namespace

const std::vector<AttrSpec>& op_attr_schema(OpKind op) {
  static const std::array<std::vector<AttrSpec>, kNumOpKinds> schemas = [] {
    std::array<std::vector<AttrSpec>, kNumOpKinds> all;
    for (const OpKind k : all_op_kinds()) all[static_cast<size_t>(k)] = parse_schema(k);
    return all;
  }();
  return schemas[static_cast<size_t>(op)];
}

std::string_view attr_type_name(AttrType type) {
  for (const auto& [name, t] : kTypeNames) {
    if (t == type) return name;
  }
  return "?";
}

Status check_attributes(OpKind op, const Attributes& attrs) {
  const std::vector<AttrSpec>& schema = op_attr_schema(op);
  const std::string name(op_name(op));
  for (const AttrSpec& spec : schema) {
    const AttrValue* value = attrs.find(spec.name);
    if (value == nullptr) {
      return invalid_input(name + ": needs attribute '" + spec.name + "' of type " +
                           std::string(attr_type_name(spec.type)));
    }
    if (value != nullptr && !has_type(*value, spec.type)) {
      return invalid_input(name + ": attribute '" + spec.name + "' must be of type " +
                           std::string(attr_type_name(spec.type)));
    }
  }
  for (const auto& [attr, value] : attrs.entries()) {
    bool known = false;
    for (const AttrSpec& spec : schema) known |= spec.name == attr;
    if (!known) return invalid_input(name + ": unknown attribute '" + attr + "'");
  }
  return Status::ok();
}

void apply_attr_defaults(OpKind op, Attributes& attrs) {
  for (const AttrSpec& spec : op_attr_schema(op)) {
    if (spec.default_value && !attrs.has(spec.name)) attrs.set(spec.name, *spec.default_value);
  }
}

}  // namespace inferno::ir
