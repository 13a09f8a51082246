#include "passes/fuse_elementwise.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "ir/fused_expr.h"
#include "passes/node_rebuilder.h"
#include "passes/rewrite.h"

namespace inferno::passes {
namespace {

using ir::OpKind;

constexpr int64_t kNoGroup = -1;

bool fusible(const ir::Node& node) {
  return ir::op_has_trait(node.op, ir::kElementwise) || node.op == OpKind::kFusedElementwise;
}

/// A fusible node's computation as steps over its own inputs: its expression for a
/// fused_elementwise node, one step for any other.
Expected<ir::FusedExpr> body_of(const ir::Graph& graph, const ir::Node& node) {
  std::vector<ir::TensorType> input_types;
  for (ir::ValueId v : node.inputs) input_types.push_back(graph.type(v));
  if (node.op == OpKind::kFusedElementwise)
    return ir::type_fused_expr(node.attrs.get_body("expr"), input_types);
  ir::FusedStep step{node.op, node.attrs, {}, graph.type(node.outputs.front())};
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    step.operands.push_back({ir::FusedOperand::Kind::kInput, static_cast<int32_t>(i)});
  }
  return ir::FusedExpr{{std::move(step)}};
}

/// The graph's nodes with what fusion needs to know about them.
struct NodeInfo {
  const ir::Graph& graph;
  std::vector<ir::FusedExpr> bodies;       ///< per node; empty for nodes that are not fusible
  std::vector<int64_t> producer;           ///< per value: the index of its node, or -1
  std::vector<std::vector<size_t>> users;  ///< per value: the nodes reading it
  std::vector<bool> is_output;             ///< per value
};

Expected<NodeInfo> analyze(const ir::Graph& graph) {
  NodeInfo info{graph,
                {},
                std::vector<int64_t>(static_cast<size_t>(graph.num_values()), -1),
                std::vector<std::vector<size_t>>(static_cast<size_t>(graph.num_values())),
                graph_output_mask(graph)};
  const std::vector<ir::Node>& nodes = graph.nodes();
  info.bodies.resize(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (fusible(nodes[i])) {
      INFERNO_ASSIGN_OR_RETURN(info.bodies[i], body_of(graph, nodes[i]));
    }
    for (ir::ValueId v : nodes[i].outputs)
      info.producer[static_cast<size_t>(v)] = static_cast<int64_t>(i);
    for (ir::ValueId v : nodes[i].inputs) info.users[static_cast<size_t>(v)].push_back(i);
  }
  return info;
}

/// Assigns every node the index of its group's root (kNoGroup for nodes that are not fusible).
/// Candidates are visited from the last node backwards, so when a producer is considered every
/// group member that reads it has joined already.
std::vector<int64_t> form_groups(const NodeInfo& info) {
  const std::vector<ir::Node>& nodes = info.graph.nodes();
  std::vector<int64_t> group(nodes.size(), kNoGroup);
  for (size_t root = nodes.size(); root-- > 0;) {
    if (group[root] != kNoGroup || !fusible(nodes[root])) continue;
    group[root] = static_cast<int64_t>(root);
    size_t steps = info.bodies[root].steps.size();
    std::vector<ir::ValueId> inputs;  // what the group reads from outside
    std::set<size_t, std::greater<>> candidates;
    auto add_inputs_of = [&](size_t member) {
      for (ir::ValueId v : nodes[member].inputs) {
        if (std::find(inputs.begin(), inputs.end(), v) == inputs.end()) inputs.push_back(v);
        if (info.producer[static_cast<size_t>(v)] >= 0)
          candidates.insert(static_cast<size_t>(info.producer[static_cast<size_t>(v)]));
      }
    };
    add_inputs_of(root);
    while (!candidates.empty()) {
      const size_t p = *candidates.begin();
      candidates.erase(candidates.begin());
      const ir::ValueId out = nodes[p].outputs.front();
      const std::vector<size_t>& users = info.users[static_cast<size_t>(out)];
      if (group[p] != kNoGroup || !fusible(nodes[p]) || nodes[p].outputs.size() != 1 ||
          info.is_output[static_cast<size_t>(out)] ||
          !std::all_of(users.begin(), users.end(),
                       [&](size_t u) { return group[u] == static_cast<int64_t>(root); })) {
        continue;
      }
      // Absorbing p trades its output for its inputs; all members precede p's users, none precedes
      // p.
      std::vector<ir::ValueId> grown = inputs;
      grown.erase(std::find(grown.begin(), grown.end(), out));
      for (ir::ValueId v : nodes[p].inputs) {
        if (std::find(grown.begin(), grown.end(), v) == grown.end()) grown.push_back(v);
      }
      if (steps + info.bodies[p].steps.size() > static_cast<size_t>(ir::kMaxFusedSteps) ||
          grown.size() > static_cast<size_t>(ir::kMaxFusedInputs)) {
        continue;
      }
      group[p] = static_cast<int64_t>(root);
      steps += info.bodies[p].steps.size();
      inputs = std::move(grown);
      add_inputs_of(p);
    }
  }
  return group;
}

/// The fused_elementwise node computing `members` (node indices, ascending; the last is the root).
Expected<ir::Node> fuse_group(const NodeInfo& info, const std::vector<size_t>& members) {
  const std::vector<ir::Node>& nodes = info.graph.nodes();
  ir::FusedExpr expr;
  std::vector<ir::ValueId> inputs;
  std::map<ir::ValueId, int32_t> step_of;  // member outputs -> their step
  for (size_t m : members) {
    const auto base = static_cast<int32_t>(expr.steps.size());
    for (ir::FusedStep step : info.bodies[m].steps) {
      for (ir::FusedOperand& operand : step.operands) {
        if (operand.kind == ir::FusedOperand::Kind::kStep) {
          operand.index += base;
          continue;
        }
        const ir::ValueId v = nodes[m].inputs[static_cast<size_t>(operand.index)];
        if (auto it = step_of.find(v); it != step_of.end()) {
          operand = {ir::FusedOperand::Kind::kStep, it->second};
          continue;
        }
        auto it = std::find(inputs.begin(), inputs.end(), v);
        if (it == inputs.end()) it = inputs.insert(inputs.end(), v);
        operand.index = static_cast<int32_t>(it - inputs.begin());
      }
      expr.steps.push_back(std::move(step));
    }
    step_of[nodes[m].outputs.front()] = static_cast<int32_t>(expr.steps.size()) - 1;
  }
  const ir::Node& root = nodes[members.back()];
  ir::Attributes attrs;
  attrs.set("expr", ir::make_fused_body(std::move(expr)));
  // Typed by the shape rule, which types the body again: it must give the root's type.
  return redefine(info.graph, OpKind::kFusedElementwise, std::move(inputs), std::move(attrs),
                  root.outputs, root.loc);
}

/// One round of grouping and fusing; false if no group of two or more nodes formed.
Expected<bool> fuse_once(ir::Graph& graph) {
  INFERNO_ASSIGN_OR_RETURN(const NodeInfo info, analyze(graph));
  const std::vector<int64_t> group = form_groups(info);
  std::map<int64_t, std::vector<size_t>> members;  // root -> members, ascending
  for (size_t i = 0; i < group.size(); ++i) {
    if (group[i] != kNoGroup) members[group[i]].push_back(i);
  }
  std::vector<ir::Node> fused_nodes(group.size());
  bool fused_any = false;
  for (const auto& [root, nodes_of_group] : members) {
    if (nodes_of_group.size() < 2) continue;
    INFERNO_ASSIGN_OR_RETURN(fused_nodes[static_cast<size_t>(root)],
                             fuse_group(info, nodes_of_group));
    fused_any = true;
  }
  if (!fused_any) return false;
  // A fused node takes its root's place; the other members go.
  std::vector<ir::Node> rebuilt;
  std::vector<ir::Node>& nodes = graph.mutable_nodes();
  for (size_t i = 0; i < nodes.size(); ++i) {
    const bool member = group[i] != kNoGroup && members[group[i]].size() >= 2;
    if (!member) {
      rebuilt.push_back(std::move(nodes[i]));
    } else if (group[i] == static_cast<int64_t>(i)) {
      rebuilt.push_back(std::move(fused_nodes[i]));
    }
  }
  nodes = std::move(rebuilt);
  return true;
}

}  // namespace

Status fuse_elementwise(ir::Graph& graph, const PassOptions& /*options*/) {
  // Each round removes nodes, so this ends. A second round fuses more only in rare cases (a group
  // full of inputs that a fused neighbour needs fewer of), but it makes the pass idempotent.
  for (;;) {
    INFERNO_ASSIGN_OR_RETURN(const bool fused, fuse_once(graph));
    if (!fused) return Status::ok();
  }
}

}  // namespace inferno::passes
