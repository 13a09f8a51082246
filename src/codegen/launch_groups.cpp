#include "codegen/launch_groups.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "codegen/emit_grid_kernel.h"
#include "codegen/emit_join.h"
#include "codegen/emit_rotary.h"
#include "codegen/gemv_pairs.h"
#include "codegen/lowering.h"
#include "support/check.h"

namespace inferno::codegen {
namespace {

// Members a group takes at most: enough for a layer's small kernels, and a bound on the group
// kernel's parameter list (every member's pointers).
constexpr int32_t kMaxMembers = 8;

// A range of bytes a value occupies: one arena range, or a whole input, output or state buffer.
struct Bytes {
  StorageKind kind = StorageKind::kArena;
  int32_t index = 0;  // the buffer's index; 0 for the arena (one address space)
  int64_t begin = 0, end = 0;
};

bool overlap(const Bytes& a, const Bytes& b) {
  return a.kind == b.kind && a.index == b.index && a.begin < b.end && b.begin < a.end;
}

// What a member reads and writes; `known` false when some value's bytes cannot be told.
struct Accesses {
  std::vector<Bytes> reads, writes;
  bool known = true;
};

void add_bytes(const EmitContext& ctx, ir::ValueId value, std::vector<Bytes>& to, bool& known) {
  const Storage& s = ctx.plan.of(value);
  switch (s.kind) {
    case StorageKind::kConstant:
      return;  // the weights: no kernel writes them
    case StorageKind::kArena: {
      if (s.index < 0 || static_cast<size_t>(s.index) >= ctx.plan.buffers.size()) {
        known = false;
        return;
      }
      const ArenaBuffer& b = ctx.plan.buffers[static_cast<size_t>(s.index)];
      to.push_back({StorageKind::kArena, 0, b.offset, b.offset + std::max<int64_t>(b.bytes, 1)});
      return;
    }
    case StorageKind::kInput:
    case StorageKind::kOutput:
    case StorageKind::kState:
      to.push_back({s.kind, s.index, 0, std::numeric_limits<int64_t>::max()});
      return;
  }
}

Accesses accesses(const EmitContext& ctx, int32_t index) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(index)];
  Accesses a;
  for (const ir::ValueId in : node.inputs) add_bytes(ctx, in, a.reads, a.known);
  // A rotary that writes its rows into a KV cache (emit_rotary.h) reads that write's index and
  // writes the cache, not its own output.
  const int32_t target = rotary_row_target(ctx, index);
  if (target >= 0) {
    const ir::Node& copy = ctx.graph.nodes()[static_cast<size_t>(target)];
    add_bytes(ctx, copy.inputs[1], a.reads, a.known);
    add_bytes(ctx, copy.outputs[0], a.writes, a.known);
    return a;
  }
  for (const ir::ValueId out : node.outputs) add_bytes(ctx, out, a.writes, a.known);
  return a;
}

bool any_overlap(const std::vector<Bytes>& a, const std::vector<Bytes>& b) {
  for (const Bytes& x : a) {
    for (const Bytes& y : b) {
      if (overlap(x, y)) return true;
    }
  }
  return false;
}

// A node that launches nothing: a view, an empty output, a step its attention does
// (attention_step.h), a cache write its rotary does, a gated MLP's step its GEMV computes
// (gemv_pairs.h).
bool transparent(const EmitContext& ctx, int32_t index) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(index)];
  if (ctx.views.aliases_input(index)) return true;
  if (ctx.graph.type(node.outputs[0]).numel() == 0) return true;
  if (ctx.attention_step_owner_of(index) >= 0) return true;
  if (node.op == ir::OpKind::kIndexCopy) return rows_written_by_rotary(ctx, index);
  return gemv_pair_source(ctx, index) >= 0;
}

bool may_join(const EmitContext& ctx, int32_t index, int32_t excluded_node) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(index)];
  return index != excluded_node && node.outputs.size() == 1 &&
         lowering_table()[node.op].launches == Launches::kGridKernelsOnly;
}

// A kernel's parameter list split at its top-level commas: "const float* x, float* out" ->
// {"const float* x", "float* out"}.
std::vector<std::string> split_params(const std::string& params) {
  std::vector<std::string> out;
  int depth = 0;
  std::string current;
  for (const char c : params) {
    if (c == '<' || c == '(') ++depth;
    if (c == '>' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(current);
      current.clear();
      continue;
    }
    if (!(c == ' ' && current.empty())) current += c;
  }
  if (!current.empty()) out.push_back(current);
  return out;
}

}  // namespace

