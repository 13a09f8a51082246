#include "passes/transpose_gemm_weights.h"

#include <cstring>
#include <map>
#include <vector>

namespace inferno::passes {
namespace {

bool is_data_constant(const ir::Graph& graph, ir::ValueId v) {
  const ir::Value& value = graph.value(v);
  return value.kind == ir::ValueKind::kConstant && value.constant != nullptr;
}

bool takes_kn_weight(const ir::Node& node, size_t position) {
  return node.op == ir::OpKind::kGemm && position == 1 && !node.attrs.get_bool("trans_b");
}

// The [N, K] copy of a [K, N] tensor, element bytes moved as they are.
ir::Tensor transposed(const ir::Tensor& kn) {
  const int64_t k = kn.type.shape[0], n = kn.type.shape[1];
  ir::Tensor nk = ir::Tensor::zeros({kn.type.dtype, {n, k}});
  const auto element = static_cast<size_t>(ir::dtype_size(kn.type.dtype));
  for (int64_t r = 0; r < k; ++r) {
    for (int64_t c = 0; c < n; ++c) {
      std::memcpy(nk.data.data() + static_cast<size_t>(c * k + r) * element,
                  kn.data.data() + static_cast<size_t>(r * n + c) * element, element);
    }
  }
  return nk;
}

}  // namespace

Status transpose_gemm_weights(ir::Graph& graph, const PassOptions& /*options*/) {
  // Which constants qualify: rank 2, with data, every use a [K, N] right operand.
  std::map<ir::ValueId, bool> qualifies;
  for (const ir::Node& node : graph.nodes()) {
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const ir::ValueId v = node.inputs[i];
      if (!is_data_constant(graph, v)) continue;
      const bool ok = takes_kn_weight(node, i) && graph.type(v).rank() == 2;
      const auto [at, fresh] = qualifies.emplace(v, ok);
      if (!fresh) at->second = at->second && ok;
    }
  }
  for (const ir::ValueId out : graph.outputs()) qualifies[out] = false;  // returned as it is
  std::map<ir::ValueId, ir::ValueId> replacement;
  for (const auto& [v, ok] : qualifies) {
    if (!ok) continue;
    replacement[v] =
        graph.add_constant(graph.name(v) + "_nk", transposed(*graph.value(v).constant));
  }
  if (replacement.empty()) return Status::ok();
  for (ir::Node& node : graph.mutable_nodes()) {
    if (node.op != ir::OpKind::kGemm || node.attrs.get_bool("trans_b")) continue;
    const auto found = replacement.find(node.inputs[1]);
    if (found == replacement.end()) continue;
    node.inputs[1] = found->second;
    node.attrs.set("trans_b", true);
  }
  return Status::ok();
}

}  // namespace inferno::passes
