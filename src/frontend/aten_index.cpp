// Integer indexing entries of the ATen table onto the IR's index_select: embedding (rows of the
// table by token id), index_select (slices along a dim by a 1-D index), index.Tensor (x[:, idx],
// any index shape; several index tensors broadcast together gather over the indexed dims
// flattened), and gather (elements along a dim: an index_select
// over x flattened, by flat ids idx * stride + the offset of each position's other coordinates,
// a constant). An index held in a constant is checked here, so an out-of-range id in the model is
// invalid input naming the node; an index computed at run time is clamped by the kernel (ops.def;
// for gather, into the flattened x). Bool indices select a data-dependent number of elements:
// unsupported.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "frontend/aten_builders.h"

namespace inferno::frontend::aten {
namespace {

using ir::OpKind;
using ir::ValueId;

constexpr ArgKind T = ArgKind::kTensor, Int = ArgKind::kInt, Any = ArgKind::kAny;

/// An index tensor must be integral; a bool (mask) index selects a data-dependent count.
Status check_index_dtype(const Ctx& c, ValueId index) {
  const ir::DType d = c.type(index).dtype;
  if (d == ir::DType::kBool) {
    return c.unsupported_arg("indexing with a bool mask " + c.type(index).to_string() +
                             " (its result size depends on the data)");
  }
  if (!ir::is_integral(d))
    return c.invalid("an index must be an integer tensor, got " + c.type(index).to_string());
  return Status::ok();
}

/// A constant index's ids must lie in [lowest, size) (-size for index_select, 0 for gather).
Status check_constant_ids(const Ctx& c, ValueId index, int64_t dim, int64_t size, bool negative) {
  const ir::Tensor* ids = c.g.value(index).constant.get();
  if (!ids) return Status::ok();
  const double lowest = negative ? -static_cast<double>(size) : 0.0;
  for (int64_t p = 0; p < ids->numel(); ++p) {
    const double v = ids->get(p);
    if (v < lowest || v >= static_cast<double>(size)) {
      return c.invalid("index " + std::to_string(static_cast<long long>(v)) +
                       " is out of range for dim " + std::to_string(dim) + " of size " +
                       std::to_string(size));
    }
  }
  return Status::ok();
}

Outputs select_rows(Ctx& c, ValueId x, ValueId index, int64_t dim_arg) {
  const ir::TensorType xt = c.type(x);
  if (xt.rank() < 1) return c.invalid("expects a tensor of rank >= 1, got " + xt.to_string());
  INFERNO_RETURN_IF_ERROR(check_index_dtype(c, index));
  INFERNO_ASSIGN_OR_RETURN(const int64_t dim, c.dim(dim_arg, xt.rank()));
  const int64_t size = xt.shape[static_cast<size_t>(dim)];
  INFERNO_RETURN_IF_ERROR(check_constant_ids(c, index, dim, size, true));
  return one(c.build(OpKind::kIndexSelect, {x, index}, attrs({{"dim", dim}})));
}

/// One index of several, in i64, wrapped once when negative and clamped into [0, size), as the
/// index_select kernel treats its index, so that the flat id of all of them stays inside x.
Expected<ValueId> normalized_index(const Ctx& c, ValueId index, int64_t dim, int64_t size) {
  INFERNO_RETURN_IF_ERROR(check_constant_ids(c, index, dim, size, true));
  const std::string d = std::to_string(dim);
  INFERNO_ASSIGN_OR_RETURN(ValueId i, cast(c, index, ir::DType::kI64, "index" + d + "_i64"));
  auto scalar = [&](int64_t v, const std::string& what) {
    return ir::add_scalar_constant(c.g, static_cast<double>(v), ir::DType::kI64, c.name(what + d));
  };
  INFERNO_ASSIGN_OR_RETURN(ValueId negative,
                           c.build(OpKind::kLt, {i, scalar(0, "zero")}, {}, "negative" + d));
  INFERNO_ASSIGN_OR_RETURN(ValueId wrapped,
                           c.build(OpKind::kAdd, {i, scalar(size, "size")}, {}, "wrapped" + d));
  INFERNO_ASSIGN_OR_RETURN(i, c.build(OpKind::kWhere, {negative, wrapped, i}, {}, "from_end" + d));
  return c.build(OpKind::kClamp,
                 {i, scalar(0, "low"), scalar(std::max<int64_t>(size - 1, 0), "high")}, {},
                 "clamped" + d);
}

// The flat id of the indexed dims dims[first..] of x, row-major over them: sum(i_k * stride_k),
// each index normalized.
Expected<ValueId> flat_id(const Ctx& c, const ir::TensorType& xt,
                          const std::vector<ValueId>& indices, const std::vector<int64_t>& dims,
                          size_t first) {
  std::optional<ValueId> id;
  int64_t stride = 1;
  for (size_t k = dims.size(); k-- > first;) {
    const int64_t size = xt.shape[static_cast<size_t>(dims[k])];
    INFERNO_ASSIGN_OR_RETURN(
        ValueId i, normalized_index(c, indices[static_cast<size_t>(dims[k])], dims[k], size));
    const std::string d = std::to_string(dims[k]);
    if (stride != 1) {
      const ValueId s = ir::add_scalar_constant(c.g, static_cast<double>(stride), ir::DType::kI64,
                                                c.name("stride" + d));
      INFERNO_ASSIGN_OR_RETURN(i, c.build(OpKind::kMul, {i, s}, {}, "scaled" + d));
    }
    if (id) {
      INFERNO_ASSIGN_OR_RETURN(i, c.build(OpKind::kAdd, {*id, i}, {}, "id" + d));
    }
    id = i;
    stride *= size;
  }
  return *id;
}

// Whether `index` is [n, 1, ..., 1] holding 0..n-1 in order: a constant (arange(n)) or reshapes of
// one (arange(n)[:, None]).
bool is_row_numbers(const Ctx& c, ValueId index, int64_t n) {
  const ir::TensorType t = c.type(index);
  if (t.rank() < 1 || t.shape[0] != n || t.numel() != n) return false;
  ValueId v = index;
  const std::vector<ir::Node>& nodes = c.g.nodes();
  for (auto node = nodes.rbegin(); node != nodes.rend() && !c.g.value(v).constant; ++node) {
    if (node->outputs.size() != 1 || node->outputs[0] != v) continue;
    if (node->op != OpKind::kReshape) return false;  // reshapes keep the row-major order
    v = node->inputs[0];
  }
  const ir::Tensor* ids = c.g.value(v).constant.get();
  if (!ids || ids->numel() != n) return false;
  for (int64_t i = 0; i < n; ++i) {
    if (ids->get(i) != static_cast<double>(i)) return false;
  }
  return true;
}

// x[arange(n)[:, None, ...], j, ...] with n x's first dim (transformers' padding mask): row b takes
// its own row, so this is x[:, j, ...], an index_select along the other indexed dims flattened,
// with no index over the rows (the row split, passes/row_split.h, sees each row read its own).
// `broadcast`: the indices' shape, whose first dim is the rows' and the other indices' 1.
Outputs own_rows(Ctx& c, ValueId x, const std::vector<ValueId>& indices,
                 const std::vector<int64_t>& dims, const ir::Shape& broadcast) {
  const ir::TensorType xt = c.type(x);
  std::vector<int64_t> order(dims.begin(), dims.end());
  ir::Shape inner = {xt.shape[0], 1};
  for (size_t k = 1; k < dims.size(); ++k) inner[1] *= xt.shape[static_cast<size_t>(dims[k])];
  for (int64_t d = 1; d < xt.rank(); ++d) {
    if (std::find(dims.begin(), dims.end(), d) != dims.end()) continue;
    order.push_back(d);
    inner.push_back(xt.shape[static_cast<size_t>(d)]);
  }
  ValueId moved = x;
  if (!std::is_sorted(order.begin(), order.end())) {
    INFERNO_ASSIGN_OR_RETURN(
        moved, c.build(OpKind::kPermute, {x}, attrs({{"dims", order}}), "indexed_first"));
  }
  INFERNO_ASSIGN_OR_RETURN(ValueId rows,
                           c.build(OpKind::kReshape, {moved}, attrs({{"shape", inner}}), "rows"));
  INFERNO_ASSIGN_OR_RETURN(ValueId id, flat_id(c, xt, indices, dims, 1));
  ir::Shape one_row = broadcast;
  one_row[0] = 1;
  if (c.type(id).shape != one_row) {
    INFERNO_ASSIGN_OR_RETURN(id,
                             c.build(OpKind::kExpand, {id}, attrs({{"shape", one_row}}), "ids"));
  }
  const ir::Shape later(broadcast.begin() + 1, broadcast.end());
  INFERNO_ASSIGN_OR_RETURN(id,
                           c.build(OpKind::kReshape, {id}, attrs({{"shape", later}}), "row_ids"));
  return one(c.build(OpKind::kIndexSelect, {rows, id}, attrs({{"dim", int64_t{1}}})));
}

// x[i0, i1, ...] with several index tensors (None entries keep their dim whole): the indices
// broadcast together to a shape B, which replaces the indexed dims: in their place when they are
// adjacent, else in front (PyTorch's rule). Built as an index_select over x with the indexed dims
// moved first and flattened into one, by the flat id sum(i_k * stride_k); a mask's
// x[batch_ids, kv_ids] is one such gather, and constant ids fold away.
Outputs multi_index(Ctx& c, ValueId x, const std::vector<ValueId>& indices,
                    const std::vector<int64_t>& dims) {
  const ir::TensorType xt = c.type(x);
  const auto rank = static_cast<size_t>(xt.rank());
  ir::Shape broadcast;
  for (int64_t d : dims) {
    Expected<ir::Shape> b =
        ir::broadcast_shapes(broadcast, c.type(indices[static_cast<size_t>(d)]).shape);
    if (!b)
      return c.invalid("the index tensors do not broadcast together: " + b.status().message());
    broadcast = std::move(*b);
  }
  if (dims[0] == 0 && broadcast.size() >= 2 &&
      static_cast<size_t>(c.type(indices[0]).rank()) == broadcast.size() &&
      is_row_numbers(c, indices[0], xt.shape[0])) {
    bool same_for_rows = true;  // the other indices have 1 in the rows' dim
    for (size_t k = 1; k < dims.size(); ++k) {
      const ir::Shape& s = c.type(indices[static_cast<size_t>(dims[k])]).shape;
      same_for_rows = same_for_rows && (s.size() < broadcast.size() || s[0] == 1);
    }
    if (same_for_rows) return own_rows(c, x, indices, dims, broadcast);
  }
  // x permuted to [indexed dims..., other dims...] and the indexed dims flattened.
  std::vector<int64_t> order(dims.begin(), dims.end());
  ir::Shape flat_shape = {1}, rest;
  for (int64_t d : dims) flat_shape[0] *= xt.shape[static_cast<size_t>(d)];
  for (size_t d = 0; d < rank; ++d) {
    if (std::find(dims.begin(), dims.end(), static_cast<int64_t>(d)) != dims.end()) continue;
    order.push_back(static_cast<int64_t>(d));
    rest.push_back(xt.shape[d]);
  }
  flat_shape.insert(flat_shape.end(), rest.begin(), rest.end());
  ValueId moved = x;
  if (!std::is_sorted(order.begin(), order.end())) {
    INFERNO_ASSIGN_OR_RETURN(
        moved, c.build(OpKind::kPermute, {x}, attrs({{"dims", order}}), "indexed_first"));
  }
  INFERNO_ASSIGN_OR_RETURN(
      ValueId flat, c.build(OpKind::kReshape, {moved}, attrs({{"shape", flat_shape}}), "flat"));
  // The flat id, row-major over the indexed dims.
  INFERNO_ASSIGN_OR_RETURN(std::optional<ValueId> id, flat_id(c, xt, indices, dims, 0));
  if (c.type(*id).shape != broadcast) {
    INFERNO_ASSIGN_OR_RETURN(id,
                             c.build(OpKind::kExpand, {*id}, attrs({{"shape", broadcast}}), "ids"));
  }
  bool adjacent = true;
  for (size_t k = 1; k < dims.size(); ++k) adjacent = adjacent && dims[k] == dims[k - 1] + 1;
  if (!adjacent || dims[0] == 0) {
    return one(c.build(OpKind::kIndexSelect, {flat, *id}, attrs({{"dim", int64_t{0}}})));
  }
  // Adjacent, after dims[0] leading dims: move B's dims back behind those.
  INFERNO_ASSIGN_OR_RETURN(ValueId picked, c.build(OpKind::kIndexSelect, {flat, *id},
                                                   attrs({{"dim", int64_t{0}}}), "picked"));
  const auto b = static_cast<int64_t>(broadcast.size());
  std::vector<int64_t> back;
  for (int64_t j = 0; j < dims[0]; ++j) back.push_back(b + j);
  for (int64_t j = 0; j < b; ++j) back.push_back(j);
  for (int64_t j = b + dims[0]; j < static_cast<int64_t>(rest.size()) + b; ++j) back.push_back(j);
  return one(c.build(OpKind::kPermute, {picked}, attrs({{"dims", back}})));
}

// index.Tensor(self, indices: Tensor?[]): x[None, ..., idx] with one index tensor, at the position
// of its dim: index_select there (the index's shape replaces the dim, as PyTorch places a single
// advanced index's dims); several index tensors: multi_index.
Outputs index_tensor(Ctx& c) {
  const ValueId x = c.a.tensor("self");
  const std::vector<ValueId> indices = c.a.tensors("indices");
  if (static_cast<int64_t>(indices.size()) > c.type(x).rank()) {
    return c.invalid("too many indices (" + std::to_string(indices.size()) + ") for " +
                     c.type(x).to_string());
  }
  std::vector<int64_t> dims;
  for (size_t i = 0; i < indices.size(); ++i) {
    if (indices[i] == ir::kNoValue) continue;
    INFERNO_RETURN_IF_ERROR(check_index_dtype(c, indices[i]));
    dims.push_back(static_cast<int64_t>(i));
  }
  if (dims.empty()) return std::vector<ValueId>{x};  // x[None, ...]-free: all slices
  if (dims.size() == 1) return select_rows(c, x, indices[static_cast<size_t>(dims[0])], dims[0]);
  return multi_index(c, x, indices, dims);
}

// gather(self, dim, index): out[p] = x[p with its dim coordinate replaced by index[p]], the index
// of x's rank, no larger than x in the other dims. As an index_select over x flattened: flat id
// index[p] * stride(dim) + offset(p), the offset a constant of the index's shape.
Outputs gather(Ctx& c) {
  const ValueId x = c.a.tensor("self");
  ValueId index = c.a.tensor("index");
  const ir::TensorType xt = c.type(x), it = c.type(index);
  INFERNO_RETURN_IF_ERROR(check_index_dtype(c, index));
  const int64_t rank = std::max<int64_t>(xt.rank(), 1);
  INFERNO_ASSIGN_OR_RETURN(const int64_t dim, c.dim(c.a.get_int("dim"), rank));
  const ir::Shape xs = xt.rank() == 0 ? ir::Shape{1} : xt.shape;
  const ir::Shape is = it.rank() == 0 ? ir::Shape{1} : it.shape;
  bool fits = is.size() == xs.size();
  for (size_t d = 0; fits && d < xs.size(); ++d)
    fits = static_cast<int64_t>(d) == dim || is[d] <= xs[d];
  if (!fits) {
    return c.invalid("the index " + it.to_string() + " must have the rank of " + xt.to_string() +
                     " and be no larger in the dims other than " + std::to_string(dim));
  }
  INFERNO_RETURN_IF_ERROR(check_constant_ids(c, index, dim, xs[static_cast<size_t>(dim)], false));
  std::vector<int64_t> stride(xs.size(), 1);
  for (size_t d = xs.size() - 1; d > 0; --d) stride[d - 1] = stride[d] * xs[d];
  ir::Tensor offsets = ir::Tensor::zeros({ir::DType::kI64, is});
  std::vector<int64_t> coord(is.size(), 0);
  for (int64_t p = 0; p < offsets.numel(); ++p) {
    int64_t off = 0;
    for (size_t d = 0; d < is.size(); ++d) {
      if (static_cast<int64_t>(d) != dim) off += coord[d] * stride[d];
    }
    offsets.set(p, static_cast<double>(off));
    for (size_t d = is.size(); d-- > 0;) {  // the next coordinate, row-major
      if (++coord[d] < is[d]) break;
      coord[d] = 0;
    }
  }
  INFERNO_ASSIGN_OR_RETURN(
      index, c.build(OpKind::kCast, {index}, attrs({{"dtype", ir::DType::kI64}}), "index_i64"));
  const ValueId step =
      ir::add_scalar_constant(c.g, static_cast<double>(stride[static_cast<size_t>(dim)]),
                              ir::DType::kI64, c.name("stride"));
  INFERNO_ASSIGN_OR_RETURN(ValueId scaled, c.build(OpKind::kMul, {index, step}, {}, "scaled"));
  const ValueId base = c.g.add_constant(c.name("offsets"), std::move(offsets));
  INFERNO_ASSIGN_OR_RETURN(ValueId flat_ids, c.build(OpKind::kAdd, {scaled, base}, {}, "ids"));
  if (it.rank() == 0) {
    INFERNO_ASSIGN_OR_RETURN(
        flat_ids, c.build(OpKind::kReshape, {flat_ids}, attrs({{"shape", ir::Shape{}}}), "ids0"));
  }
  INFERNO_ASSIGN_OR_RETURN(
      ValueId flat,
      c.build(OpKind::kReshape, {x}, attrs({{"shape", ir::Shape{xt.numel()}}}), "flat"));
  return one(c.build(OpKind::kIndexSelect, {flat, flat_ids}, attrs({{"dim", int64_t{0}}})));
}

// embedding(weight, indices, padding_idx, ...): padding_idx only affects training.
Outputs embedding(Ctx& c) { return select_rows(c, c.a.tensor("weight"), c.a.tensor("indices"), 0); }

Outputs index_select(Ctx& c) {
  const ValueId index = c.a.tensor("index");
  if (c.type(index).rank() > 1)
    return c.invalid("the index must be 0-d or 1-d, got " + c.type(index).to_string());
  return select_rows(c, c.a.tensor("self"), index, c.a.get_int("dim"));
}

}  // namespace

void add_index_entries(std::vector<OpEntry>& table) {
  const std::vector<OpEntry> rows = {
      {"aten::embedding",
       "",
       {arg("weight", T), arg("indices", T), arg("padding_idx", Int, int64_t{-1}),
        arg("scale_grad_by_freq", Any, false), arg("sparse", Any, false)},
       embedding},
      {"aten::index_select", "", {arg("self", T), arg("dim", Int), arg("index", T)}, index_select},
      {"aten::index",
       "Tensor Tensor_hacked_twin",
       {arg("self", T), arg("indices", ArgKind::kTensorList)},
       index_tensor},
      {"aten::gather",
       "",
       {arg("self", T), arg("dim", Int), arg("index", T), arg("sparse_grad", Any, false)},
       gather},
  };
  table.insert(table.end(), rows.begin(), rows.end());
}

}  // namespace inferno::frontend::aten
