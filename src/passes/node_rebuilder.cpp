#include "passes/node_rebuilder.h"

#include <algorithm>
#include <string>
#include <utility>

#include "ir/builder.h"
#include "ir/shape_rules.h"
#include "support/check.h"

namespace inferno::passes {

NodeRebuilder::NodeRebuilder(ir::Graph& graph)
    : graph_(graph),
      old_nodes_(std::move(graph.mutable_nodes())),
      producer_(static_cast<size_t>(graph.num_values()), -1) {
  graph_.mutable_nodes().clear();
}

ir::ValueId NodeRebuilder::resolve(ir::ValueId v) const {
  for (auto it = replacements_.find(v); it != replacements_.end(); it = replacements_.find(v))
    v = it->second;
  return v;
}

void NodeRebuilder::rename_inputs(ir::Node& node) const {
  for (ir::ValueId& in : node.inputs) in = resolve(in);
}

void NodeRebuilder::replace(ir::ValueId from, ir::ValueId to) {
  to = resolve(to);
  INFERNO_CHECK(from != to, "a value cannot replace itself");
  INFERNO_CHECK(graph_.type(from) == graph_.type(to), "%" + graph_.name(to) + " cannot replace %" +
                                                          graph_.name(from) + " of another type");
  replacements_[from] = to;
}

void NodeRebuilder::append(ir::Node node) {
  std::vector<ir::Node>& nodes = graph_.mutable_nodes();
  for (ir::ValueId out : node.outputs) {
    if (static_cast<size_t>(out) >= producer_.size())
      producer_.resize(static_cast<size_t>(out) + 1, -1);
    producer_[static_cast<size_t>(out)] = static_cast<int64_t>(nodes.size());
  }
  nodes.push_back(std::move(node));
}

Expected<ir::ValueId> NodeRebuilder::build(ir::OpKind op, std::vector<ir::ValueId> inputs,
                                           ir::Attributes attrs, std::string_view name_hint,
                                           SourceLocation loc) {
  // ir::build_node appends to the graph itself; take the node back so append() records it.
  INFERNO_ASSIGN_OR_RETURN(
      ir::ValueId out,
      ir::build_value(graph_, op, std::move(inputs), std::move(attrs), name_hint, std::move(loc)));
  ir::Node node = std::move(graph_.mutable_nodes().back());
  graph_.mutable_nodes().pop_back();
  append(std::move(node));
  return out;
}

const ir::Node* NodeRebuilder::producer(ir::ValueId v) const {
  if (v < 0 || static_cast<size_t>(v) >= producer_.size() || producer_[static_cast<size_t>(v)] < 0)
    return nullptr;
  return &graph_.nodes()[static_cast<size_t>(producer_[static_cast<size_t>(v)])];
}

const ir::Node* NodeRebuilder::producer(ir::ValueId v, ir::OpKind op) const {
  const ir::Node* node = producer(v);
  return node != nullptr && node->op == op ? node : nullptr;
}

ir::Node NodeRebuilder::take(ir::ValueId v) {
  INFERNO_CHECK(producer(v) != nullptr, "%" + graph_.name(v) + " has no appended producer");
  ir::Node& slot = graph_.mutable_nodes()[static_cast<size_t>(producer_[static_cast<size_t>(v)])];
  ir::Node node = std::move(slot);
  for (ir::ValueId out : node.outputs) producer_[static_cast<size_t>(out)] = -1;
  slot.outputs.clear();  // a tombstone, dropped by finish()
  slot.inputs.clear();
  return node;
}

Status NodeRebuilder::finish() {
  std::vector<ir::Node>& nodes = graph_.mutable_nodes();
  nodes.erase(std::remove_if(nodes.begin(), nodes.end(),
                             [](const ir::Node& n) { return n.outputs.empty(); }),
              nodes.end());
  std::vector<ir::ValueId> outputs = graph_.outputs();
  for (ir::ValueId& out : outputs) out = resolve(out);
  graph_.set_outputs(std::move(outputs));
  return remove_unused_constants(graph_);
}

Expected<ir::ValueId> reshaped(NodeRebuilder& rebuilder, ir::ValueId v, ir::Shape shape,
                               const ir::Node& node, const char* suffix) {
  ir::Attributes attrs;
  attrs.set("shape", std::move(shape));
  const std::string name = rebuilder.graph().name(node.outputs.front()) + suffix;
  return rebuilder.build(ir::OpKind::kReshape, {v}, std::move(attrs), name, node.loc);
}

Rewrite replace_node(NodeRebuilder& rebuilder, const ir::Node& node, ir::ValueId v) {
  INFERNO_CHECK(node.outputs.size() == 1, "replace_node on a node with several outputs");
  rebuilder.replace(node.outputs.front(), v);
  return Rewrite::kReplaced;
}

Expected<Rewrite> redefine_node(const ir::Graph& graph, ir::Node& node, ir::OpKind op,
                                std::vector<ir::ValueId> inputs, ir::Attributes attrs) {
  INFERNO_ASSIGN_OR_RETURN(ir::Node changed, redefine(graph, op, std::move(inputs),
                                                      std::move(attrs), node.outputs, node.loc));
  node = std::move(changed);
  return Rewrite::kChanged;
}

Status rewrite_nodes(ir::Graph& graph, NodeRule rule) {
  // Every rule shrinks or simplifies the node; a node still changing after this many rounds
  // means two rules undo each other.
  constexpr int kMaxRounds = 1000;
  NodeRebuilder rebuilder(graph);
  for (ir::Node& node : rebuilder.old_nodes()) {
    rebuilder.rename_inputs(node);
    Rewrite result = Rewrite::kChanged;
    for (int round = 0; result == Rewrite::kChanged; ++round) {
      INFERNO_CHECK(round < kMaxRounds,
                    "rewrite rules do not converge on %" + graph.node_name(node));
      INFERNO_ASSIGN_OR_RETURN(result, rule(rebuilder, node));
    }
    if (result == Rewrite::kUnchanged) rebuilder.append(std::move(node));
  }
  return rebuilder.finish();
}

Expected<ir::Node> redefine(const ir::Graph& graph, ir::OpKind op, std::vector<ir::ValueId> inputs,
                            ir::Attributes attrs, std::vector<ir::ValueId> outputs,
                            SourceLocation loc) {
  std::vector<ir::TensorType> input_types;
  for (ir::ValueId v : inputs) input_types.push_back(graph.type(v));
  const std::string what =
      std::string(ir::op_name(op)) + " redefining %" + graph.name(outputs.front());
  Expected<std::vector<ir::TensorType>> types = ir::infer_output_types(op, input_types, attrs);
  if (!types) return internal_error(what + ": " + types.status().message());
  if (types->size() != outputs.size()) return internal_error(what + ": wrong number of outputs");
  for (size_t i = 0; i < outputs.size(); ++i) {
    if ((*types)[i] != graph.type(outputs[i])) {
      return internal_error(what + ": produces " + (*types)[i].to_string() + ", not " +
                            graph.type(outputs[i]).to_string());
    }
  }
  return ir::Node{op, std::move(inputs), std::move(outputs), std::move(attrs), std::move(loc)};
}

}  // namespace inferno::passes
