#include "passes/fuse_parallel_gemms.h"

#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "passes/node_rebuilder.h"

namespace inferno::passes {
namespace {

using ir::OpKind;

/// What gemms must share to be fused (the weights' N aside).
using GroupKey = std::tuple<ir::ValueId, bool, double, std::string, ir::DType, int64_t, ir::Shape>;

bool is_data_constant(const ir::Graph& graph, ir::ValueId v) {
  const ir::Value& value = graph.value(v);
  return value.kind == ir::ValueKind::kConstant && value.constant != nullptr;
}

/// The key of a gemm that can be fused with others, or nullopt.
std::optional<GroupKey> group_key(const ir::Graph& graph, const ir::Node& node) {
  if (node.op != OpKind::kGemm || node.inputs.size() > 3) return std::nullopt;
  const ir::ValueId b = node.inputs[1];
  const ir::TensorType& bt = graph.type(b);
  if (bt.rank() != 2 || !is_data_constant(graph, b)) return std::nullopt;
  const bool trans_b = node.attrs.get_bool("trans_b");
  if (!std::isfinite(node.attrs.get_float("alpha")) || !std::isfinite(node.attrs.get_float("beta")))
    return std::nullopt;  // the group map compares them
  const bool biased = node.inputs.size() == 3;
  if (biased) {
    const ir::ValueId c = node.inputs[2];
    const ir::TensorType& ct = graph.type(c);
    const int64_t n = trans_b ? bt.shape[0] : bt.shape[1];
    if (ct.rank() != 1 || ct.shape[0] != n || ct.dtype != bt.dtype || !is_data_constant(graph, c))
      return std::nullopt;
  }
  const ir::TensorType& out = graph.type(node.outputs.front());
  // The output without its last dim: members' outputs differ only in N.
  ir::Shape outer(out.shape.begin(), out.shape.end() - 1);
  return GroupKey{node.inputs[0],
                  trans_b,
                  node.attrs.get_float("alpha"),
                  node.attrs.get_string("activation"),
                  bt.dtype,
                  trans_b ? bt.shape[1] : bt.shape[0],
                  std::move(outer)};
}

/// The tensors joined along `dim` (0 or 1 of rank 2, 0 of rank 1).
ir::Tensor concatenate(const std::vector<const ir::Tensor*>& parts, size_t dim) {
  ir::TensorType type = parts.front()->type;
  int64_t total = 0;
  for (const ir::Tensor* p : parts) total += p->type.shape[dim];
  type.shape[dim] = total;
  ir::Tensor out = ir::Tensor::zeros(type);
  const int64_t element = ir::dtype_size(type.dtype);
  // Rows: the dims before `dim`; each part contributes a contiguous run per row.
  const int64_t rows = dim == 0 ? 1 : type.shape[0];
  std::byte* dst = out.data.data();
  for (int64_t r = 0; r < rows; ++r) {
    for (const ir::Tensor* p : parts) {
      const int64_t run = p->numel() / rows * element;
      const std::byte* src = p->data.data() + r * run;
      std::memcpy(dst, src, static_cast<size_t>(run));
      dst += run;
    }
  }
  return out;
}

}  // namespace

Status fuse_parallel_gemms(ir::Graph& graph, const PassOptions& /*options*/) {
  // Groups of at least two gemms, by the index of each member; first member first.
  std::map<GroupKey, std::vector<size_t>> groups;
  for (size_t i = 0; i < graph.nodes().size(); ++i) {
    if (std::optional<GroupKey> key = group_key(graph, graph.nodes()[i])) groups[*key].push_back(i);
  }
  std::vector<int64_t> group_of(graph.nodes().size(), -1);  // node -> its group in `fused`
  std::vector<std::vector<size_t>> fused;
  auto add_group = [&](const std::vector<size_t>& members) {
    if (members.size() < 2) return;
    for (size_t m : members) group_of[m] = static_cast<int64_t>(fused.size());
    fused.push_back(members);
  };
  for (auto& [key, members] : groups) {
    // The biased members' beta must agree: gemms without a bias join them (with a zero bias)
    // when there is one beta, and are fused among themselves otherwise.
    std::map<double, std::vector<size_t>> by_beta;
    std::vector<size_t> unbiased;
    for (size_t m : members) {
      const ir::Node& node = graph.nodes()[m];
      if (node.inputs.size() == 3) {
        by_beta[node.attrs.get_float("beta")].push_back(m);
      } else {
        unbiased.push_back(m);
      }
    }
    if (by_beta.size() <= 1) {
      add_group(members);
      continue;
    }
    for (auto& [beta, biased] : by_beta) add_group(biased);
    add_group(unbiased);
  }
  if (fused.empty()) return Status::ok();

  NodeRebuilder rebuilder(graph);
  std::vector<ir::Node>& old = rebuilder.old_nodes();
  for (size_t i = 0; i < old.size(); ++i) {
    const int64_t g = group_of[i];
    if (g < 0) {
      rebuilder.append(std::move(old[i]));
      continue;
    }
    const std::vector<size_t>& members = fused[static_cast<size_t>(g)];
    if (members.front() != i) continue;  // made at the first member, with every slice
    const ir::Node& first = old[i];
    const bool trans_b = first.attrs.get_bool("trans_b");
    ir::Attributes attrs = first.attrs;
    std::vector<const ir::Tensor*> weights;
    std::string name, bias_name;
    for (size_t m : members) {
      weights.push_back(graph.value(old[m].inputs[1]).constant.get());
      name += (name.empty() ? "" : "_") + graph.name(old[m].outputs.front());
      if (old[m].inputs.size() == 3 && bias_name.empty()) {
        bias_name = graph.name(old[m].inputs[2]) + "_fused";
        attrs.set("beta", old[m].attrs.get_float("beta"));
      }
    }
    // A member without a bias gets zeros whose product with beta is -0.0, which adds exactly
    // (x + -0.0 is x, signed zeros included).
    std::vector<ir::Tensor> zeros;
    zeros.reserve(members.size());
    std::vector<const ir::Tensor*> biases;
    if (!bias_name.empty()) {
      const double zero = attrs.get_float("beta") < 0 ? 0.0 : -0.0;
      for (size_t m : members) {
        if (old[m].inputs.size() == 3) {
          biases.push_back(graph.value(old[m].inputs[2]).constant.get());
          continue;
        }
        const ir::Shape& out = graph.type(old[m].outputs.front()).shape;
        zeros.push_back(ir::Tensor::zeros({weights.front()->type.dtype, {out.back()}}));
        for (int64_t j = 0; j < out.back(); ++j) zeros.back().set(j, zero);
        biases.push_back(&zeros.back());
      }
    }
    std::vector<ir::ValueId> inputs = {first.inputs[0]};
    ir::Tensor joined = concatenate(weights, trans_b ? 0 : 1);
    inputs.push_back(graph.add_constant(graph.name(first.inputs[1]) + "_fused", std::move(joined)));
    if (!biases.empty()) {
      ir::Tensor bias = concatenate(biases, 0);
      inputs.push_back(graph.add_constant(bias_name, std::move(bias)));
    }
    INFERNO_ASSIGN_OR_RETURN(
        const ir::ValueId product,
        rebuilder.build(OpKind::kGemm, std::move(inputs), std::move(attrs), name, first.loc));
    int64_t offset = 0;
    for (size_t m : members) {
      const ir::ValueId out = old[m].outputs.front();
      const ir::Shape& shape = graph.type(out).shape;
      ir::IntList starts(shape.size(), 0), ends = shape, steps(shape.size(), 1);
      starts.back() = offset;
      ends.back() = offset + shape.back();
      offset += shape.back();
      ir::Attributes slice_attrs;
      slice_attrs.set("starts", std::move(starts));
      slice_attrs.set("ends", std::move(ends));
      slice_attrs.set("steps", std::move(steps));
      INFERNO_ASSIGN_OR_RETURN(ir::Node slice, redefine(graph, OpKind::kSlice, {product},
                                                        std::move(slice_attrs), {out}, old[m].loc));
      rebuilder.append(std::move(slice));
    }
  }
  return rebuilder.finish();
}

}  // namespace inferno::passes
