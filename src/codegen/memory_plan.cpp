#include "codegen/memory_plan.h"

#include <algorithm>

#include "support/check.h"

namespace inferno::codegen {
namespace {

// An occupied arena range while the plan walks the nodes.
struct LiveRange {
  int64_t begin = 0;
  int64_t end = 0;
  int32_t last_node = 0;
};

// First fit: the lowest aligned offset where `bytes` fit between the live ranges (sorted by begin).
int64_t first_fit(const std::vector<LiveRange>& live, int64_t bytes) {
  int64_t cursor = 0;
  for (const LiveRange& range : live) {
    if (align_up(cursor) + bytes <= range.begin) break;
    cursor = std::max(cursor, range.end);
  }
  return align_up(cursor);
}

// The input position `out` of node `n` may overwrite (MemoryPlanOptions::aligned_inputs' rules
// in memory_plan.h), or -1.
int32_t in_place_input(const ir::Graph& graph, const ir::Node& node,
                       const std::vector<int32_t>& aligned, const std::vector<ir::ValueId>& root,
                       const std::vector<int32_t>& last_use, const MemoryPlan& plan, int32_t n) {
  const int64_t bytes = graph.type(node.outputs[0]).size_bytes();
  if (bytes == 0) return -1;
  for (const int32_t j : aligned) {
    const ir::ValueId r = root[node.inputs[static_cast<size_t>(j)]];
    if (plan.storage[r].kind != StorageKind::kArena || last_use[r] != n ||
        graph.type(r).size_bytes() != bytes ||
        graph.type(node.inputs[static_cast<size_t>(j)]).size_bytes() != bytes) {
      continue;
    }
    bool only_aligned_reads = true;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const bool is_aligned =
          std::find(aligned.begin(), aligned.end(), static_cast<int32_t>(i)) != aligned.end();
      only_aligned_reads &= root[node.inputs[i]] != r || is_aligned;
    }
    if (only_aligned_reads) return j;
  }
  return -1;
}

}  // namespace

std::vector<int32_t> elementwise_aligned_inputs(const ir::Graph& graph, const ir::Node& node) {
  std::vector<int32_t> aligned;
  const bool elementwise =
      ir::op_has_trait(node.op, ir::kElementwise) || node.op == ir::OpKind::kFusedElementwise;
  if (!elementwise || node.outputs.size() != 1) return aligned;
  const ir::Shape& out = graph.type(node.outputs[0]).shape;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (graph.type(node.inputs[i]).shape == out) aligned.push_back(static_cast<int32_t>(i));
  }
  return aligned;
}

int64_t align_up(int64_t bytes, int64_t alignment) {
  return (bytes + alignment - 1) / alignment * alignment;
}

