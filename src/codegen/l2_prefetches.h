// Which weights each GEMV of a decode step asks L2 for (kernels/l2_prefetch.cuh says why): the
// GEMVs' weights after it, in run order. Planned once per variant; emit_gemv.h passes the plan to
// its kernels.
#pragma once

#include <string>
#include <vector>

#include "codegen/emit_context.h"
#include "codegen/weights.h"
#include "ir/graph.h"

namespace inferno::codegen {

/// By node: the weights of the GEMVs after it that stream a stored constant, in run order (node
/// order; after the last GEMV come the first ones, which the next run starts with), from the next
/// one on, at most kL2PrefetchRanges (kernels/l2_prefetch_plan.h) and never the node's own weight
/// nor one twice. Filled for GEMV nodes; empty for the others.
std::vector<std::vector<ir::ValueId>> plan_l2_prefetches(const ir::Graph& graph,
                                                         const WeightsLayout& weights);

/// The run-time argument that passes node `index`'s planned weights to its kernel:
/// "inferno::kernels::l2_prefetch({{pointer, bytes}, ...})"; empty when the plan has none.
std::string l2_prefetch_argument(const EmitContext& ctx, int32_t index);

/// "%w1, %w2": the planned weights of node `index`, for a kernel's comment.
std::string l2_prefetch_names(const EmitContext& ctx, int32_t index);

}  // namespace inferno::codegen
