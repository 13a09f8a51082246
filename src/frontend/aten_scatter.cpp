// Writes into a tensor, as functional IR: copy (the whole tensor from a broadcast source),
// index_copy (slices along a dim at an index) and index_put with one index tensor (the same, in
// the core-ATen spelling that run_decompositions() gives index_copy_). The in-place variants
// (`copy_`, `index_copy_`, `index_put_`) share these entries; the .pt2 frontend rebinds the
// written name to the result, and a written buffer becomes graph state (pt2_frontend.cpp).
#include <string>
#include <vector>

#include "frontend/aten_builders.h"

namespace inferno::frontend::aten {
namespace {

using ir::OpKind;
using ir::ValueId;

constexpr ArgKind T = ArgKind::kTensor, Int = ArgKind::kInt, Any = ArgKind::kAny;

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
      {"aten::index_put",
       "",
       {arg("self", T), arg("indices", ArgKind::kTensorList), arg("values", T),
        arg("accumulate", Any, false)},
       index_put},
  };
  table.insert(table.end(), rows.begin(), rows.end());
}

}  // namespace inferno::frontend::aten
