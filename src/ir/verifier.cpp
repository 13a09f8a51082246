#include "ir/verifier.h"

#include <set>
#include <string>
#include <vector>

#include "ir/shape_rules.h"

namespace inferno::ir {

Status verify(const Graph& graph) {
  std::vector<bool> defined(static_cast<size_t>(graph.num_values()), false);
  std::set<std::string, std::less<>> names;
  for (ValueId v = 0; v < graph.num_values(); ++v) {
    if (!names.insert(graph.name(v)).second)
      return invalid_input("duplicate value name %" + graph.name(v));
  }
  for (ValueId v = 0; v < graph.num_values(); ++v) {
    if (!checked_numel(graph.type(v).shape)) {
      return invalid_input("%" + graph.name(v) + " has an invalid or too large shape " +
                           graph.type(v).to_string());
    }
  }
  for (ValueId v : graph.inputs()) {
    if (graph.value(v).kind != ValueKind::kInput)
      return invalid_input("graph input %" + graph.name(v) + " is not an input value");
    defined[v] = true;
  }
  if (graph.outputs().size() < graph.num_states())
    return invalid_input("the graph has " + std::to_string(graph.num_states()) +
                         " states but only " + std::to_string(graph.outputs().size()) +
                         " outputs (each state's update is an output)");
  for (size_t i = 0; i < graph.num_states(); ++i) {
    const ValueId state = graph.state_value(i), update = graph.state_update(i);
    if (update < 0 || update >= graph.num_values() || graph.type(update) != graph.type(state)) {
      return invalid_input("the update of state %" + graph.name(state) + " is not a " +
                           graph.type(state).to_string());
    }
    const std::shared_ptr<const Tensor>& initial = graph.state(i).initial;
    if (initial && (initial->type != graph.type(state) ||
                    static_cast<int64_t>(initial->data.size()) != initial->type.size_bytes()))
      return invalid_input("state %" + graph.name(state) + "'s initial value does not fit it");
  }
  for (ValueId v : graph.constants()) {
    const Value& value = graph.value(v);
    if (defined[v])
      return invalid_input("%" + value.name + " is listed twice as an input or constant");
    if (value.kind != ValueKind::kConstant)
      return invalid_input("%" + value.name + " is listed as a constant but is not one");
    if (value.constant &&
        (value.constant->type != value.type ||
         static_cast<int64_t>(value.constant->data.size()) != value.type.size_bytes())) {
      return invalid_input("constant %" + value.name + " data does not match its type " +
                           value.type.to_string());
    }
    defined[v] = true;
  }
  for (const Node& node : graph.nodes()) {
    if (node.outputs.empty())
      return invalid_input(std::string(op_name(node.op)) + " node has no outputs");
    const std::string& name = graph.node_name(node);
    std::vector<TensorType> input_types;
    for (ValueId in : node.inputs) {
      if (in < 0 || in >= graph.num_values())
        return invalid_input("operand refers to no value", name, node.loc);
      if (!defined[in])
        return invalid_input("%" + graph.name(in) + " is used before it is defined", name,
                             node.loc);
      input_types.push_back(graph.type(in));
    }
    Expected<std::vector<TensorType>> expected =
        infer_output_types(node.op, input_types, node.attrs);
    if (!expected)
      return Status(ErrorCode::kInvalidInput, expected.status().message(), name, node.loc);
    if (expected->size() != node.outputs.size()) {
      return invalid_input(std::string(op_name(node.op)) + " has " +
                               std::to_string(node.outputs.size()) + " outputs, expected " +
                               std::to_string(expected->size()),
                           name, node.loc);
    }
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      const ValueId out = node.outputs[i];
      if (out < 0 || out >= graph.num_values() || graph.value(out).kind != ValueKind::kNodeOutput) {
        return invalid_input("bad output value", name, node.loc);
      }
      if (defined[out])
        return invalid_input("%" + graph.name(out) + " is defined twice", name, node.loc);
      if (graph.type(out) != (*expected)[i]) {
        return invalid_input("%" + graph.name(out) + " has type " + graph.type(out).to_string() +
                                 " but " + std::string(op_name(node.op)) + " produces " +
                                 (*expected)[i].to_string(),
                             name, node.loc);
      }
      defined[out] = true;
    }
  }
  for (size_t i = 0; i < graph.outputs().size(); ++i) {
    const ValueId v = graph.outputs()[i];
    if (v < 0 || v >= graph.num_values())
      return invalid_input("graph output " + std::to_string(i) + " refers to no value");
    if (!defined[v])
      return invalid_input("graph output " + std::to_string(i) + " (%" + graph.name(v) +
                           ") is not defined");
  }
  return Status::ok();
}

}  // namespace inferno::ir
