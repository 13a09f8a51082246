// Checked access to the JSON of a .pt2 archive (models/*.json, the payload configs).
//
// A JsonRef is a JSON value plus the path that led to it ("graph_module.graph.nodes[3].target").
// Every accessor checks the JSON type first and otherwise returns an invalid-input Status such as
// "models/model.json: expected an integer at graph_module.graph.nodes[3].inputs[1].arg.as_int",
// so a malformed file can never throw or crash. Internal to the .pt2 frontend.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/status.h"

namespace inferno::frontend::pt2 {

/// Deeper nesting of arrays and objects is refused before parsing (.pt2 JSON nests about 15 deep).
constexpr size_t kMaxJsonDepth = 128;

/// The deepest nesting of arrays and objects in `text`, brackets inside strings not counted. A
/// cheap pass before a parser, so that no recursion (the parser's, the JSON tree's destructor, the
/// walks over it, nlohmann's dump) ever sees a hostile depth.
size_t json_nesting_depth(std::string_view text);

/// Parses `bytes` as JSON; errors carry nlohmann's message and `file`. Nesting beyond
/// kMaxJsonDepth is an invalid-input error.
Expected<nlohmann::json> parse_json(const std::vector<std::byte>& bytes, const std::string& file);

class JsonRef {
 public:
  JsonRef(const nlohmann::json& value, std::string file, std::string path = {})
      : value_(&value), file_(std::move(file)), path_(std::move(path)) {}

  const nlohmann::json& raw() const { return *value_; }
  const std::string& path() const { return path_; }
  bool is_null() const { return value_->is_null(); }
  bool is_object() const { return value_->is_object(); }

  /// A required member of an object.
  Expected<JsonRef> at(std::string_view key) const;
  /// A member that may be absent or null.
  std::optional<JsonRef> find(std::string_view key) const;
  Expected<std::vector<JsonRef>> items() const;  ///< elements of an array
  /// Members of an object, in the file's order.
  Expected<std::vector<std::pair<std::string, JsonRef>>> members() const;
  /// A union: an object with exactly one member; returns its key and value.
  Expected<std::pair<std::string, JsonRef>> one_of() const;

  Expected<int64_t> integer() const;
  Expected<double> number() const;  ///< also "Infinity", "-Infinity", "NaN" strings
  Expected<bool> boolean() const;
  Expected<std::string> string() const;
  Expected<std::vector<int64_t>> integers() const;

  /// An invalid-input Status "<file>: <what> at <path>".
  Status error(const std::string& what) const;

 private:
  JsonRef child(const nlohmann::json& value, std::string path) const {
    return {value, file_, std::move(path)};
  }
  Status expected(const char* what) const;

  const nlohmann::json* value_;
  std::string file_;
  std::string path_;
};

}  // namespace inferno::frontend::pt2
