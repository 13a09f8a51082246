// Shape rules of the joins and gathers: index_select (an integer index of any shape), cat (inputs
// of one dtype and rank, equal but along `dim`) and constant_pad (per-dim before/after counts,
// negative ones crop; the fill is a rank-0 input of x's dtype). Sizes come from untrusted
// attributes: every sum is checked before it can overflow, and the output's element count through
// checked_numel.
#include <string>

#include "ir/rules/rules.h"

namespace inferno::ir::rules {
namespace {

Expected<Types> cat(OpKind op, const Types& in, const Attributes& attrs) {
  const TensorType& first = in[0];
  const int64_t dim = attrs.get_int("dim");
  if (dim < 0 || dim >= first.rank())
    return bad(op, "dim " + std::to_string(dim) + " out of range for " + first.to_string());
  Shape out = first.shape;
  out[static_cast<size_t>(dim)] = 0;
  for (const TensorType& t : in) {
    bool same = t.dtype == first.dtype && t.rank() == first.rank();
    for (int64_t d = 0; same && d < t.rank(); ++d)
      same = d == dim || t.shape[static_cast<size_t>(d)] == first.shape[static_cast<size_t>(d)];
    if (!same) {
      return bad(op, "inputs must share dtype and sizes except in dim " + std::to_string(dim) +
                         ", got " + types_str(in));
    }
    // Each size is at most 2^48 (checked_numel of the inputs), so 32 of them cannot overflow.
    out[static_cast<size_t>(dim)] += t.shape[static_cast<size_t>(dim)];
  }
  if (!checked_numel(out)) return bad(op, "output " + shape_to_string(out) + " is too large");
  return one({first.dtype, out});
}

Expected<Types> constant_pad(OpKind op, const Types& in, const Attributes& attrs) {
  const TensorType& x = in[0];
  if (in[1].rank() != 0 || in[1].dtype != x.dtype) {
    return bad(op, "the fill must be a rank-0 value of " + std::string(dtype_name(x.dtype)) +
                       ", got " + in[1].to_string());
  }
  const IntList &before = attrs.get_ints("before"), &after = attrs.get_ints("after");
  if (static_cast<int64_t>(before.size()) != x.rank() ||
      static_cast<int64_t>(after.size()) != x.rank()) {
    return bad(op, "before and after need one value per dim of " + x.to_string());
  }
  Shape out = x.shape;
  for (size_t d = 0; d < out.size(); ++d) {
    int64_t size = 0;
    if (__builtin_add_overflow(out[d], before[d], &size) ||
        __builtin_add_overflow(size, after[d], &size) || size < 0) {
      return bad(op, "padding " + shape_to_string(before) + " / " + shape_to_string(after) +
                         " gives a negative or too large size for " + x.to_string());
    }
    out[d] = size;
  }
  if (!checked_numel(out)) return bad(op, "output " + shape_to_string(out) + " is too large");
  return one({x.dtype, out});
}

}  // namespace

// index_select: x of rank >= 1, an integer index; a non-empty index needs a non-empty dim to pick
// from.
Expected<Types> index_select(OpKind op, const Types& in, const Attributes& attrs) {
  const TensorType &x = in[0], &index = in[1];
  const int64_t dim = attrs.get_int("dim");
  if (dim < 0 || dim >= x.rank())
    return bad(op, "dim " + std::to_string(dim) + " out of range for " + x.to_string());
  if (index.dtype != DType::kI32 && index.dtype != DType::kI64)
    return unsupported(std::string(op_name(op)) + ": the index must be i32 or i64, got " +
                       index.to_string());
  const auto d = static_cast<size_t>(dim);
  if (x.shape[d] == 0 && index.numel() > 0)
    return bad(op,
               "cannot pick from the empty dim " + std::to_string(dim) + " of " + x.to_string());
  Shape out(x.shape.begin(), x.shape.begin() + dim);
  out.insert(out.end(), index.shape.begin(), index.shape.end());
  out.insert(out.end(), x.shape.begin() + dim + 1, x.shape.end());
  if (!checked_numel(out)) return bad(op, "output " + shape_to_string(out) + " is too large");
  return one({x.dtype, std::move(out)});
}

// index_copy: x of rank >= 1, a 1-D integer index, source of x's dtype and shape but for `dim`,
// which is the index's length; out is x's type.
Expected<Types> index_copy(OpKind op, const Types& in, const Attributes& attrs) {
  const TensorType &x = in[0], &index = in[1], &source = in[2];
  const int64_t dim = attrs.get_int("dim");
  if (dim < 0 || dim >= x.rank())
    return bad(op, "dim " + std::to_string(dim) + " out of range for " + x.to_string());
  if ((index.dtype != DType::kI32 && index.dtype != DType::kI64) || index.rank() != 1)
    return bad(op, "the index must be a 1-D i32 or i64 tensor, got " + index.to_string());
  Shape slices = x.shape;
  slices[static_cast<size_t>(dim)] = index.shape[0];
  if (source.dtype != x.dtype || source.shape != slices) {
    return bad(op, "the source must be " + TensorType{x.dtype, slices}.to_string() + ", got " +
                       source.to_string());
  }
  return one(x);
}

void register_join_rules(ShapeRuleTable& table) {
  table.add(OpKind::kIndexSelect, index_select);
  table.add(OpKind::kIndexCopy, index_copy);
  table.add(OpKind::kCat, cat);
  table.add(OpKind::kConstantPad, constant_pad);
}

}  // namespace inferno::ir::rules
