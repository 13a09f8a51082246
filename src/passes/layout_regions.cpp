#include "passes/layout_regions.h"

#include <numeric>
#include <set>
#include <string>
#include <utility>

#include "passes/layout_forms.h"

namespace inferno::passes {
namespace {

using ir::OpKind;

bool is_nchw_conv(const ir::Node& node) {
  return node.op == OpKind::kConv2d && node.attrs.get_string("layout") == "nchw";
}

bool is_pool(OpKind op) {
  return op == OpKind::kMaxPool2d || op == OpKind::kAvgPool2d || op == OpKind::kAdaptiveAvgPool2d ||
         op == OpKind::kAdaptiveMaxPool2d;
}

bool is_permute(const ir::Node& node, const ir::IntList& dims) {
  return node.op == OpKind::kPermute && node.attrs.get_ints("dims") == dims;
}

/// Union-find over node indices.
class Regions {
 public:
  explicit Regions(size_t count) : parent_(count) {
    std::iota(parent_.begin(), parent_.end(), size_t{0});
  }
  size_t find(size_t i) {
    while (parent_[i] != i) i = parent_[i] = parent_[parent_[i]];
    return i;
  }
  void join(size_t a, size_t b) { parent_[find(a)] = find(b); }

 private:
  std::vector<size_t> parent_;
};

/// What one region needs: its NHWC-preferring convs and the values it would copy.
struct RegionCost {
  int convs = 0;
  std::set<ir::ValueId> copies;
};

}  // namespace

bool prefers_nhwc(const ir::Graph& graph, const ir::Node& node) {
  const int64_t groups = node.attrs.get_int("groups");
  return groups == 1 || groups == graph.type(node.inputs[0]).shape[1];
}

bool follows_operands(ir::OpKind op) {
  switch (op) {
    case OpKind::kCat:
    case OpKind::kSoftmax:
    case OpKind::kLogSoftmax:
    case OpKind::kSum:
    case OpKind::kMean:
      return true;
    default:
      return is_pool(op) || ir::op_has_trait(op, ir::kElementwise);
  }
}

std::vector<bool> regions_worth_nhwc(const ir::Graph& graph, const std::vector<ir::Node>& nodes) {
  const size_t count = nodes.size();
  std::vector<int64_t> producer(static_cast<size_t>(graph.num_values()), -1);
  for (size_t i = 0; i < count; ++i) {
    for (const ir::ValueId v : nodes[i].outputs) producer[static_cast<size_t>(v)] = int64_t(i);
  }
  auto is_4d = [&](ir::ValueId v) { return graph.type(v).rank() == 4; };
  std::vector<bool> member(count, false);
  for (size_t i = 0; i < count; ++i) {
    const ir::Node& node = nodes[i];
    if (node.outputs.size() != 1) continue;
    bool touches_4d = is_4d(node.outputs[0]);
    for (const ir::ValueId v : node.inputs) touches_4d = touches_4d || is_4d(v);
    member[i] = is_nchw_conv(node) || (follows_operands(node.op) && touches_4d);
  }
  // A pool joins only when a member other than a pool reads it: at a region's edge it would
  // trade the copy of its input for one of its output, and add one where its input is copied
  // back to NCHW for other readers anyway.
  std::vector<bool> feeds_member(count, false);
  for (size_t i = 0; i < count; ++i) {
    if (!member[i] || is_pool(nodes[i].op)) continue;
    for (const ir::ValueId v : nodes[i].inputs) {
      const int64_t p = producer[static_cast<size_t>(v)];
      if (p >= 0) feeds_member[static_cast<size_t>(p)] = true;
    }
  }
  for (size_t i = 0; i < count; ++i) {
    if (is_pool(nodes[i].op)) member[i] = member[i] && feeds_member[i];
  }
  auto member_producer = [&](ir::ValueId v) -> int64_t {
    const int64_t p = producer[static_cast<size_t>(v)];
    return p >= 0 && member[static_cast<size_t>(p)] ? p : -1;
  };
  Regions regions(count);
  for (size_t i = 0; i < count; ++i) {
    if (!member[i]) continue;
    for (const ir::ValueId v : nodes[i].inputs) {
      const int64_t p = member_producer(v);
      if (p >= 0 && is_4d(v)) regions.join(i, static_cast<size_t>(p));
    }
  }

  // A copy of v (4-D, not a constant, not a view): into NHWC, or back into NCHW.
  auto costs = [&](ir::ValueId v, const ir::IntList& dims) {
    return is_4d(v) && graph.value(v).kind != ir::ValueKind::kConstant &&
           !is_reshape_permutation(graph.type(v).shape, dims);
  };
  std::vector<RegionCost> cost(count);
  for (size_t i = 0; i < count; ++i) {
    if (!member[i]) continue;
    const ir::Node& node = nodes[i];
    RegionCost& region = cost[regions.find(i)];
    if (is_nchw_conv(node) && prefers_nhwc(graph, node)) ++region.convs;
    for (size_t k = 0; k < node.inputs.size(); ++k) {
      const ir::ValueId v = node.inputs[k];
      if (is_nchw_conv(node) && k == 2) continue;  // the bias
      const int64_t p = producer[static_cast<size_t>(v)];
      const bool inside = p >= 0 && member[static_cast<size_t>(p)] &&
                          regions.find(static_cast<size_t>(p)) == regions.find(i);
      const bool cancels = p >= 0 && is_permute(nodes[static_cast<size_t>(p)], kToNchw);
      if (!inside && !cancels && costs(v, kToNhwc)) region.copies.insert(v);
    }
  }
  // Values a region produces and something outside reads in NCHW.
  for (size_t i = 0; i < count; ++i) {
    const ir::Node& node = nodes[i];
    const bool in_region = member[i];
    for (const ir::ValueId v : node.inputs) {
      const int64_t p = member_producer(v);
      if (p < 0 || !costs(v, kToNchw)) continue;
      const size_t region = regions.find(static_cast<size_t>(p));
      if (in_region && regions.find(i) == region) continue;
      if (is_permute(node, kToNhwc)) continue;  // the model's own permute cancels
      cost[region].copies.insert(v);
    }
  }
  for (const ir::ValueId v : graph.outputs()) {
    const int64_t p = member_producer(v);
    if (p >= 0 && costs(v, kToNchw)) cost[regions.find(static_cast<size_t>(p))].copies.insert(v);
  }

  std::vector<bool> worth(count, false);
  for (size_t i = 0; i < count; ++i) {
    if (!member[i]) continue;
    const RegionCost& region = cost[regions.find(i)];
    worth[i] = region.convs > static_cast<int>(region.copies.size());
  }
  return worth;
}

}  // namespace inferno::passes
