#include "ir/graph.h"

#include <cstddef>

#include "support/check.h"

namespace inferno::ir {

std::string sanitize_value_name(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.';
    out += ok ? c : '_';
  }
  return out.empty() ? "v" : out;
}

std::string Graph::unique_name(std::string_view hint) {
  std::string base = sanitize_value_name(hint);
  std::string name = base;
  for (int suffix = 1; used_names_.contains(name); ++suffix) {
    name = base + "_" + std::to_string(suffix);
  }
  used_names_.insert(name);
  return name;
}

ValueId Graph::add_value(std::string_view name_hint, TensorType type, ValueKind kind) {
  INFERNO_CHECK(values_.size() < static_cast<size_t>(INT32_MAX), "too many values");
  Value v;
  v.name = unique_name(name_hint);
  v.type = std::move(type);
  v.kind = kind;
  values_.push_back(std::move(v));
  return static_cast<ValueId>(values_.size() - 1);
}

ValueId Graph::add_input(std::string_view name_hint, TensorType type) {
  ValueId id = add_value(name_hint, std::move(type), ValueKind::kInput);
  inputs_.insert(inputs_.end() - static_cast<std::ptrdiff_t>(states_.size()), id);
  return id;
}

ValueId Graph::add_state(std::string_view name_hint, TensorType type,
                         std::shared_ptr<const Tensor> initial) {
  INFERNO_CHECK(initial == nullptr || initial->type == type, "state data does not match its type");
  ValueId id = add_value(name_hint, std::move(type), ValueKind::kInput);
  inputs_.push_back(id);
  states_.push_back({std::move(initial)});
  return id;
}

ValueId Graph::add_constant(std::string_view name_hint, TensorType type,
                            std::shared_ptr<const Tensor> data) {
  INFERNO_CHECK(data == nullptr || data->type == type, "constant data does not match its type");
  ValueId id = add_value(name_hint, std::move(type), ValueKind::kConstant);
  values_[id].constant = std::move(data);
  constants_.push_back(id);
  return id;
}

ValueId Graph::add_constant(std::string_view name_hint, Tensor data) {
  TensorType type = data.type;
  return add_constant(name_hint, std::move(type), std::make_shared<const Tensor>(std::move(data)));
}

ValueId Graph::add_node_output(std::string_view name_hint, TensorType type) {
  return add_value(name_hint, std::move(type), ValueKind::kNodeOutput);
}

Node& Graph::append_node(Node node) {
  nodes_.push_back(std::move(node));
  return nodes_.back();
}

const Value& Graph::value(ValueId id) const {
  INFERNO_CHECK(id >= 0 && id < num_values(), "bad value id " + std::to_string(id));
  return values_[id];
}

Value& Graph::mutable_value(ValueId id) {
  INFERNO_CHECK(id >= 0 && id < num_values(), "bad value id " + std::to_string(id));
  return values_[id];
}

const std::string& Graph::node_name(const Node& node) const {
  INFERNO_CHECK(!node.outputs.empty(), "node without outputs");
  return name(node.outputs.front());
}

void Graph::take_name(ValueId id, ValueId other, std::string_view name_hint) {
  std::string name = std::move(mutable_value(other).name);
  mutable_value(other).name = unique_name(name_hint);
  mutable_value(id).name = std::move(name);
}

void Graph::rename(ValueId id, std::string_view name_hint) {
  std::string& name = mutable_value(id).name;
  used_names_.erase(name);
  name = unique_name(name_hint);
}

ValueId Graph::find_value(std::string_view name) const {
  for (size_t i = 0; i < values_.size(); ++i) {
    if (values_[i].name == name) return static_cast<ValueId>(i);
  }
  return kNoValue;
}

}  // namespace inferno::ir
