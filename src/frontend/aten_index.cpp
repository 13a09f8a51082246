// Integer indexing entries of the ATen table onto the IR's index_select: embedding (rows of the
// table by token id), index_select (slices along a dim by a 1-D index). An index held in a
// constant is checked here, so an out-of-range id in the model is invalid input naming the node;
// an index computed at run time is clamped by the kernel (ops.def).
#include <string>
#include <vector>

#include "frontend/aten_builders.h"

namespace inferno::frontend::aten {
namespace {

using ir::OpKind;
using ir::ValueId;

constexpr ArgKind T = ArgKind::kTensor, Int = ArgKind::kInt, Any = ArgKind::kAny;

Outputs select_rows(Ctx& c, ValueId x, ValueId index, int64_t dim_arg) {
  const ir::TensorType xt = c.type(x);
  if (xt.rank() < 1) return c.invalid("expects a tensor of rank >= 1, got " + xt.to_string());
  INFERNO_ASSIGN_OR_RETURN(const int64_t dim, c.dim(dim_arg, xt.rank()));
  const int64_t size = xt.shape[static_cast<size_t>(dim)];
  if (const ir::Tensor* ids = c.g.value(index).constant.get()) {
    for (int64_t p = 0; p < ids->numel(); ++p) {
      const double v = ids->get(p);
      if (v < -static_cast<double>(size) || v >= static_cast<double>(size)) {
        return c.invalid("index " + std::to_string(static_cast<long long>(v)) +
                         " is out of range for dim " + std::to_string(dim) + " of size " +
                         std::to_string(size));
      }
    }
  }
  return one(c.build(OpKind::kIndexSelect, {x, index}, attrs({{"dim", dim}})));
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
  };
  table.insert(table.end(), rows.begin(), rows.end());
}

}  // namespace inferno::frontend::aten
