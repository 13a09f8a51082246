// Reference kernels for reductions: sum and mean over a list of dims, softmax and log_softmax
// along one dim.
//
// sum/mean walk the input once in row-major order and add each element into its output slot
// (a StridedIndex whose strides are the output's on kept dims and 0 on reduced dims). Floating
// sums accumulate in double; integer and bool sums (whose result is i64) accumulate exactly in
// int64 with wrap-around, as PyTorch does. softmax is the numerically stable form: subtract the
// row max, exponentiate, normalise; log_softmax = x - max - log(sum(exp(x - max))). cumsum runs
// along its dim in double (PyTorch's CPU accumulator for f32) or wrapping int64.
#include <algorithm>
#include <cmath>
#include <limits>

#include "reference/kernels.h"
#include "support/check.h"

namespace inferno::reference::detail {

Tensor sum_or_mean(const Tensor& x, const ir::IntList& dims, bool mean, const TensorType& out) {
  const Shape& shape = x.type.shape;
  Shape kept_shape = shape;  // the keepdim form of the output shape
  double count = 1;          // elements per output slot
  for (size_t d = 0; d < shape.size(); ++d) {
    if (dims.empty() ||
        std::find(dims.begin(), dims.end(), static_cast<int64_t>(d)) != dims.end()) {
      count *= static_cast<double>(shape[d]);
      kept_shape[d] = 1;
    }
  }
  INFERNO_CHECK(ir::shape_numel(kept_shape) == out.numel(), "reduction output size does not match");
  StridedIndex to_out{shape, ir::contiguous_strides(kept_shape)};
  for (size_t d = 0; d < shape.size(); ++d) {
    if (kept_shape[d] == 1) to_out.strides[d] = 0;  // reduced (or size 1 anyway)
  }
  Tensor y = Tensor::zeros(out);
  if (!ir::is_floating(out.dtype)) {
    INFERNO_CHECK(!mean && !ir::is_floating(x.type.dtype), "integer reduction of a float input");
    std::vector<int64_t> acc(static_cast<size_t>(out.numel()), 0);
    for (int64_t i = 0; i < x.numel(); ++i) {
      int64_t& slot = acc[static_cast<size_t>(to_out(i))];
      slot =
          static_cast<int64_t>(static_cast<uint64_t>(slot) + static_cast<uint64_t>(load_int(x, i)));
    }
    for (int64_t o = 0; o < y.numel(); ++o) store_int(y, o, acc[static_cast<size_t>(o)]);
    return y;
  }
  std::vector<double> acc(static_cast<size_t>(out.numel()), 0.0);
  for (int64_t i = 0; i < x.numel(); ++i) acc[static_cast<size_t>(to_out(i))] += x.get(i);
  for (int64_t o = 0; o < y.numel(); ++o)
    store(y, o, mean ? acc[static_cast<size_t>(o)] / count : acc[static_cast<size_t>(o)]);
  return y;
}

Lines lines_along(const Shape& shape, int64_t dim) {
  Lines l;
  for (size_t d = 0; d < shape.size(); ++d) {
    const auto sd = static_cast<int64_t>(d);
    (sd < dim ? l.outer : sd == dim ? l.n : l.inner) *= shape[d];
  }
  return l;
}

Tensor softmax(const Tensor& x, int64_t dim, bool log, const TensorType& out) {
  INFERNO_CHECK(x.type == out, "softmax changes the type");
  const Shape& shape = x.type.shape;
  const auto [outer, n, inner] = lines_along(shape, dim);
  Tensor y = Tensor::zeros(out);
  std::vector<double> row(static_cast<size_t>(n));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      const int64_t base = o * n * inner + in;
      double max = -std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < n; ++j) {
        const double v = x.get(base + j * inner);
        row[static_cast<size_t>(j)] = v;
        if (v > max || std::isnan(v)) max = std::isnan(max) ? max : v;  // NaN wins and sticks
      }
      double sum = 0;
      for (double v : row) sum += std::exp(v - max);
      for (int64_t j = 0; j < n; ++j) {
        const double shifted = row[static_cast<size_t>(j)] - max;
        store(y, base + j * inner, log ? shifted - std::log(sum) : std::exp(shifted) / sum);
      }
    }
  }
  return y;
}

Tensor cumsum(const Tensor& x, int64_t dim, const TensorType& out) {
  const Shape& shape = x.type.shape;
  const auto [outer, n, inner] = lines_along(shape, dim);
  Tensor y = Tensor::zeros(out);
  const bool exact = !ir::is_floating(out.dtype);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      double sum = 0;
      uint64_t isum = 0;
      for (int64_t j = 0; j < n; ++j) {
        const int64_t i = (o * n + j) * inner + in;
        if (exact) {
          isum += static_cast<uint64_t>(load_int(x, i));
          store_int(y, i, static_cast<int64_t>(isum));
        } else {
          sum += x.get(i);
          store(y, i, sum);
        }
      }
    }
  }
  return y;
}

void register_reduction_kernels(KernelTable& table) {
  table.add(ir::OpKind::kSum,
            [](const ir::Node& node, const std::vector<const Tensor*>& in,
               const TensorType& out) -> Expected<Tensor> {
              return sum_or_mean(*in[0], node.attrs.get_ints("dims"), /*mean=*/false, out);
            });
  table.add(ir::OpKind::kMean,
            [](const ir::Node& node, const std::vector<const Tensor*>& in,
               const TensorType& out) -> Expected<Tensor> {
              return sum_or_mean(*in[0], node.attrs.get_ints("dims"), /*mean=*/true, out);
            });
  table.add(ir::OpKind::kSoftmax,
            [](const ir::Node& node, const std::vector<const Tensor*>& in,
               const TensorType& out) -> Expected<Tensor> {
              return softmax(*in[0], node.attrs.get_int("dim"), /*log=*/false, out);
            });
  table.add(ir::OpKind::kLogSoftmax,
            [](const ir::Node& node, const std::vector<const Tensor*>& in,
               const TensorType& out) -> Expected<Tensor> {
              return softmax(*in[0], node.attrs.get_int("dim"), /*log=*/true, out);
            });
  table.add(ir::OpKind::kCumsum,
            [](const ir::Node& node, const std::vector<const Tensor*>& in, const TensorType& out)
                -> Expected<Tensor> { return cumsum(*in[0], node.attrs.get_int("dim"), out); });
}

}  // namespace inferno::reference::detail
