#include "codegen/l2_prefetches.h"

#include <algorithm>
#include <optional>

#include "codegen/emit_gemm.h"
#include "codegen/source_writer.h"
#include "kernels/l2_prefetch_plan.h"

namespace inferno::codegen {

std::vector<std::vector<ir::ValueId>> plan_l2_prefetches(const ir::Graph& graph,
                                                         const WeightsLayout& weights) {
  const auto count = static_cast<int32_t>(graph.nodes().size());
  std::vector<int32_t> gemvs;  // nodes whose GEMV streams a stored weight, in run order
  std::vector<ir::ValueId> streamed(static_cast<size_t>(count), ir::kNoValue);
  for (int32_t i = 0; i < count; ++i) {
    const std::optional<GemvProduct> product = planned_gemv(graph, i);
    const ir::ValueId w = product ? product->right : ir::kNoValue;
    if (w == ir::kNoValue || !weights.stored(w)) continue;
    gemvs.push_back(i);
    streamed[static_cast<size_t>(i)] = w;
  }
  std::vector<std::vector<ir::ValueId>> plan(static_cast<size_t>(count));
  for (size_t mine = 0; mine < gemvs.size(); ++mine) {
    const ir::ValueId own = streamed[static_cast<size_t>(gemvs[mine])];
    std::vector<ir::ValueId>& ahead = plan[static_cast<size_t>(gemvs[mine])];
    // The GEMVs after this one, wrapping around to the run's first (the next run starts there).
    for (size_t g = 1; g < gemvs.size() && ahead.size() < kernels::kL2PrefetchRanges; ++g) {
      const ir::ValueId w = streamed[static_cast<size_t>(gemvs[(mine + g) % gemvs.size()])];
      if (w == own) break;  // this node's own weight is next again
      if (std::find(ahead.begin(), ahead.end(), w) == ahead.end()) ahead.push_back(w);
    }
  }
  return plan;
}

std::string l2_prefetch_argument(const EmitContext& ctx, int32_t index) {
  if (ctx.l2_prefetch.empty()) return "";
  const std::vector<ir::ValueId>& ahead = ctx.l2_prefetch.at(static_cast<size_t>(index));
  if (ahead.empty()) return "";
  std::string ranges;
  for (const ir::ValueId w : ahead) {
    ranges += std::string(ranges.empty() ? "" : ", ") + "{" + ctx.pointer(w) + ", " +
              decimal(ctx.graph.type(w).size_bytes()) + "}";
  }
  return "inferno::kernels::l2_prefetch({" + ranges + "})";
}

std::string l2_prefetch_names(const EmitContext& ctx, int32_t index) {
  std::string names;
  if (ctx.l2_prefetch.empty()) return names;
  for (const ir::ValueId w : ctx.l2_prefetch.at(static_cast<size_t>(index)))
    names += std::string(names.empty() ? "" : ", ") + "%" + ctx.graph.name(w);
  return names;
}

}  // namespace inferno::codegen
