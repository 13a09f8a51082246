#include "passes/canonicalize.h"

#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace inferno::passes {
namespace {

using ir::OpKind;

ir::Attributes gemm_attributes(bool trans_b, double alpha, double beta) {
  ir::Attributes attrs;
  attrs.set("trans_b", trans_b);
  attrs.set("alpha", alpha);
  attrs.set("beta", beta);
  attrs.set("activation", std::string("none"));
  return attrs;
}

int64_t rank_of(const NodeRebuilder& rebuilder, ir::ValueId v) {
  return rebuilder.graph().type(v).rank();
}

bool is_identity(const ir::IntList& dims) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

/// Whether the permutation swaps the last two dims and keeps the others in place.
bool swaps_last_two(const ir::IntList& dims) {
  const auto rank = static_cast<int64_t>(dims.size());
  if (rank < 2) return false;
  ir::IntList swapped(dims.size());
  std::iota(swapped.begin(), swapped.end(), 0);
  std::swap(swapped[rank - 2], swapped[rank - 1]);
  return dims == swapped;
}

Expected<Rewrite> linear_to_gemm(NodeRebuilder& rebuilder, ir::Node& node) {
  if (rank_of(rebuilder, node.inputs[0]) < 2) return Rewrite::kUnchanged;  // gemm needs a matrix
  std::vector<ir::ValueId> inputs = node.inputs;  // x, w[, bias]: w is [N, K], hence trans_b
  return redefine_node(rebuilder.graph(), node, OpKind::kGemm, std::move(inputs),
                       gemm_attributes(true, 1.0, 1.0));
}

Expected<Rewrite> addmm_to_gemm(NodeRebuilder& rebuilder, ir::Node& node) {
  const double alpha = node.attrs.get_float("alpha"), beta = node.attrs.get_float("beta");
  std::vector<ir::ValueId> inputs = {node.inputs[1], node.inputs[2]};
  // beta == 0 ignores the bias, NaN and inf included, as PyTorch does: drop it.
  if (beta != 0) inputs.push_back(node.inputs[0]);
  return redefine_node(rebuilder.graph(), node, OpKind::kGemm, std::move(inputs),
                       gemm_attributes(false, alpha, beta != 0 ? beta : 1.0));
}

Expected<Rewrite> matmul_to_gemm(NodeRebuilder& rebuilder, ir::Node& node) {
  // 1-D operands (vector products) stay matmul.
  if (rank_of(rebuilder, node.inputs[0]) < 2 || rank_of(rebuilder, node.inputs[1]) < 2)
    return Rewrite::kUnchanged;
  std::vector<ir::ValueId> inputs = node.inputs;
  return redefine_node(rebuilder.graph(), node, OpKind::kGemm, std::move(inputs),
                       gemm_attributes(false, 1.0, 1.0));
}

/// gemm(a, permute(w) swapping its last two dims) multiplies by w with trans_b flipped.
Expected<Rewrite> absorb_transpose_of_b(NodeRebuilder& rebuilder, ir::Node& node) {
  const ir::Node* permute = rebuilder.producer(node.inputs[1], OpKind::kPermute);
  if (permute == nullptr || !swaps_last_two(permute->attrs.get_ints("dims")))
    return Rewrite::kUnchanged;
  std::vector<ir::ValueId> inputs = node.inputs;
  inputs[1] = permute->inputs[0];
  ir::Attributes attrs = node.attrs;
  attrs.set("trans_b", !node.attrs.get_bool("trans_b"));
  return redefine_node(rebuilder.graph(), node, OpKind::kGemm, std::move(inputs), std::move(attrs));
}

/// The dims of x[d..., e...] that stay rows when x is viewed as [P, K]: d with prod(d) = P and
/// prod(e) = K, d of rank >= 2 (so the gemm keeps batch dims); empty when there is none.
ir::Shape row_dims(const ir::Shape& x, int64_t rows, int64_t k) {
  int64_t product = 1;
  for (size_t i = 0; i < x.size(); ++i) {
    if (product == rows && i >= 2 && ir::shape_numel(ir::Shape(x.begin() + i, x.end())) == k)
      return ir::Shape(x.begin(), x.begin() + i);
    product *= x[i];
  }
  return {};
}

/// gemm(reshape(x[d..., e...] -> [P, K]), b[K, N]) = reshape(gemm(x' [d..., K], b) [d..., N] ->
/// [P, N]) with x' x itself when e is one dim (K), else x viewed as [d..., K] (a reshape merging e:
/// GPT-2's heads merged by a view before its 2-D addmm); when the addends read the same element
/// for every row: rank <= 1, or one row. The reshape after the gemm then meets the model's own
/// reshape back to [d..., N], which cancels it, so a residual add can reach the gemm's epilogue.
Expected<Rewrite> lift_reshape_of_a(NodeRebuilder& rebuilder, ir::Node& node) {
  const ir::Graph& graph = rebuilder.graph();
  const ir::Node* reshape = rebuilder.producer(node.inputs[0], OpKind::kReshape);
  if (reshape == nullptr || rank_of(rebuilder, node.inputs[1]) != 2) return Rewrite::kUnchanged;
  const ir::ValueId x = reshape->inputs[0];
  const ir::Shape& x_shape = graph.type(x).shape;
  const ir::Shape& a_shape = graph.type(node.inputs[0]).shape;
  if (x_shape.size() <= 2 || a_shape.size() != 2) return Rewrite::kUnchanged;
  ir::Shape rows = row_dims(x_shape, a_shape[0], a_shape[1]);
  if (rows.empty()) return Rewrite::kUnchanged;
  for (size_t i = 2; i < node.inputs.size(); ++i) {
    const ir::Shape& addend = graph.type(node.inputs[i]).shape;
    if (addend.size() > 2 || (addend.size() == 2 && addend[0] != 1)) return Rewrite::kUnchanged;
  }
  std::vector<ir::ValueId> inputs = node.inputs;
  inputs[0] = x;
  if (rows.size() + 1 != x_shape.size()) {  // merge e into one dim of K
    ir::Attributes view;
    rows.push_back(a_shape[1]);
    view.set("shape", rows);
    INFERNO_ASSIGN_OR_RETURN(inputs[0],
                             rebuilder.build(OpKind::kReshape, {x}, std::move(view),
                                             graph.name(node.inputs[0]) + "_rows", node.loc));
  }
  // The new gemm is final: its b and addends are node's, and x is no reshape (reshapes merge).
  INFERNO_ASSIGN_OR_RETURN(ir::ValueId product,
                           rebuilder.build(OpKind::kGemm, std::move(inputs), node.attrs,
                                           graph.name(node.outputs.front()), node.loc));
  ir::Attributes attrs;
  attrs.set("shape", graph.type(node.outputs.front()).shape);
  return redefine_node(graph, node, OpKind::kReshape, {product}, std::move(attrs));
}

/// gemm(a[..., M, 1], b[..., 1, N]) with nothing else (alpha 1, no addend, no activation) is the
/// broadcast product mul(a, b): every output is one product. With trans_b, b[..., N, 1] is viewed
/// as [..., 1, N] first (a reshape, merged with one that made b). transformers' rotary embedding
/// computes its angles so (inv_freq[.., 1] @ positions[1, S]), which would otherwise be a GEMM
/// library call of one multiply per output; as a mul it joins the cos and sin kernels.
Expected<Rewrite> outer_product_to_mul(NodeRebuilder& rebuilder, ir::Node& node) {
  const ir::Graph& graph = rebuilder.graph();
  const ir::TensorType& a = graph.type(node.inputs[0]);
  if (a.shape.back() != 1 || node.inputs.size() != 2 || node.attrs.get_float("alpha") != 1.0 ||
      node.attrs.get_string("activation") != "none")
    return Rewrite::kUnchanged;
  ir::ValueId b = node.inputs[1];
  if (node.attrs.get_bool("trans_b") && graph.type(b).shape[graph.type(b).rank() - 2] != 1) {
    ir::Shape row = graph.type(b).shape;
    std::swap(row[row.size() - 1], row[row.size() - 2]);
    const ir::Node* inner = rebuilder.producer(b, OpKind::kReshape);
    const ir::ValueId source = inner != nullptr ? inner->inputs[0] : b;
    if (graph.type(source).shape == row) {
      b = source;  // the reshape that made b undoes itself
    } else {
      INFERNO_ASSIGN_OR_RETURN(b, reshaped(rebuilder, source, row, node, "_row"));
    }
  }
  return redefine_node(graph, node, OpKind::kMul, {node.inputs[0], b}, {});
}

Expected<Rewrite> canonical_gemm(NodeRebuilder& rebuilder, ir::Node& node) {
  INFERNO_ASSIGN_OR_RETURN(Rewrite result, absorb_transpose_of_b(rebuilder, node));
  if (result != Rewrite::kUnchanged) return result;
  INFERNO_ASSIGN_OR_RETURN(result, outer_product_to_mul(rebuilder, node));
  if (result != Rewrite::kUnchanged) return result;
  return lift_reshape_of_a(rebuilder, node);
}

Expected<Rewrite> transpose_to_permute(NodeRebuilder& rebuilder, ir::Node& node) {
  ir::IntList dims(static_cast<size_t>(rank_of(rebuilder, node.inputs[0])));
  std::iota(dims.begin(), dims.end(), 0);
  std::swap(dims[static_cast<size_t>(node.attrs.get_int("dim0"))],
            dims[static_cast<size_t>(node.attrs.get_int("dim1"))]);
  ir::Attributes attrs;
  attrs.set("dims", std::move(dims));
  std::vector<ir::ValueId> inputs = node.inputs;
  return redefine_node(rebuilder.graph(), node, OpKind::kPermute, std::move(inputs),
                       std::move(attrs));
}

Expected<Rewrite> canonical_permute(NodeRebuilder& rebuilder, ir::Node& node) {
  const ir::IntList& dims = node.attrs.get_ints("dims");
  if (is_identity(dims)) return replace_node(rebuilder, node, node.inputs[0]);
  const ir::Node* inner = rebuilder.producer(node.inputs[0], OpKind::kPermute);
  if (inner == nullptr) return Rewrite::kUnchanged;
  // out[i] = mid[dims[i]] = x[inner[dims[i]]].
  const ir::IntList& inner_dims = inner->attrs.get_ints("dims");
  ir::IntList composed;
  for (int64_t d : dims) composed.push_back(inner_dims[static_cast<size_t>(d)]);
  ir::Attributes attrs;
  attrs.set("dims", std::move(composed));
  return redefine_node(rebuilder.graph(), node, OpKind::kPermute, {inner->inputs[0]},
                       std::move(attrs));
}

Expected<Rewrite> canonical_reshape(NodeRebuilder& rebuilder, ir::Node& node) {
  const ir::Graph& graph = rebuilder.graph();
  if (graph.type(node.outputs.front()) == graph.type(node.inputs[0]))
    return replace_node(rebuilder, node, node.inputs[0]);
  const ir::Node* inner = rebuilder.producer(node.inputs[0], OpKind::kReshape);
  if (inner == nullptr) return Rewrite::kUnchanged;
  ir::Attributes attrs = node.attrs;
  return redefine_node(graph, node, OpKind::kReshape, {inner->inputs[0]}, std::move(attrs));
}

Expected<Rewrite> canonical_expand(NodeRebuilder& rebuilder, ir::Node& node) {
  const ir::Graph& graph = rebuilder.graph();
  if (graph.type(node.outputs.front()) == graph.type(node.inputs[0]))
    return replace_node(rebuilder, node, node.inputs[0]);
  return Rewrite::kUnchanged;
}

/// mul(x, sigmoid(x)), in either order, is silu(x): how torch.export decomposes silu.
Expected<Rewrite> mul_sigmoid_to_silu(NodeRebuilder& rebuilder, ir::Node& node) {
  const ir::Graph& graph = rebuilder.graph();
  for (size_t i = 0; i < 2; ++i) {
    const ir::ValueId x = node.inputs[i];
    const ir::Node* sigmoid = rebuilder.producer(node.inputs[1 - i], OpKind::kSigmoid);
    if (sigmoid == nullptr || sigmoid->inputs[0] != x ||
        graph.type(node.outputs.front()) != graph.type(x))
      continue;
    return redefine_node(graph, node, OpKind::kSilu, {x}, {});
  }
  return Rewrite::kUnchanged;
}

}  // namespace

Expected<Rewrite> canonicalize_node(NodeRebuilder& rebuilder, ir::Node& node) {
  switch (node.op) {
    case OpKind::kLinear:
      return linear_to_gemm(rebuilder, node);
    case OpKind::kAddMM:
      return addmm_to_gemm(rebuilder, node);
    case OpKind::kMatMul:
      return matmul_to_gemm(rebuilder, node);
    case OpKind::kGemm:
      return canonical_gemm(rebuilder, node);
    case OpKind::kTranspose:
      return transpose_to_permute(rebuilder, node);
    case OpKind::kPermute:
      return canonical_permute(rebuilder, node);
    case OpKind::kReshape:
      return canonical_reshape(rebuilder, node);
    case OpKind::kExpand:
      return canonical_expand(rebuilder, node);
    case OpKind::kMul:
      return mul_sigmoid_to_silu(rebuilder, node);
    default:
      return Rewrite::kUnchanged;
  }
}

Status canonicalize(ir::Graph& graph, const PassOptions& /*options*/) {
  return rewrite_nodes(graph, &canonicalize_node);
}

}  // namespace inferno::passes
