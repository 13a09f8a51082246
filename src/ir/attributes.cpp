#include "ir/attributes.h"

#include <algorithm>

#include "support/check.h"

namespace inferno::ir {

void Attributes::set(std::string name, AttrValue value) {
  auto it =
      std::lower_bound(entries_.begin(), entries_.end(), name,
                       [](const auto& entry, const std::string& n) { return entry.first < n; });
  if (it != entries_.end() && it->first == name) {
    it->second = std::move(value);
  } else {
    entries_.emplace(it, std::move(name), std::move(value));
  }
}

const AttrValue* Attributes::find(std::string_view name) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const auto& entry, std::string_view n) { return entry.first < n; });
  return it != entries_.end() && it->first == name ? &it->second : nullptr;
}

template <typename T>
const T& Attributes::get(std::string_view name) const {
  const AttrValue* v = find(name);
  INFERNO_CHECK(v != nullptr, "missing attribute '" + std::string(name) + "'");
  INFERNO_CHECK(std::holds_alternative<T>(*v),
                "attribute '" + std::string(name) + "' has the wrong type");
  return std::get<T>(*v);
}

int64_t Attributes::get_int(std::string_view name) const { return get<int64_t>(name); }
double Attributes::get_float(std::string_view name) const { return get<double>(name); }
bool Attributes::get_bool(std::string_view name) const { return get<bool>(name); }
const std::string& Attributes::get_string(std::string_view name) const {
  return get<std::string>(name);
}
const IntList& Attributes::get_ints(std::string_view name) const { return get<IntList>(name); }
DType Attributes::get_dtype(std::string_view name) const { return get<DType>(name); }
const FusedExpr& Attributes::get_body(std::string_view name) const {
  return get<FusedBody>(name).expr();
}

}  // namespace inferno::ir
