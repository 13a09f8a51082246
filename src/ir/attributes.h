// Typed node attributes: a small sorted map from name to one of a few value types.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "ir/dtype.h"

namespace inferno::ir {

using IntList = std::vector<int64_t>;
/// One attribute value. Floats are always `double`; integer lists are `IntList`.
using AttrValue = std::variant<int64_t, double, bool, std::string, IntList, DType>;

/// Attributes of a node, kept sorted by name so printing and comparison are deterministic.
/// Getters are checked: asking for a missing attribute or the wrong type is an internal error
/// (the verifier checks user-derived graphs before anyone asks).
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

  /// Typed presence check, for the verifier.
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
