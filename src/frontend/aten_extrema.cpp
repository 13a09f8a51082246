// Maxima and minima: amax/amin and max()/min() of a whole tensor (reduce_max/reduce_min),
// max.dim/min.dim (values and indices: a reduce over the dim and an argmax/argmin along it), and
// argmax/argmin (over all dims: of x flattened). max/min of two tensors (.other) are the
// elementwise maximum/minimum (aten_elementwise.cpp).
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "frontend/aten_builders.h"

namespace inferno::frontend::aten {
namespace {

using ir::OpKind;
using ir::ValueId;

constexpr ArgKind T = ArgKind::kTensor, Int = ArgKind::kInt, Ints = ArgKind::kInts,
                  Bool = ArgKind::kBool;

/// reduce_max (`max`) or reduce_min of x over `dims` (normalized, sorted, deduplicated; empty =
/// all).
Expected<ValueId> reduce(const Ctx& c, bool max, ValueId x, const ir::IntList& given, bool keepdim,
                         std::string_view suffix = "") {
  ir::IntList dims;
  for (int64_t d : given) {
    INFERNO_ASSIGN_OR_RETURN(int64_t n, c.dim(d, std::max<int64_t>(c.type(x).rank(), 1)));
    if (c.type(x).rank() > 0) dims.push_back(n);
  }
  std::sort(dims.begin(), dims.end());
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  if (c.type(x).rank() == 0) return x;  // a scalar is its own extremum
  return c.build(max ? OpKind::kReduceMax : OpKind::kReduceMin, {x},
                 attrs({{"dims", std::move(dims)}, {"keepdim", keepdim}}), suffix);
}

// amax/amin(self, dim=[], keepdim=False); max()/min() of a whole tensor.
Builder whole(bool max) {
  return [max](Ctx& c) -> Outputs {
    const ir::IntList dims = c.a.has("dim") ? c.a.get_ints("dim") : ir::IntList{};
    const bool keepdim = c.a.has("keepdim") && c.a.get_bool("keepdim");
    return one(reduce(c, max, c.a.tensor("self"), dims, keepdim));
  };
}

/// argmax/argmin of x along a normalized dim.
Expected<ValueId> arg_index(const Ctx& c, bool max, ValueId x, int64_t dim, bool keepdim,
                            std::string_view suffix = "") {
  return c.build(max ? OpKind::kArgMax : OpKind::kArgMin, {x},
                 attrs({{"dim", dim}, {"keepdim", keepdim}}), suffix);
}

// max.dim/min.dim(self, dim, keepdim=False) -> (values, indices).
Builder along(bool max) {
  return [max](Ctx& c) -> Outputs {
    const ValueId x = c.a.tensor("self");
    const bool keepdim = c.a.get_bool("keepdim");
    INFERNO_ASSIGN_OR_RETURN(int64_t dim,
                             c.dim(c.a.get_int("dim"), std::max<int64_t>(c.type(x).rank(), 1)));
    INFERNO_ASSIGN_OR_RETURN(ValueId values, reduce(c, max, x, {dim}, keepdim, "values"));
    INFERNO_ASSIGN_OR_RETURN(ValueId indices, arg_index(c, max, x, dim, keepdim, "indices"));
    return std::vector<ValueId>{values, indices};
  };
}

// argmax/argmin(self, dim=None, keepdim=False); over all dims the index into x flattened (of
// shape [1, ..., 1] with keepdim).
Builder arg_builder(bool max) {
  return [max](Ctx& c) -> Outputs {
    const ValueId x = c.a.tensor("self");
    const bool keepdim = c.a.get_bool("keepdim");
    const int64_t rank = c.type(x).rank();
    if (std::optional<int64_t> d =
            c.a.is_none("dim") ? std::nullopt : std::optional<int64_t>(c.a.get_int("dim"))) {
      INFERNO_ASSIGN_OR_RETURN(int64_t dim, c.dim(*d, std::max<int64_t>(rank, 1)));
      return one(arg_index(c, max, x, dim, keepdim));
    }
    INFERNO_ASSIGN_OR_RETURN(
        ValueId flat,
        c.build(OpKind::kReshape, {x}, attrs({{"shape", ir::Shape{c.type(x).numel()}}}), "flat"));
    if (!keepdim || rank <= 1) return one(arg_index(c, max, flat, 0, keepdim && rank == 1));
    INFERNO_ASSIGN_OR_RETURN(ValueId index, arg_index(c, max, flat, 0, false, "index"));
    return one(c.build(OpKind::kReshape, {index},
                       attrs({{"shape", ir::Shape(static_cast<size_t>(rank), 1)}})));
  };
}

}  // namespace

void add_extrema_entries(std::vector<OpEntry>& table) {
  for (const bool max : {true, false}) {
    const std::string_view op = max ? "aten::max" : "aten::min";
    const std::vector<OpEntry> rows = {
        {max ? "aten::amax" : "aten::amin",
         "",
         {arg("self", T), arg("dim", Ints, ir::IntList{}), arg("keepdim", Bool, false)},
         whole(max)},
        {op, "default", {arg("self", T)}, whole(max)},
        {op, "dim", {arg("self", T), arg("dim", Int), arg("keepdim", Bool, false)}, along(max)},
        {max ? "aten::argmax" : "aten::argmin",
         "",
         {arg("self", T), opt("dim", Int), arg("keepdim", Bool, false)},
         arg_builder(max)},
    };
    table.insert(table.end(), rows.begin(), rows.end());
  }
}

}  // namespace inferno::frontend::aten