MemoryPlan plan_memory(const ir::Graph& graph, const MemoryPlanOptions& options) {
  const auto num_values = static_cast<size_t>(graph.num_values());
  const auto num_nodes = static_cast<int32_t>(graph.nodes().size());
  MemoryPlan plan;
  plan.storage.resize(num_values);
  plan.scratch_buffer.assign(static_cast<size_t>(num_nodes), -1);

  // Alias groups: a reshape's output (or a view's: MemoryPlanOptions::aliases_input) shares its
  // input's bytes.
  std::vector<ir::ValueId> root(num_values, ir::kNoValue);
  std::vector<int32_t> defined_at(num_values, -1);
  const size_t user_inputs = graph.num_user_inputs();
  for (size_t i = 0; i < graph.inputs().size(); ++i) {
    const ir::ValueId v = graph.inputs()[i];
    root[v] = v;
    plan.storage[v] = i < user_inputs
                          ? Storage{StorageKind::kInput, static_cast<int32_t>(i), v}
                          : Storage{StorageKind::kState, static_cast<int32_t>(i - user_inputs), v};
  }
  // How many node inputs read each value: a state read by one node only may be written over.
  std::vector<int32_t> readers(num_values, 0);
  for (const ir::Node& node : graph.nodes()) {
    for (const ir::ValueId in : node.inputs) ++readers[in];
  }
  for (const ir::ValueId c : graph.constants()) {
    root[c] = c;
    plan.storage[c] = {StorageKind::kConstant, -1, c};
  }
  for (int32_t n = 0; n < num_nodes; ++n) {
    const ir::Node& node = graph.nodes()[n];
    for (const ir::ValueId out : node.outputs) {
      defined_at[out] = n;
      const bool alias = options.aliases_input.empty()
                             ? node.op == ir::OpKind::kReshape
                             : options.aliases_input.at(static_cast<size_t>(n));
      root[out] = alias ? root[node.inputs[0]] : out;
      if (!alias && options.in_place && node.outputs.size() == 1 &&
          !options.aligned_inputs.empty()) {
        for (const int32_t j : options.aligned_inputs.at(static_cast<size_t>(n))) {
          const ir::ValueId in = node.inputs[static_cast<size_t>(j)];
          if (plan.storage[in].kind == StorageKind::kState && root[in] == in && readers[in] == 1 &&
              graph.type(in) == graph.type(out)) {
            root[out] = in;  // written over the state (memory_plan.h)
            break;
          }
        }
      }
      INFERNO_CHECK(root[out] != ir::kNoValue, "memory plan: a node reads an undefined value");
    }
  }

  // Graph outputs: the first output of an intermediate group is written in place, the rest copied.
  std::vector<int32_t> group_output(num_values, -1);
  const size_t user_outputs = graph.num_user_outputs();
  for (size_t j = 0; j < graph.outputs().size(); ++j) {
    const ir::ValueId v = graph.outputs()[j];
    const ir::ValueId r = root[v];
    const bool intermediate = graph.value(r).kind == ir::ValueKind::kNodeOutput;
    if (j >= user_outputs) {  // a state's update: in place already, or copied at the end
      if (r != graph.state_value(j - user_outputs))
        plan.output_copies.push_back({static_cast<int32_t>(j), v});
    } else if (intermediate && group_output[r] < 0) {
      group_output[r] = static_cast<int32_t>(j);
    } else {
      plan.output_copies.push_back({static_cast<int32_t>(j), v});
    }
  }

  // Liveness per group: from the root's node to the last node reading any member.
  std::vector<int32_t> last_use(num_values, -1);
  for (int32_t n = 0; n < num_nodes; ++n) {
    for (const ir::ValueId out : graph.nodes()[n].outputs)
      last_use[root[out]] = std::max(last_use[root[out]], n);
    for (const ir::ValueId in : graph.nodes()[n].inputs)
      last_use[root[in]] = std::max(last_use[root[in]], n);
    if (static_cast<size_t>(n) < options.extra_reads.size()) {
      for (const ir::ValueId in : options.extra_reads[static_cast<size_t>(n)])
        last_use[root[in]] = std::max(last_use[root[in]], n);
    }
  }
  for (const OutputCopy& copy : plan.output_copies) last_use[root[copy.value]] = num_nodes;

  // First-fit placement in node order; an in-place output starts where its input's bytes are.
  std::vector<LiveRange> live;
  auto place = [&](int64_t bytes, int32_t first, int32_t last, ir::ValueId value,
                   int32_t scratch_node, int64_t at = -1) {
    ArenaBuffer buffer{0, bytes, first, last, value, scratch_node};
    if (bytes > 0) {
      buffer.offset = at >= 0 ? at : first_fit(live, bytes);
      const LiveRange range{buffer.offset, buffer.offset + bytes, last};
      live.insert(std::upper_bound(
                      live.begin(), live.end(), range,
                      [](const LiveRange& a, const LiveRange& b) { return a.begin < b.begin; }),
                  range);
      plan.planned_bytes = std::max(plan.planned_bytes, align_up(buffer.offset + bytes));
      plan.unshared_bytes += align_up(bytes);
    }
    plan.buffers.push_back(buffer);
    return static_cast<int32_t>(plan.buffers.size() - 1);
  };
  for (int32_t n = 0; n < num_nodes; ++n) {
    std::erase_if(live, [n](const LiveRange& range) { return range.last_node < n; });
    const ir::Node& node = graph.nodes()[n];
    for (const ir::ValueId out : node.outputs) {
      if (root[out] != out) continue;  // an alias: placed with its root
      if (group_output[out] >= 0) {
        plan.storage[out] = {StorageKind::kOutput, group_output[out], out};
        continue;
      }
      int32_t over = -1;
      if (options.in_place && node.outputs.size() == 1) {
        over = in_place_input(graph, node,
                              options.aligned_inputs.empty()
                                  ? elementwise_aligned_inputs(graph, node)
                                  : options.aligned_inputs.at(static_cast<size_t>(n)),
                              root, last_use, plan, n);
      }
      int32_t buffer = -1;
      if (over >= 0) {
        const ir::ValueId input = root[node.inputs[static_cast<size_t>(over)]];
        const int64_t at = plan.buffers[static_cast<size_t>(plan.storage[input].index)].offset;
        buffer = place(graph.type(out).size_bytes(), n, last_use[out], out, -1, at);
        plan.buffers[static_cast<size_t>(buffer)].in_place_of = input;
      } else {
        buffer = place(graph.type(out).size_bytes(), n, last_use[out], out, -1);
      }
      plan.storage[out] = {StorageKind::kArena, buffer, out};
    }
    const auto scratch =
        static_cast<size_t>(n) < options.scratch_bytes.size() ? options.scratch_bytes[n] : 0;
    if (scratch > 0) plan.scratch_buffer[n] = place(scratch, n, n, ir::kNoValue, n);
  }
  for (int32_t n = 0; n < num_nodes; ++n) {
    for (const ir::ValueId out : graph.nodes()[n].outputs) {
      if (root[out] != out) plan.storage[out] = plan.storage[root[out]];
      plan.storage[out].root = root[out];
    }
  }

  plan.workspace_bytes = options.workspace_bytes;
  plan.workspace_offset = plan.planned_bytes;
  plan.arena_bytes = plan.planned_bytes + align_up(plan.workspace_bytes);
  return plan;
}

