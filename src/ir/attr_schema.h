// Attribute schemas: what attributes each op takes, parsed once from the schema text of its
// ops.def row ("dims: ints, keepdim: bool = false"), and the one check every node goes through.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/attributes.h"
#include "ir/op.h"
#include "support/status.h"

namespace inferno::ir {

enum class AttrType : uint8_t { kInt, kFloat, kBool, kString, kInts, kDType, kBody };

struct AttrSpec {
  std::string name;
  AttrType type;
  std::optional<AttrValue> default_value;  ///< nullopt: the attribute must be given
};

/// The op's attributes in the order its row lists them.
const std::vector<AttrSpec>& op_attr_schema(OpKind op);

/// "int", "float", "bool", "str", "ints", "dtype", "body" (the spelling of schemas and docs).
std::string_view attr_type_name(AttrType type);

/// Whether `attrs` fit the op's schema: every attribute of the schema present (nodes carry their
/// defaults: builders and the parser apply them first), each of its declared type, none the
/// schema does not name. The error (invalid input) names the op and the attribute; callers add
/// the node.
Status check_attributes(OpKind op, const Attributes& attrs);

/// Sets every attribute the schema gives a default and `attrs` lacks.
void apply_attr_defaults(OpKind op, Attributes& attrs);

}  // namespace inferno::ir
