// The IR graph: values (typed SSA names), nodes (one generic node type for every op) and the
// graph's inputs, outputs and constants.
//
// Nodes are stored in topological order; a pass that rewrites the graph keeps that order (the
// verifier checks it). Values are addressed by ValueId, an index that stays valid for the life of
// the graph, so node storage can be rebuilt freely without dangling references.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ir/attributes.h"
#include "ir/op.h"
#include "ir/tensor_type.h"
#include "support/source_location.h"

namespace inferno::ir {

using ValueId = int32_t;
inline constexpr ValueId kNoValue = -1;

/// What defines a value.
enum class ValueKind : uint8_t { kInput, kConstant, kNodeOutput };

struct Value {
  std::string name;  ///< unique within the graph; printed as %name
  TensorType type;
  ValueKind kind = ValueKind::kNodeOutput;
  /// Constant data; null for non-constants, and for constants whose data was elided in the text
  /// form (such a graph can be printed and verified but not evaluated or compiled).
  std::shared_ptr<const Tensor> constant;
};

/// One operation. The same struct serves every op: what differs is the OpKind, the number of
/// inputs and outputs, and the attributes.
struct Node {
  OpKind op;
  std::vector<ValueId> inputs;
  std::vector<ValueId> outputs;
  Attributes attrs;
  SourceLocation loc;  ///< where the model's Python source created it, if known
};

/// Mutable state (a buffer the model updates in place, such as an LLM's KV cache): a value
/// defined at the start of a run that holds the state's current contents, and a graph output that
/// holds its contents for the next run. State lives outside the caller's tensors: the runtime
/// keeps it per session.
struct StateInfo {
  /// The value when a session starts (or is reset); null means all zeros.
  std::shared_ptr<const Tensor> initial;
};

/// A graph's interface is inputs() and outputs(); when the graph has state, the last
/// num_states() of each are the states' values at the start (inputs) and their new values at the
/// end (outputs) of a run, in state order. Passes treat them like any input and output, so a
/// state's update stays live and keeps its type; only the interface code (codegen's ABI, the
/// CLI, tests) tells the caller's tensors from the state.
class Graph {
 public:
  /// Adds a graph input named after `name_hint` (made unique and printable), before the states.
  ValueId add_input(std::string_view name_hint, TensorType type);
  /// Adds a state whose value at a run's start is the returned input; the caller appends the
  /// matching update to the outputs (set_outputs takes user outputs, then state updates).
  ValueId add_state(std::string_view name_hint, TensorType type,
                    std::shared_ptr<const Tensor> initial);
  size_t num_states() const { return states_.size(); }
  const StateInfo& state(size_t i) const { return states_.at(i); }
  StateInfo& mutable_state(size_t i) { return states_.at(i); }
  size_t num_user_inputs() const { return inputs_.size() - states_.size(); }
  size_t num_user_outputs() const { return outputs_.size() - states_.size(); }
  ValueId state_value(size_t i) const { return inputs_.at(num_user_inputs() + i); }
  ValueId state_update(size_t i) const { return outputs_.at(num_user_outputs() + i); }
  /// Adds a constant (weights, buffers, folded values). `data` may be null only for an elided
  /// constant read from text.
  ValueId add_constant(std::string_view name_hint, TensorType type,
                       std::shared_ptr<const Tensor> data);
  ValueId add_constant(std::string_view name_hint, Tensor data);
  /// Creates a fresh value defined by a node the caller is about to append.
  ValueId add_node_output(std::string_view name_hint, TensorType type);
  /// Appends a node at the end of the topological order. Types are not checked here: use
  /// ir::build_node (ir/builder.h), which runs the shape rules.
  Node& append_node(Node node);

  void set_outputs(std::vector<ValueId> outputs) { outputs_ = std::move(outputs); }
  /// Drops the constants for which `pred(id)` is true (their data is released; their ids stay
  /// allocated but are no longer part of the graph). Callers make sure nothing uses them.
  template <typename Pred>
  void remove_constants_if(Pred pred) {
    std::vector<ValueId> kept;
    for (ValueId id : constants_) {
      if (pred(id)) {
        values_[id].constant.reset();
      } else {
        kept.push_back(id);
      }
    }
    constants_ = std::move(kept);
  }

  const Value& value(ValueId id) const;
  Value& mutable_value(ValueId id);
  const TensorType& type(ValueId id) const { return value(id).type; }
  const std::string& name(ValueId id) const { return value(id).name; }
  int32_t num_values() const { return static_cast<int32_t>(values_.size()); }

  const std::vector<ValueId>& inputs() const { return inputs_; }
  const std::vector<ValueId>& outputs() const { return outputs_; }
  const std::vector<ValueId>& constants() const { return constants_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  /// For passes that rewrite node order or contents; they keep nodes topologically sorted.
  std::vector<Node>& mutable_nodes() { return nodes_; }

  /// Name of the node: the name of its first output.
  const std::string& node_name(const Node& node) const;
  /// Finds a value by name; kNoValue if absent.
  ValueId find_value(std::string_view name) const;
  /// Gives value `id` the name of value `other` and `other` a fresh name after `name_hint` (made
  /// unique); a pass that moves a name to a new value (convert-precision's outputs) uses it.
  void take_name(ValueId id, ValueId other, std::string_view name_hint);
  /// Gives value `id` a fresh name after `name_hint` (made unique); its old name is freed. A
  /// frontend naming the graph's outputs (TorchScript's numbered values) uses it.
  void rename(ValueId id, std::string_view name_hint);

 private:
  ValueId add_value(std::string_view name_hint, TensorType type, ValueKind kind);
  std::string unique_name(std::string_view hint);

  std::vector<Value> values_;
  std::vector<Node> nodes_;
  std::vector<ValueId> inputs_;
  std::vector<ValueId> outputs_;
  std::vector<ValueId> constants_;
  std::vector<StateInfo> states_;
  std::set<std::string, std::less<>> used_names_;
};

/// Turns any string into a valid value name: [A-Za-z0-9_.] kept, everything else '_'; an empty
/// string becomes "v". Model-provided names pass through this before they reach the IR.
std::string sanitize_value_name(std::string_view name);

}  // namespace inferno::ir