bool same_bytes(const MemoryPlan& plan, ir::ValueId a, ir::ValueId b) {
  const Storage &x = plan.of(a), &y = plan.of(b);
  if (x.kind != y.kind) return false;
  if (x.kind != StorageKind::kArena) return x.index == y.index && x.root == y.root;
  return plan.buffers.at(static_cast<size_t>(x.index)).offset ==
         plan.buffers.at(static_cast<size_t>(y.index)).offset;
}

std::string memory_plan_to_string(const ir::Graph& graph, const MemoryPlan& plan) {
  const auto num_nodes = static_cast<int32_t>(graph.nodes().size());
  std::vector<int32_t> defined_at(static_cast<size_t>(graph.num_values()), -1);
  for (int32_t n = 0; n < num_nodes; ++n) {
    for (const ir::ValueId out : graph.nodes()[n].outputs) defined_at[out] = n;
  }
  std::string text = "arena: " + std::to_string(plan.buffers.size()) + " buffers, peak " +
                     std::to_string(plan.planned_bytes) + " bytes (unshared " +
                     std::to_string(plan.unshared_bytes) + "), workspace " +
                     std::to_string(plan.workspace_bytes) + " at " +
                     std::to_string(plan.workspace_offset) + ", total " +
                     std::to_string(plan.arena_bytes) + "\n";
  for (size_t b = 0; b < plan.buffers.size(); ++b) {
    const ArenaBuffer& buffer = plan.buffers[b];
    text +=
        "buffer " + std::to_string(b) + ": [" + std::to_string(buffer.offset) + ", " +
        std::to_string(buffer.offset + buffer.bytes) + ") " + std::to_string(buffer.bytes) +
        " bytes, nodes " + std::to_string(buffer.first_node) + ".." +
        (buffer.last_node == num_nodes ? std::string("end") : std::to_string(buffer.last_node)) +
        ", " +
        (buffer.value != ir::kNoValue ? "%" + graph.name(buffer.value)
                                      : "scratch of node " + std::to_string(buffer.scratch_node)) +
        (buffer.in_place_of != ir::kNoValue
             ? " (in place of %" + graph.name(buffer.in_place_of) + ")"
             : "") +
        "\n";
  }
  size_t next_copy = 0;
  for (size_t j = 0; j < graph.outputs().size(); ++j) {
    const ir::ValueId v = graph.outputs()[j];
    text += "output " + std::to_string(j) + " %" + graph.name(v) + ": ";
    if (next_copy < plan.output_copies.size() &&
        plan.output_copies[next_copy].output == static_cast<int32_t>(j)) {
      ++next_copy;
      const Storage& from = plan.of(v);
      switch (from.kind) {
        case StorageKind::kInput:
          text += "copy of input " + std::to_string(from.index);
          break;
        case StorageKind::kConstant:
          text += "copy of constant %" + graph.name(from.root);
          break;
        case StorageKind::kArena:
          text += "copy of buffer " + std::to_string(from.index);
          break;
        case StorageKind::kOutput:
          text += "copy of output " + std::to_string(from.index);
          break;
        case StorageKind::kState:
          text += "copy of state " + std::to_string(from.index);
          break;
      }
    } else if (plan.of(v).kind == StorageKind::kState) {
      text += "state " + std::to_string(plan.of(v).index) +
              (defined_at[v] >= 0 ? ", written in place by node " + std::to_string(defined_at[v])
                                  : ", unchanged");
    } else {
      const ir::ValueId r = plan.of(v).root;
      text += "written by node " + std::to_string(defined_at[r]);
      if (r != v) text += " (as %" + graph.name(r) + ")";
    }
    text += "\n";
  }
  return text;
}

}  // namespace inferno::codegen
