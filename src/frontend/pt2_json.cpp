#include "frontend/pt2_json.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace inferno::frontend::pt2 {
namespace {

const char* type_name(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::null:
      return "null";
    case nlohmann::json::value_t::object:
      return "an object";
    case nlohmann::json::value_t::array:
      return "an array";
    case nlohmann::json::value_t::string:
      return "a string";
    case nlohmann::json::value_t::boolean:
      return "a bool";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
      return "an integer";
    case nlohmann::json::value_t::number_float:
      return "a float";
    default:
      return "a binary value";
  }
}

}  // namespace

size_t json_nesting_depth(std::string_view text) {
  size_t depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

Expected<nlohmann::json> parse_json(const std::vector<std::byte>& bytes, const std::string& file) {
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (const size_t depth = json_nesting_depth(text); depth > kMaxJsonDepth) {
    return invalid_input(file + ": JSON nested " + std::to_string(depth) +
                         " levels deep, more than the limit of " + std::to_string(kMaxJsonDepth));
  }
  try {
    const char* begin = reinterpret_cast<const char*>(bytes.data());
    return nlohmann::json::parse(begin, begin + bytes.size());
  } catch (const nlohmann::json::exception& e) {
    return invalid_input(file + ": not valid JSON: " + e.what());
  } catch (const std::exception& e) {  // e.g. bad_alloc on absurd nesting
    return invalid_input(file + ": cannot be parsed: " + e.what());
  }
}

Status JsonRef::error(const std::string& what) const {
  return invalid_input(file_ + ": " + what + (path_.empty() ? "" : " at " + path_));
}

Status JsonRef::expected(const char* what) const {
  return error(std::string("expected ") + what + ", got " + type_name(*value_));
}

Expected<JsonRef> JsonRef::at(std::string_view key) const {
  if (!value_->is_object()) return expected("an object");
  auto it = value_->find(key);
  if (it == value_->end()) return error("missing field '" + std::string(key) + "'");
  return child(*it, path_.empty() ? std::string(key) : path_ + "." + std::string(key));
}

std::optional<JsonRef> JsonRef::find(std::string_view key) const {
  if (!value_->is_object()) return std::nullopt;
  auto it = value_->find(key);
  if (it == value_->end() || it->is_null()) return std::nullopt;
  return child(*it, path_.empty() ? std::string(key) : path_ + "." + std::string(key));
}

Expected<std::vector<JsonRef>> JsonRef::items() const {
  if (!value_->is_array()) return expected("an array");
  std::vector<JsonRef> out;
  out.reserve(value_->size());
  for (size_t i = 0; i < value_->size(); ++i)
    out.push_back(child((*value_)[i], path_ + "[" + std::to_string(i) + "]"));
  return out;
}

Expected<std::vector<std::pair<std::string, JsonRef>>> JsonRef::members() const {
  if (!value_->is_object()) return expected("an object");
  std::vector<std::pair<std::string, JsonRef>> out;
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    out.emplace_back(it.key(), child(it.value(), path_ + "['" + it.key() + "']"));
  }
  return out;
}

Expected<std::pair<std::string, JsonRef>> JsonRef::one_of() const {
  if (!value_->is_object() || value_->size() != 1)
    return expected("an object with exactly one member");
  auto it = value_->begin();
  return std::pair<std::string, JsonRef>(it.key(), child(it.value(), path_ + "." + it.key()));
}

Expected<int64_t> JsonRef::integer() const {
  if (value_->is_number_unsigned()) {
    if (value_->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return error("integer out of range");
    }
    return static_cast<int64_t>(value_->get<uint64_t>());
  }
  if (!value_->is_number_integer()) return expected("an integer");
  return value_->get<int64_t>();
}

Expected<double> JsonRef::number() const {
  if (value_->is_string()) {
    const std::string& s = value_->get_ref<const std::string&>();
    if (s == "Infinity" || s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity" || s == "-inf") return -std::numeric_limits<double>::infinity();
    if (s == "NaN" || s == "nan") return std::numeric_limits<double>::quiet_NaN();
  }
  if (!value_->is_number()) return expected("a number");
  return value_->get<double>();
}

Expected<bool> JsonRef::boolean() const {
  if (!value_->is_boolean()) return expected("a bool");
  return value_->get<bool>();
}

Expected<std::string> JsonRef::string() const {
  if (!value_->is_string()) return expected("a string");
  return value_->get<std::string>();
}

Expected<std::vector<int64_t>> JsonRef::integers() const {
  INFERNO_ASSIGN_OR_RETURN(std::vector<JsonRef> elems, items());
  std::vector<int64_t> out;
  out.reserve(elems.size());
  for (const JsonRef& e : elems) {
    INFERNO_ASSIGN_OR_RETURN(int64_t v, e.integer());
    out.push_back(v);
  }
  return out;
}

}  // namespace inferno::frontend::pt2
