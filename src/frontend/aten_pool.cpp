// The pooling entries of the ATen table: max_pool2d (and _with_indices), avg_pool2d,
// adaptive_avg_pool2d (and the core _adaptive_avg_pool2d), adaptive_max_pool2d and
// adaptive_avg_pool3d to one value (a mean), onto the IR's pooling ops (ir/ops.def). Integer
// lists are normalized as PyTorch does (one value serves both dims, an empty stride is the
// kernel); the shape rules then refuse what PyTorch refuses. Index
// outputs are not computed: they are ir::kNoValue, which the frontends refuse where a model uses
// them. A 1x1 adaptive average is a mean over the last two dims (the reduction kernel).
#include <string>
#include <vector>

#include "frontend/aten_builders.h"

namespace inferno::frontend::aten {
namespace {

using ir::OpKind;
using ir::ValueId;

constexpr ArgKind T = ArgKind::kTensor, Bool = ArgKind::kBool, Ints = ArgKind::kInts,
                  Int = ArgKind::kInt;

/// A size/stride/padding/dilation argument as two values (H, W); `fallback` for an empty list.
Expected<ir::IntList> two(const Ctx& c, std::string_view name, const ir::IntList& fallback = {}) {
  ir::IntList v = c.a.get_ints(name);
  if (v.empty() && !fallback.empty()) return fallback;
  if (v.size() == 1) v.push_back(v[0]);
  if (v.size() != 2) {
    return c.invalid(std::string(name) + " must have one or two values, got " +
                     ir::shape_to_string(v));
  }
  return v;
}

/// The first output and, for ops that also return indices, kNoValue for them.
Outputs with_indices(const Ctx& c, Expected<ValueId> y) {
  if (!y) return y.status();
  if (c.call.op.find("indices") != std::string::npos || c.call.op == "aten::adaptive_max_pool2d")
    return std::vector<ValueId>{*y, ir::kNoValue};
  return std::vector<ValueId>{*y};
}

Outputs max_pool(Ctx& c) {
  INFERNO_ASSIGN_OR_RETURN(ir::IntList kernel, two(c, "kernel_size"));
  INFERNO_ASSIGN_OR_RETURN(ir::IntList stride, two(c, "stride", kernel));
  INFERNO_ASSIGN_OR_RETURN(ir::IntList padding, two(c, "padding"));
  INFERNO_ASSIGN_OR_RETURN(ir::IntList dilation, two(c, "dilation"));
  return with_indices(c, c.build(OpKind::kMaxPool2d, {c.a.tensor("self")},
                                 attrs({{"kernel", kernel},
                                        {"stride", stride},
                                        {"padding", padding},
                                        {"dilation", dilation},
                                        {"ceil_mode", c.a.get_bool("ceil_mode")}})));
}

Outputs avg_pool(Ctx& c) {
  INFERNO_ASSIGN_OR_RETURN(ir::IntList kernel, two(c, "kernel_size"));
  INFERNO_ASSIGN_OR_RETURN(ir::IntList stride, two(c, "stride", kernel));
  INFERNO_ASSIGN_OR_RETURN(ir::IntList padding, two(c, "padding"));
  int64_t divisor = 0;  // the IR's "none"
  if (!c.a.is_none("divisor_override")) {
    divisor = c.a.get_int("divisor_override");
    if (divisor == 0) return c.invalid("divisor_override must not be zero");
  }
  return one(c.build(OpKind::kAvgPool2d, {c.a.tensor("self")},
                     attrs({{"kernel", kernel},
                            {"stride", stride},
                            {"padding", padding},
                            {"ceil_mode", c.a.get_bool("ceil_mode")},
                            {"count_include_pad", c.a.get_bool("count_include_pad")},
                            {"divisor_override", divisor}})));
}

Builder adaptive(OpKind op) {
  return [op](Ctx& c) -> Outputs {
    const ValueId x = c.a.tensor("self");
    INFERNO_ASSIGN_OR_RETURN(ir::IntList size, two(c, "output_size"));
    const ir::TensorType t = c.type(x);
    const bool pools = (t.rank() == 3 || t.rank() == 4) && ir::is_floating(t.dtype) &&
                       ir::shape_numel(ir::Shape(t.shape.end() - 3, t.shape.end())) > 0;
    if (op == OpKind::kAdaptiveAvgPool2d && size == ir::IntList{1, 1} && pools) {
      return one(
          c.build(OpKind::kMean, {x},
                  attrs({{"dims", ir::IntList{t.rank() - 2, t.rank() - 1}}, {"keepdim", true}})));
    }
    return with_indices(c, c.build(op, {x}, attrs({{"output_size", size}})));
  };
}

// adaptive_avg_pool3d to one value per channel (the video classifiers' head): a mean over the
// last three dims. Other output sizes are unsupported (exit 2).
Outputs adaptive_avg_pool3d(Ctx& c) {
  const ValueId x = c.a.tensor("self");
  ir::IntList size = c.a.get_ints("output_size");
  if (size.size() == 1) size.assign(3, size[0]);
  const ir::TensorType t = c.type(x);
  if (t.rank() != 4 && t.rank() != 5) {
    return c.invalid("expects a 4-D or 5-D input, got " + t.to_string());
  }
  if (size != ir::IntList{1, 1, 1} || !ir::is_floating(t.dtype)) {
    return c.unsupported_arg(
        "only an output size of 1 (1, 1, 1) over floating-point input is "
        "supported, got " +
        ir::shape_to_string(size) + " over " + t.to_string());
  }
  return one(c.build(
      OpKind::kMean, {x},
      attrs({{"dims", ir::IntList{t.rank() - 3, t.rank() - 2, t.rank() - 1}}, {"keepdim", true}})));
}

}  // namespace

void add_pool_entries(std::vector<OpEntry>& table) {
  const Schema max_pool_schema = {arg("self", T),
                                  arg("kernel_size", Ints),
                                  arg("stride", Ints, std::vector<int64_t>{}),
                                  arg("padding", Ints, std::vector<int64_t>{0}),
                                  arg("dilation", Ints, std::vector<int64_t>{1}),
                                  arg("ceil_mode", Bool, false)};
  const Schema avg_pool_schema = {arg("self", T),
                                  arg("kernel_size", Ints),
                                  arg("stride", Ints, std::vector<int64_t>{}),
                                  arg("padding", Ints, std::vector<int64_t>{0}),
                                  arg("ceil_mode", Bool, false),
                                  arg("count_include_pad", Bool, true),
                                  opt("divisor_override", Int)};
  const Schema adaptive_schema = {arg("self", T), arg("output_size", Ints)};
  // The 3-D pools take the same arguments, three values a list (aten_pool3d.cpp).
  const std::vector<OpEntry> rows = {
      {"aten::max_pool2d", "", max_pool_schema, max_pool},
      {"aten::max_pool2d_with_indices", "", max_pool_schema, max_pool},
      {"aten::max_pool3d", "", max_pool_schema, max_pool3d},
      {"aten::max_pool3d_with_indices", "", max_pool_schema, max_pool3d},
      {"aten::avg_pool2d", "", avg_pool_schema, avg_pool},
      {"aten::avg_pool3d", "", avg_pool_schema, avg_pool3d},
      {"aten::adaptive_avg_pool2d", "", adaptive_schema, adaptive(OpKind::kAdaptiveAvgPool2d)},
      {"aten::_adaptive_avg_pool2d", "", adaptive_schema, adaptive(OpKind::kAdaptiveAvgPool2d)},
      {"aten::adaptive_max_pool2d", "", adaptive_schema, adaptive(OpKind::kAdaptiveMaxPool2d)},
      {"aten::adaptive_avg_pool3d", "", adaptive_schema, adaptive_avg_pool3d},
      {"aten::_adaptive_avg_pool3d", "", adaptive_schema, adaptive_avg_pool3d},
  };
  table.insert(table.end(), rows.begin(), rows.end());
}

}  // namespace inferno::frontend::aten
