// Shape rules of the reduction family: sum, mean, softmax, log_softmax.
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

// sum of integers or bool is i64, as torch.sum; mean needs a floating dtype.
Expected<Types> sum_or_mean(OpKind op, const Types& in, const Attributes& attrs) {
  const TensorType& x = in[0];
  const IntList& dims = attrs.get_ints("dims");
  const bool keepdim = attrs.get_bool("keepdim");
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
  if (op == OpKind::kMean) INFERNO_RETURN_IF_ERROR(require_floating(op, x));
  const DType dtype = is_floating(x.dtype) ? x.dtype : DType::kI64;
  return one({dtype, out});
}

}  // namespace

void register_reduction_rules(ShapeRuleTable& table) {
  table.add(OpKind::kSum, sum_or_mean);
  table.add(OpKind::kMean, sum_or_mean);
  table.add(OpKind::kSoftmax, softmax);
  table.add(OpKind::kLogSoftmax, softmax);
}

}  // namespace inferno::ir::rules
