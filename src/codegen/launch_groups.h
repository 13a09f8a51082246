// Launch groups: consecutive nodes whose generated grid kernels go out as one launch.
//
// Why: in an LLM's decode step a layer's small kernels (q's and k's rotary, the V cache write,
// the step counter) each do a few KB of work, and each launch costs more than its work: the
// launch itself, the blocks' start and the wait for the kernel before (dependent_launch.cuh).
// Independent kernels that run back to back can share one launch: each thread of the merged grid
// does one element of one member, the members' loops laid end to end.
//
// A group is a run of nodes, in node order, each either
//  - a member: a node whose lowering launches only generated grid kernels (Lowering::launches),
//    or
//  - transparent: a node that launches nothing (a view, a reshape, an empty output, an
//    index_copy whose rows its rotary kernel writes, a gated MLP's step its GEMV computes),
// where no member reads or writes bytes that another member writes (the memory plan's buffers,
// graph inputs, outputs and states; constants are never written). Then running the members at
// once, at the place of the last one, is the same as running them in order: nothing between
// them reads what they write, and none of them reads what another writes. A group has at least
// two members that launch and at most eight; the node verify corrupts (emit_corruption.h) is never
// a member.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "codegen/emit_context.h"

namespace inferno::codegen {

/// By node index: the last member of the launch group the node is in (members and the
/// transparent nodes between them), or -1 for a node launched on its own. `excluded_node` (or -1)
/// is in no group.
std::vector<int32_t> plan_launch_groups(const EmitContext& ctx, int32_t excluded_node);

/// Writes the grid kernels held for the group that node `index` ends (EmitContext::grouped) as
/// one kernel and its launch (a lone kernel as itself). Call after lowering the group's last node.
/// Returns the members that launched, each node with its kernel's name.
std::vector<std::pair<int32_t, std::string>> emit_launch_group(EmitContext& ctx, int32_t index);

}  // namespace inferno::codegen
