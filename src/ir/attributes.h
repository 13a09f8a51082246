// Typed node attributes: a small sorted map from name to one of a few value types.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "ir/dtype.h"

namespace inferno::ir {

struct FusedExpr;  // ir/fused_expr.h

/// A fused_elementwise body as an attribute value: built once (by the fusion pass or the IR
/// parser), shared and immutable, compared by content. The IR text prints it as a string.
class FusedBody {
 public:
  explicit FusedBody(std::shared_ptr<const FusedExpr> expr);
  const FusedExpr& expr() const { return *expr_; }
  bool operator==(const FusedBody& other) const;

 private:
  std::shared_ptr<const FusedExpr> expr_;
};

using IntList = std::vector<int64_t>;
/// One attribute value. Floats are always `double`; integer lists are `IntList`.
using AttrValue = std::variant<int64_t, double, bool, std::string, IntList, DType, FusedBody>;

/// Attributes of a node, kept sorted by name so printing and comparison are deterministic.
/// Getters are checked: asking for a missing attribute or the wrong type is an internal error
/// (every node's attributes are checked against its op's schema, ir/attr_schema.h, before anyone
/// asks).
class Attributes {
 public:
  void set(std::string name, AttrValue value);
  bool has(std::string_view name) const { return find(name) != nullptr; }
  const AttrValue* find(std::string_view name) const;

  int64_t get_int(std::string_view name) const;
  double get_float(std::string_view name) const;
  bool get_bool(std::string_view name) const;
  const std::string& get_string(std::string_view name) const;
  const IntList& get_ints(std::string_view name) const;
  DType get_dtype(std::string_view name) const;
  const FusedExpr& get_body(std::string_view name) const;

  /// Typed presence check.
  template <typename T>
  bool has_typed(std::string_view name) const {
    const AttrValue* v = find(name);
    return v != nullptr && std::holds_alternative<T>(*v);
  }

  const std::vector<std::pair<std::string, AttrValue>>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }
  bool operator==(const Attributes&) const = default;

 private:
  template <typename T>
  const T& get(std::string_view name) const;

  std::vector<std::pair<std::string, AttrValue>> entries_;
};

}  // namespace inferno::ir
