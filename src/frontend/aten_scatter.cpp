// Writes into a tensor, as functional IR: copy (the whole tensor from a broadcast source),
// index_copy (slices along a dim at an index), index_put with one index tensor (the same, in
// the core-ATen spelling that run_decompositions() gives index_copy_), and slice_scatter and
// select_scatter (the same at constant positions; also how the TorchScript frontend writes an
// in-place op on a slice back into its base). The in-place variants
// (`copy_`, `index_copy_`, `index_put_`) share these entries; the .pt2 frontend rebinds the
// written name to the result, and a written buffer becomes graph state (pt2_frontend.cpp).
#include <limits>
#include <string>
#include <vector>

#include "frontend/aten_builders.h"

namespace inferno::frontend::aten {
namespace {

using ir::OpKind;
using ir::ValueId;

constexpr ArgKind T = ArgKind::kTensor, Int = ArgKind::kInt, Any = ArgKind::kAny;

// A write into more positions than this (slice_scatter's constant index) is refused (exit 2).
constexpr int64_t kMaxWrittenPositions = int64_t{1} << 24;

// `src` cast to `like`'s dtype and broadcast to its shape (leading dims of 1 added first).
Expected<ValueId> broadcast_like(const Ctx& c, ValueId src, const ir::TensorType& like,
                                 std::string_view suffix) {
  INFERNO_ASSIGN_OR_RETURN(src, cast(c, src, like.dtype, std::string(suffix) + "_cast"));
  const ir::TensorType st = c.type(src);
  if (st.rank() > like.rank()) {
    return c.invalid("cannot write a " + st.to_string() + " into a " + like.to_string());
  }
  if (st.rank() < like.rank()) {
    ir::Shape shape(static_cast<size_t>(like.rank() - st.rank()), 1);
    shape.insert(shape.end(), st.shape.begin(), st.shape.end());
    INFERNO_ASSIGN_OR_RETURN(src, c.build(OpKind::kReshape, {src}, attrs({{"shape", shape}}),
                                          std::string(suffix) + "_rank"));
  }
  for (size_t d = 0; d < like.shape.size(); ++d) {
    const int64_t have = c.type(src).shape[d];
    if (have != like.shape[d] && have != 1) {
      return c.invalid("cannot broadcast " + st.to_string() + " to " + like.to_string());
    }
  }
  if (c.type(src).shape == like.shape) return src;
  return c.build(OpKind::kExpand, {src}, attrs({{"shape", like.shape}}), std::string(suffix));
}

// copy(self, src, non_blocking): self's type, src's values.
Outputs copy(Ctx& c) {
  const ValueId self = c.a.tensor("self");
  return one(broadcast_like(c, c.a.tensor("src"), c.type(self), "src"));
}

// The IR's index_copy of `source` (broadcast to the written slices' shape) into x along `dim`.
Outputs write_slices(Ctx& c, ValueId x, int64_t dim, ValueId index, ValueId source) {
  const ir::TensorType xt = c.type(x);
  if (!ir::is_integral(c.type(index).dtype) || c.type(index).dtype == ir::DType::kBool)
    return c.unsupported_arg("the index must be an integer tensor, got " +
                             c.type(index).to_string());
  if (c.type(index).rank() > 1)
    return c.invalid("the index must be 0-d or 1-d, got " + c.type(index).to_string());
  if (c.type(index).rank() == 0) {
    INFERNO_ASSIGN_OR_RETURN(
        index, c.build(OpKind::kReshape, {index}, attrs({{"shape", ir::Shape{1}}}), "index"));
  }
  ir::TensorType slices = xt;
  slices.shape[static_cast<size_t>(dim)] = c.type(index).numel();
  INFERNO_ASSIGN_OR_RETURN(source, broadcast_like(c, source, slices, "source"));
  return one(c.build(OpKind::kIndexCopy, {x, index, source}, attrs({{"dim", dim}})));
}

// index_copy(self, dim, index, source): self with self[.., index[p], ..] = source[.., p, ..].
Outputs index_copy(Ctx& c) {
  const ValueId x = c.a.tensor("self");
  if (c.type(x).rank() < 1) return c.unsupported_arg("index_copy into a 0-d tensor");
  INFERNO_ASSIGN_OR_RETURN(const int64_t dim, c.dim(c.a.get_int("dim"), c.type(x).rank()));
  return write_slices(c, x, dim, c.a.tensor("index"), c.a.tensor("source"));
}

// The i64 constant start, start + step, ... below end: the positions a slice writes.
Expected<ValueId> positions(const Ctx& c, int64_t start, int64_t end, int64_t step) {
  const int64_t count = (end - start + step - 1) / step;
  if (count > kMaxWrittenPositions) {
    return c.unsupported_arg("writes " + std::to_string(count) + " slices (at most " +
                             std::to_string(kMaxWrittenPositions) + " are supported)");
  }
  ir::Tensor index = ir::Tensor::zeros({ir::DType::kI64, {count}});
  for (int64_t i = 0; i < count; ++i) index.set(i, static_cast<double>(start + i * step));
  return c.g.add_constant(c.name("positions"), std::move(index));
}

// slice_scatter(self, src, dim=0, start=None, end=None, step=1): self with src written over
// self[start:end:step] along dim (Python's bounds).
Outputs slice_scatter(Ctx& c) {
  const ValueId x = c.a.tensor("self");
  if (c.type(x).rank() < 1) return c.invalid("cannot be applied to a 0-dim tensor");
  INFERNO_ASSIGN_OR_RETURN(const int64_t dim, c.dim(c.a.get_int("dim"), c.type(x).rank()));
  const int64_t step = c.a.get_int("step");
  if (step < 1) return c.invalid("slice step must be positive, got " + std::to_string(step));
  const auto [start, end] = slice_bounds(
      c.type(x).shape[static_cast<size_t>(dim)], c.a.is_none("start") ? 0 : c.a.get_int("start"),
      c.a.is_none("end") ? std::numeric_limits<int64_t>::max() : c.a.get_int("end"));
  const ValueId src = c.a.tensor("src");
  if (start == end) return std::vector<ValueId>{x};  // an empty slice writes nothing
  INFERNO_ASSIGN_OR_RETURN(const ValueId index, positions(c, start, end, step));
  return write_slices(c, x, dim, index, src);
}

// select_scatter(self, src, dim, index): self with src (self's shape without dim) written at
// position index of dim.
Outputs select_scatter(Ctx& c) {
  const ValueId x = c.a.tensor("self");
  const ir::TensorType xt = c.type(x);
  if (xt.rank() < 1) return c.invalid("cannot be applied to a 0-dim tensor");
  INFERNO_ASSIGN_OR_RETURN(const int64_t dim, c.dim(c.a.get_int("dim"), xt.rank()));
  const int64_t size = xt.shape[static_cast<size_t>(dim)];
  int64_t at = c.a.get_int("index");
  if (at < -size || at >= size) {
    return c.invalid("index " + std::to_string(at) + " is out of range for dim " +
                     std::to_string(dim) + " of size " + std::to_string(size));
  }
  if (at < 0) at += size;
  ValueId src = c.a.tensor("src");
  ir::Shape row = xt.shape;
  row[static_cast<size_t>(dim)] = 1;
  ir::Shape expected = xt.shape;
  expected.erase(expected.begin() + dim);
  if (c.type(src).shape != expected) {
    return c.invalid("src " + c.type(src).to_string() + " is not self's shape without dim " +
                     std::to_string(dim) + ", " + ir::shape_to_string(expected));
  }
  INFERNO_ASSIGN_OR_RETURN(
      src, c.build(OpKind::kReshape, {src}, attrs({{"shape", std::move(row)}}), "row"));
  INFERNO_ASSIGN_OR_RETURN(const ValueId index, positions(c, at, at + 1, 1));
  return write_slices(c, x, dim, index, src);
}

// index_put(self, indices, values, accumulate): with one index tensor, at position d, and None
// elsewhere (x[:, :, idx] = v), it is index_copy along d. Several index tensors, a bool mask or
// accumulate=True are not supported.
Outputs index_put(Ctx& c) {
  const ValueId x = c.a.tensor("self");
  if (c.a.opt_bool("accumulate").value_or(false))
    return c.unsupported_arg("index_put with accumulate=True");
  const std::vector<ValueId> indices = c.a.tensors("indices");
  int64_t dim = -1;
  for (size_t i = 0; i < indices.size(); ++i) {
    if (indices[i] == ir::kNoValue) continue;
    if (dim >= 0) return c.unsupported_arg("index_put with more than one index tensor");
    dim = static_cast<int64_t>(i);
  }
  if (dim < 0) return c.unsupported_arg("index_put without an index tensor");
  if (static_cast<int64_t>(indices.size()) > c.type(x).rank())
    return c.invalid("too many indices for " + c.type(x).to_string());
  return write_slices(c, x, dim, indices[static_cast<size_t>(dim)], c.a.tensor("values"));
}

}  // namespace

void add_scatter_entries(std::vector<OpEntry>& table) {
  const std::vector<OpEntry> rows = {
      {"aten::copy", "", {arg("self", T), arg("src", T), arg("non_blocking", Any, false)}, copy},
      {"aten::index_copy",
       "",
       {arg("self", T), arg("dim", Int), arg("index", T), arg("source", T)},
       index_copy},
      {"aten::slice_scatter",
       "",
       {arg("self", T), arg("src", T), arg("dim", Int, int64_t{0}), opt("start", Int),
        opt("end", Int), arg("step", Int, int64_t{1})},
       slice_scatter},
      {"aten::select_scatter",
       "",
       {arg("self", T), arg("src", T), arg("dim", Int), arg("index", Int)},
       select_scatter},
      {"aten::index_put",
       "",
       {arg("self", T), arg("indices", ArgKind::kTensorList), arg("values", T),
        arg("accumulate", Any, false)},
       index_put},
  };
  table.insert(table.end(), rows.begin(), rows.end());
}

}  // namespace inferno::frontend::aten
