// Shape rules of the layout family: reshape, transpose, permute, expand, slice.
#include <algorithm>
#include <string>

#include "ir/rules/rules.h"

namespace inferno::ir::rules {
namespace {

Expected<Types> reshape(OpKind op, const Types& in, const Attributes& attrs) {
  const TensorType& x = in[0];
  const IntList& shape = attrs.get_ints("shape");
  for (int64_t d : shape) {
    if (d < 0) return bad(op, "target shape " + shape_to_string(shape) + " has a negative dim");
  }
  int64_t numel = 1;
  bool overflow = false;  // an untrusted shape attribute may overflow int64
  for (int64_t d : shape) overflow |= __builtin_mul_overflow(numel, d, &numel);
  if (overflow || numel != x.numel()) {
    return bad(op, "cannot reshape " + x.to_string() + " to " + shape_to_string(shape));
  }
  return one({x.dtype, shape});
}

Expected<Types> transpose(OpKind op, const Types& in, const Attributes& attrs) {
  const TensorType& x = in[0];
  const int64_t d0 = attrs.get_int("dim0"), d1 = attrs.get_int("dim1");
  if (d0 < 0 || d1 < 0 || d0 >= x.rank() || d1 >= x.rank()) {
    return bad(op, "dims " + std::to_string(d0) + ", " + std::to_string(d1) + " out of range for " +
                       x.to_string());
  }
  Shape out = x.shape;
  std::swap(out[d0], out[d1]);
  return one({x.dtype, out});
}

Expected<Types> permute(OpKind op, const Types& in, const Attributes& attrs) {
  const TensorType& x = in[0];
  const IntList& dims = attrs.get_ints("dims");
  IntList sorted = dims;
  std::sort(sorted.begin(), sorted.end());
  bool is_perm = static_cast<int64_t>(dims.size()) == x.rank();
  for (size_t i = 0; is_perm && i < sorted.size(); ++i) {
    is_perm = sorted[i] == static_cast<int64_t>(i);
  }
  if (!is_perm) {
    return bad(op, "dims " + shape_to_string(dims) + " are not a permutation for " + x.to_string());
  }
  Shape out;
  for (int64_t d : dims) out.push_back(x.shape[d]);
  return one({x.dtype, out});
}

Expected<Types> expand(OpKind op, const Types& in, const Attributes& attrs) {
  const TensorType& x = in[0];
  const IntList& shape = attrs.get_ints("shape");
  if (static_cast<int64_t>(shape.size()) < x.rank()) {
    return bad(op, "cannot expand " + x.to_string() + " to fewer dims " + shape_to_string(shape));
  }
  if (!checked_numel(shape)) {
    return bad(op, "target shape " + shape_to_string(shape) + " is invalid or too large");
  }
  const size_t lead = shape.size() - x.shape.size();
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0)
      return bad(op, "target shape " + shape_to_string(shape) + " has a negative dim");
    if (i >= lead && x.shape[i - lead] != 1 && x.shape[i - lead] != shape[i]) {
      return bad(op, "cannot expand " + x.to_string() + " to " + shape_to_string(shape));
    }
  }
  return one({x.dtype, shape});
}

// One (start, end, step) per dim, already normalized (the frontends resolve PyTorch's negative
// and out-of-range bounds); anything else is invalid input, not clamped here.
Expected<Types> slice(OpKind op, const Types& in, const Attributes& attrs) {
  const TensorType& x = in[0];
  const IntList &starts = attrs.get_ints("starts"), &ends = attrs.get_ints("ends"),
                &steps = attrs.get_ints("steps");
  const auto rank = static_cast<size_t>(x.rank());
  if (starts.size() != rank || ends.size() != rank || steps.size() != rank) {
    return bad(op, "needs one start, end and step per dim of " + x.to_string() + ", got " +
                       shape_to_string(starts) + ", " + shape_to_string(ends) + ", " +
                       shape_to_string(steps));
  }
  Shape out(rank);
  for (size_t d = 0; d < rank; ++d) {
    const int64_t start = starts[d], end = ends[d], step = steps[d];
    if (start < 0 || start > end || end > x.shape[d] || step < 1) {
      return bad(op, "dim " + std::to_string(d) + ": [" + std::to_string(start) + ":" +
                         std::to_string(end) + ":" + std::to_string(step) +
                         "] is not a slice of size " + std::to_string(x.shape[d]) +
                         " (needs 0 <= start <= end <= size and step >= 1)");
    }
    out[d] = (end - start) / step + ((end - start) % step != 0 ? 1 : 0);
  }
  return one({x.dtype, out});
}

}  // namespace

void register_layout_rules(ShapeRuleTable& table) {
  table.add(OpKind::kReshape, reshape);
  table.add(OpKind::kTranspose, transpose);
  table.add(OpKind::kPermute, permute);
  table.add(OpKind::kExpand, expand);
  table.add(OpKind::kSlice, slice);
}

}  // namespace inferno::ir::rules
