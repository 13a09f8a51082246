// Shape rules of the reduction family: sum, mean, softmax, log_softmax, cumsum, reduce_max/min
// and argmax/argmin.
#include <algorithm>
#include <string>

#include "ir/rules/rules.h"

namespace inferno::ir::rules {
namespace {

Expected<Types> softmax(OpKind op, const Types& in, const Attributes& attrs) {
  const TensorType& x = in[0];
  INFERNO_RETURN_IF_ERROR(require_floating(op, x));
  const int64_t dim = attrs.get_int("dim");
  if (dim < 0 || dim >= std::max<int64_t>(x.rank(), 1)) {
    return bad(op, "dim " + std::to_string(dim) + " out of range for " + x.to_string());
  }
  return one(x);
}

/// The output shape of a reduction over `dims` (sorted, unique; empty = all).
Expected<Shape> reduced_shape(OpKind op, const TensorType& x, const IntList& dims, bool keepdim) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= x.rank() || (i > 0 && dims[i] <= dims[i - 1])) {
      return bad(op, "dims " + shape_to_string(dims) + " must be sorted, unique and within " +
                         x.to_string());
    }
  }
  Shape out;
  for (int64_t d = 0; d < x.rank(); ++d) {
    const bool reduced = dims.empty() || std::find(dims.begin(), dims.end(), d) != dims.end();
    if (!reduced) {
      out.push_back(x.shape[d]);
    } else if (keepdim) {
      out.push_back(1);
    }
  }
  return out;
}

// sum of integers or bool is i64, as torch.sum; mean needs a floating dtype.
Expected<Types> sum_or_mean(OpKind op, const Types& in, const Attributes& attrs) {
  const TensorType& x = in[0];
  INFERNO_ASSIGN_OR_RETURN(Shape out,
                           reduced_shape(op, x, attrs.get_ints("dims"), attrs.get_bool("keepdim")));
  if (op == OpKind::kMean) INFERNO_RETURN_IF_ERROR(require_floating(op, x));
  const DType dtype = is_floating(x.dtype) ? x.dtype : DType::kI64;
  return one({dtype, out});
}

// cumsum keeps the shape; integer and bool running sums are i64, as torch.cumsum.
Expected<Types> cumsum(OpKind op, const Types& in, const Attributes& attrs) {
  const TensorType& x = in[0];
  const int64_t dim = attrs.get_int("dim");
  if (dim < 0 || dim >= std::max<int64_t>(x.rank(), 1)) {
    return bad(op, "dim " + std::to_string(dim) + " out of range for " + x.to_string());
  }
  return one({is_floating(x.dtype) ? x.dtype : DType::kI64, x.shape});
}

// reduce_max/reduce_min keep x's dtype; an empty reduced dim has no extremum.
Expected<Types> extremum(OpKind op, const Types& in, const Attributes& attrs) {
  const TensorType& x = in[0];
  const IntList& dims = attrs.get_ints("dims");
  INFERNO_ASSIGN_OR_RETURN(Shape out, reduced_shape(op, x, dims, attrs.get_bool("keepdim")));
  for (int64_t d = 0; d < x.rank(); ++d) {
    const bool reduced = dims.empty() || std::find(dims.begin(), dims.end(), d) != dims.end();
    if (reduced && x.shape[static_cast<size_t>(d)] == 0)
      return bad(op, "reduces the empty dim " + std::to_string(d) + " of " + x.to_string());
  }
  return one({x.dtype, out});
}

// argmax/argmin along one dim (a scalar's only element is index 0).
Expected<Types> arg_extremum(OpKind op, const Types& in, const Attributes& attrs) {
  const TensorType& x = in[0];
  const int64_t dim = attrs.get_int("dim");
  if (dim < 0 || dim >= std::max<int64_t>(x.rank(), 1))
    return bad(op, "dim " + std::to_string(dim) + " out of range for " + x.to_string());
  if (x.rank() == 0) return one({DType::kI64, {}});
  if (x.shape[static_cast<size_t>(dim)] == 0)
    return bad(op, "reduces the empty dim " + std::to_string(dim) + " of " + x.to_string());
  INFERNO_ASSIGN_OR_RETURN(Shape out, reduced_shape(op, x, {dim}, attrs.get_bool("keepdim")));
  return one({DType::kI64, out});
}

}  // namespace

void register_reduction_rules(ShapeRuleTable& table) {
  table.add(OpKind::kSum, sum_or_mean);
  table.add(OpKind::kMean, sum_or_mean);
  table.add(OpKind::kSoftmax, softmax);
  table.add(OpKind::kLogSoftmax, softmax);
  table.add(OpKind::kCumsum, cumsum);
  table.add(OpKind::kReduceMax, extremum);
  table.add(OpKind::kReduceMin, extremum);
  table.add(OpKind::kArgMax, arg_extremum);
  table.add(OpKind::kArgMin, arg_extremum);
}

}  // namespace inferno::ir::rules
