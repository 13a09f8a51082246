// Running sums and differences along a dim: cumsum (the IR's cumsum, after the cast its dtype
// argument asks for) and diff, decomposed into slices and a subtraction (exact: each output is
// one difference of two inputs), after joining prepend and append to x. transformers' mask
// construction uses both on position ids.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "frontend/aten_builders.h"

namespace inferno::frontend::aten {
namespace {

using ir::DType;
using ir::OpKind;
using ir::ValueId;

constexpr ArgKind T = ArgKind::kTensor, Int = ArgKind::kInt, DTy = ArgKind::kDType;

// cumsum(self, dim, dtype=None): an integer or bool x without a dtype sums in i64 (the IR op's
// rule, as PyTorch's).
Outputs cumsum(Ctx& c) {
  ValueId x = c.a.tensor("self");
  if (std::optional<DType> dtype = c.a.opt_dtype("dtype")) {
    INFERNO_ASSIGN_OR_RETURN(x, cast(c, x, *dtype, "cast"));
  }
  INFERNO_ASSIGN_OR_RETURN(int64_t d,
                           c.dim(c.a.get_int("dim"), std::max<int64_t>(c.type(x).rank(), 1)));
  return one(c.build(OpKind::kCumsum, {x}, attrs({{"dim", d}})));
}

/// x[start:end] along `dim`, the other dims whole.
Expected<ValueId> slice(const Ctx& c, ValueId x, size_t dim, int64_t start, int64_t end,
                        const std::string& suffix) {
  const ir::Shape& shape = c.type(x).shape;
  std::vector<int64_t> starts(shape.size(), 0), ends = shape, steps(shape.size(), 1);
  starts[dim] = start;
  ends[dim] = end;
  return c.build(
      OpKind::kSlice, {x},
      attrs(
          {{"starts", std::move(starts)}, {"ends", std::move(ends)}, {"steps", std::move(steps)}}),
      suffix);
}

// diff(self, n=1, dim=-1, prepend=None, append=None): x = cat(prepend, self, append) along dim,
// then n times x[1:] - x[:-1] (x[1:] != x[:-1] for bool, PyTorch's logical_xor). An n at least
// the dim's size leaves an empty dim.
Outputs diff(Ctx& c) {
  ValueId x = c.a.tensor("self");
  const int64_t rank = c.type(x).rank();
  if (rank < 1) return c.invalid("expects a tensor of rank >= 1, got " + c.type(x).to_string());
  INFERNO_ASSIGN_OR_RETURN(const int64_t dim, c.dim(c.a.get_int("dim"), rank));
  const int64_t n = c.a.get_int("n");
  if (n < 0) return c.invalid("order must be non-negative, got " + std::to_string(n));
  std::vector<ValueId> parts;
  if (std::optional<ValueId> p = c.a.opt_tensor("prepend")) parts.push_back(*p);
  parts.push_back(x);
  if (std::optional<ValueId> a = c.a.opt_tensor("append")) parts.push_back(*a);
  if (parts.size() > 1) {
    for (ValueId& p : parts) {
      if (c.type(p).rank() != rank) {
        return c.invalid("prepend and append must have the rank of " + c.type(x).to_string() +
                         ", got " + c.type(p).to_string());
      }
      INFERNO_ASSIGN_OR_RETURN(p, cast(c, p, c.type(x).dtype, "part"));
    }
    INFERNO_ASSIGN_OR_RETURN(x, c.build(OpKind::kCat, parts, attrs({{"dim", dim}}), "joined"));
  }
  const auto d = static_cast<size_t>(dim);
  const OpKind op = c.type(x).dtype == DType::kBool ? OpKind::kNe : OpKind::kSub;
  for (int64_t k = 0; k < n && c.type(x).shape[d] > 0; ++k) {
    const int64_t size = c.type(x).shape[d];
    const std::string step = std::to_string(k);
    INFERNO_ASSIGN_OR_RETURN(ValueId later, slice(c, x, d, 1, size, "later" + step));
    INFERNO_ASSIGN_OR_RETURN(ValueId earlier, slice(c, x, d, 0, size - 1, "earlier" + step));
    INFERNO_ASSIGN_OR_RETURN(
        x, c.build(op, {later, earlier}, {}, k + 1 == n ? "" : "order" + std::to_string(k + 1)));
  }
  return std::vector<ValueId>{x};
}

}  // namespace

void add_scan_entries(std::vector<OpEntry>& table) {
  const std::vector<OpEntry> rows = {
      {"aten::cumsum", "", {arg("self", T), arg("dim", Int), opt("dtype", DTy)}, cumsum},
      {"aten::diff",
       "",
       {arg("self", T), arg("n", Int, int64_t{1}), arg("dim", Int, int64_t{-1}), opt("prepend", T),
        opt("append", T)},
       diff},
  };
  table.insert(table.end(), rows.begin(), rows.end());
}

}  // namespace inferno::frontend::aten