std::vector<int32_t> plan_launch_groups(const EmitContext& ctx, int32_t excluded_node) {
  const auto count = static_cast<int32_t>(ctx.graph.nodes().size());
  std::vector<int32_t> end(static_cast<size_t>(count), -1);
  int32_t first = 0;
  while (first < count) {
    if (transparent(ctx, first) || !may_join(ctx, first, excluded_node)) {
      ++first;
      continue;
    }
    Accesses group = accesses(ctx, first);
    int32_t last = first, members = 1;
    for (int32_t n = first + 1; group.known && n < count && members < kMaxMembers; ++n) {
      if (transparent(ctx, n)) continue;
      if (!may_join(ctx, n, excluded_node)) break;
      const Accesses next = accesses(ctx, n);
      if (!next.known || any_overlap(next.writes, group.reads) ||
          any_overlap(next.writes, group.writes) || any_overlap(next.reads, group.writes)) {
        break;
      }
      group.reads.insert(group.reads.end(), next.reads.begin(), next.reads.end());
      group.writes.insert(group.writes.end(), next.writes.begin(), next.writes.end());
      last = n;
      ++members;
    }
    if (members >= 2) {
      for (int32_t n = first; n <= last; ++n) end[static_cast<size_t>(n)] = last;
    }
    first = last + 1;
  }
  return end;
}

std::vector<std::pair<int32_t, std::string>> emit_launch_group(EmitContext& ctx, int32_t index) {
  std::vector<std::pair<int32_t, GridKernel>> members = std::move(ctx.grouped);
  ctx.grouped.clear();
  std::vector<std::pair<int32_t, std::string>> launched;
  for (const auto& [node, kernel] : members) launched.emplace_back(node, kernel.name);
  if (members.size() <= 1) {
    if (!members.empty()) write_grid_kernel(ctx, members.front().second);
    return launched;
  }
  // Each member is its own kernel's loop over its own blocks of the grid, as a device function
  // that the group's kernel calls from those blocks: the branch is uniform over a block, and
  // each member is compiled apart (never inlined into the others).
  SourceWriter& k = ctx.out.kernels;
  int64_t blocks_before = 0;
  std::string params;
  NamedArgs args;
  std::vector<std::string> calls;
  for (size_t m = 0; m < members.size(); ++m) {
    const GridKernel& kernel = members[m].second;
    const std::vector<std::string> declarations = split_params(kernel.params);
    INFERNO_CHECK(declarations.size() == kernel.args.size(),
                  "launch group: " + kernel.name + "'s parameters and arguments do not pair up");
    std::string forwarded;
    for (size_t p = 0; p < declarations.size(); ++p) {
      const std::string& name = kernel.args[p].first;
      const std::string& declaration = declarations[p];
      INFERNO_CHECK(
          declaration.size() > name.size() &&
              declaration.compare(declaration.size() - name.size(), name.size(), name) == 0,
          "launch group: parameter " + declaration + " is not named " + name);
      const std::string renamed = "m" + std::to_string(m) + "_" + name;
      params += (params.empty() ? "" : ", ") +
                declaration.substr(0, declaration.size() - name.size()) + renamed;
      args.emplace_back(renamed, kernel.args[p].second);
      forwarded += ", " + renamed;
    }
    write_comment_lines(k, kernel.comment);
    k.open("static __device__ __noinline__ void " + kernel.name +
           "(unsigned block, unsigned blocks" +
           (kernel.params.empty() ? "" : ", " + kernel.params) + ")");
    k.open(loop_header(kernel.numel, "block", "blocks"));
    k.append(kernel.body);
    k.close();
    k.close();
    k.line("");
    const int64_t blocks = grid_blocks(kernel.numel);
    const std::string first = std::to_string(blocks_before);
    blocks_before += blocks;
    calls.push_back("if (b < " + std::to_string(blocks_before) + "u) " + kernel.name + "(b - " +
                    first + "u, " + std::to_string(blocks) + "u" + forwarded + ");");
  }
  const std::string name = "k" + std::to_string(index) + "_launch_group";
  k.line("// One launch for the " + std::to_string(members.size()) +
         " kernels above (launch_groups.h): each takes its own blocks of the grid.");
  k.open("__global__ void " + name + "(" + params + ")");
  k.line("inferno::kernels::await_producers();");
  k.line("const unsigned b = blockIdx.x;");
  for (size_t c = 0; c < calls.size(); ++c) k.line((c == 0 ? "" : "else ") + calls[c]);
  k.close();
  k.line("");
  ctx.out.run.line("// one launch for this node's kernel and the launch group's before it");
  emit_launch(ctx, name, std::to_string(blocks_before), std::to_string(kBlockThreads), args,
              ctx.label(ctx.graph.nodes()[static_cast<size_t>(index)]));
  return launched;
}

}  // namespace inferno::codegen
