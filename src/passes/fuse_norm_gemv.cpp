#include "passes/fuse_norm_gemv.h"

#include <optional>
#include <string>
#include <vector>

#include "passes/rewrite.h"

namespace inferno::passes {
namespace {

using ir::OpKind;

// Every node input slot that reads each value: (node index, input position).
struct Use {
  size_t node = 0, slot = 0;
};

std::vector<std::vector<Use>> uses_of_values(const ir::Graph& graph) {
  std::vector<std::vector<Use>> uses(static_cast<size_t>(graph.num_values()));
  const std::vector<ir::Node>& nodes = graph.nodes();
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (size_t s = 0; s < nodes[i].inputs.size(); ++s)
      uses[static_cast<size_t>(nodes[i].inputs[s])].push_back({i, s});
  }
  return uses;
}

// Whether a norm node has the form norm_gemm folds: over the last dim. A norm without its weight
// (or a layer_norm without its bias) folds too, with ones (zeros) for it (complete_norm_operands):
// a model whose norm weights are still their initial ones has them simplified away.
bool foldable_norm(const ir::Node& node) {
  if (node.op != OpKind::kLayerNorm && node.op != OpKind::kRmsNorm) return false;
  return node.attrs.get_int("normalized_dims") == 1;
}

// norm's inputs with the weight (and a layer_norm's bias) it lacks as a constant of ones (zeros)
// over the normalized dim: x * 1 and x + 0 are exact, so the product is unchanged.
std::vector<ir::ValueId> complete_norm_operands(ir::Graph& graph, const ir::Node& norm) {
  std::vector<ir::ValueId> inputs = norm.inputs;
  const ir::TensorType& x = graph.type(norm.inputs[0]);
  const ir::TensorType vector{x.dtype, {x.shape.back()}};
  if (inputs.size() == 1) {
    ir::Tensor ones = ir::Tensor::zeros(vector);
    for (int64_t i = 0; i < ones.numel(); ++i) ones.set(i, 1.0);
    inputs.push_back(graph.add_constant(graph.name(norm.outputs[0]) + "_weight", std::move(ones)));
  }
  if (norm.op == OpKind::kLayerNorm && inputs.size() == 2)
    inputs.push_back(
        graph.add_constant(graph.name(norm.outputs[0]) + "_bias", ir::Tensor::zeros(vector)));
  return inputs;
}

// Whether gemm `node` reading the norm's output as x runs as the GEMV with an [N, K] weight, with
// x's rows staged (the header's rules).
bool takes_gemv_nk(const ir::Graph& graph, const ir::Node& node) {
  if (node.op != OpKind::kGemm || !node.attrs.get_bool("trans_b")) return false;
  const ir::TensorType& x = graph.type(node.inputs[0]);
  const ir::TensorType& w = graph.type(node.inputs[1]);
  const ir::TensorType& out = graph.type(node.outputs[0]);
  if (out.dtype != ir::DType::kF32 && out.dtype != ir::DType::kF16 && out.dtype != ir::DType::kBF16)
    return false;
  if (w.rank() != 2 || x.rank() < 1) return false;
  const int64_t k = x.shape.back(), n = w.shape[0];
  if (k < 1 || n < 1 || n > target::kGemvLimits.max_extent) return false;
  if (!target::gemv_norm_fits(x.numel() / k, k, ir::dtype_size(x.dtype))) return false;
  std::vector<ir::Shape> addends;
  if (node.inputs.size() >= 3 && node.attrs.get_float("beta") != 0.0)
    addends.push_back(graph.type(node.inputs[2]).shape);
  if (node.inputs.size() == 4) addends.push_back(graph.type(node.inputs[3]).shape);
  return target::gemv_addend_slots(addends, out.shape).has_value();
}

// gemm(norm(x), b, c?, d?) becomes norm_gemm(x, b, weight, bias?, c?, d?) in place: same output,
// same position (after the norm, so after everything the norm reads). `norm_inputs`: the norm's
// operands with weight and bias completed.
void fold(const ir::Node& norm, const std::vector<ir::ValueId>& norm_inputs, ir::Node& gemm) {
  std::vector<ir::ValueId> inputs = {norm_inputs[0], gemm.inputs[1]};
  inputs.insert(inputs.end(), norm_inputs.begin() + 1, norm_inputs.end());  // weight, bias
  inputs.insert(inputs.end(), gemm.inputs.begin() + 2, gemm.inputs.end());  // c, d
  gemm.op = OpKind::kNormGemm;
  gemm.inputs = std::move(inputs);
  gemm.attrs.set("norm", std::string(ir::op_name(norm.op)));
  gemm.attrs.set("eps", norm.attrs.get_float("eps"));
}

}  // namespace

Status fuse_norm_gemv(ir::Graph& graph, const PassOptions& /*options*/) {
  const std::vector<std::vector<Use>> uses = uses_of_values(graph);
  const std::vector<bool> is_output = graph_output_mask(graph);
  std::vector<ir::Node>& nodes = graph.mutable_nodes();
  std::vector<bool> folded(nodes.size(), false);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const ir::Node& norm = nodes[i];
    if (!foldable_norm(norm)) continue;
    const ir::ValueId y = norm.outputs[0];
    const std::vector<Use>& readers = uses[static_cast<size_t>(y)];
    if (is_output[static_cast<size_t>(y)] || readers.empty()) continue;
    bool all_gemv = true;
    for (const Use& use : readers)
      all_gemv = all_gemv && use.slot == 0 && takes_gemv_nk(graph, nodes[use.node]);
    if (!all_gemv) continue;
    const std::vector<ir::ValueId> norm_inputs = complete_norm_operands(graph, norm);
    for (const Use& use : readers) fold(norm, norm_inputs, nodes[use.node]);
    folded[i] = true;
  }
  std::vector<ir::Node> kept;
  kept.reserve(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!folded[i]) kept.push_back(std::move(nodes[i]));
  }
  nodes = std::move(kept);
  return Status::ok();
}

}  // namespace inferno::passes
