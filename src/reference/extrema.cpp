// Reference kernels for the extrema: reduce_max/reduce_min over a list of dims and
// argmax/argmin along one dim. Integers and bool compare exactly in int64, floating values in
// double (exact for every floating dtype). A NaN wins and sticks, as in PyTorch; among equal
// extrema the first index wins.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "reference/kernels.h"
#include "support/check.h"

namespace inferno::reference::detail {
namespace {

/// Whether `v` replaces the current extremum `best` (`max` or min).
template <typename V>
bool wins(V v, V best, bool max) {
  if constexpr (std::is_floating_point_v<V>) {
    if (std::isnan(best)) return false;
    if (std::isnan(v)) return true;
  }
  return max ? v > best : v < best;
}

template <typename V>
V load_as(const Tensor& t, int64_t i) {
  if constexpr (std::is_floating_point_v<V>) {
    return t.get(i);
  } else {
    return load_int(t, i);
  }
}

template <typename V>
Tensor reduce_extremum(const Tensor& x, const ir::IntList& dims, bool max, const TensorType& out) {
  const Shape& shape = x.type.shape;
  Shape kept_shape = shape;  // the keepdim form of the output shape
  for (size_t d = 0; d < shape.size(); ++d) {
    if (dims.empty() || std::find(dims.begin(), dims.end(), static_cast<int64_t>(d)) != dims.end())
      kept_shape[d] = 1;
  }
  INFERNO_CHECK(ir::shape_numel(kept_shape) == out.numel(), "reduction output size does not match");
  StridedIndex to_out{shape, ir::contiguous_strides(kept_shape)};
  for (size_t d = 0; d < shape.size(); ++d) {
    if (kept_shape[d] == 1) to_out.strides[d] = 0;
  }
  std::vector<V> best(static_cast<size_t>(out.numel()));
  std::vector<bool> seen(best.size(), false);
  for (int64_t i = 0; i < x.numel(); ++i) {
    const auto o = static_cast<size_t>(to_out(i));
    const V v = load_as<V>(x, i);
    if (!seen[o] || wins(v, best[o], max)) best[o] = v;
    seen[o] = true;
  }
  Tensor y = Tensor::zeros(out);
  for (int64_t o = 0; o < y.numel(); ++o) {
    if constexpr (std::is_floating_point_v<V>) {
      y.set(o, best[static_cast<size_t>(o)]);
    } else {
      store_int(y, o, best[static_cast<size_t>(o)]);
    }
  }
  return y;
}

template <typename V>
Tensor arg_extremum(const Tensor& x, int64_t dim, bool max, const TensorType& out) {
  const Shape& shape = x.type.shape;
  const auto [outer, n, inner] = lines_along(shape, dim);
  INFERNO_CHECK(outer * inner == out.numel(), "arg reduction output size does not match");
  Tensor y = Tensor::zeros(out);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      const int64_t base = o * n * inner + in;
      int64_t at = 0;
      V best = load_as<V>(x, base);
      for (int64_t j = 1; j < n; ++j) {
        const V v = load_as<V>(x, base + j * inner);
        if (wins(v, best, max)) {
          best = v;
          at = j;
        }
      }
      store_int(y, o * inner + in, at);
    }
  }
  return y;
}

}  // namespace

void register_extrema_kernels(KernelTable& table) {
  for (const ir::OpKind op : {ir::OpKind::kReduceMax, ir::OpKind::kReduceMin}) {
    table.add(op,
              [](const ir::Node& node, const std::vector<const Tensor*>& in,
                 const TensorType& out) -> Expected<Tensor> {
                const bool max = node.op == ir::OpKind::kReduceMax;
                const ir::IntList& dims = node.attrs.get_ints("dims");
                if (ir::is_floating(in[0]->type.dtype))
                  return reduce_extremum<double>(*in[0], dims, max, out);
                return reduce_extremum<int64_t>(*in[0], dims, max, out);
              });
  }
  for (const ir::OpKind op : {ir::OpKind::kArgMax, ir::OpKind::kArgMin}) {
    table.add(op,
              [](const ir::Node& node, const std::vector<const Tensor*>& in,
                 const TensorType& out) -> Expected<Tensor> {
                const bool max = node.op == ir::OpKind::kArgMax;
                const int64_t dim = node.attrs.get_int("dim");
                if (ir::is_floating(in[0]->type.dtype))
                  return arg_extremum<double>(*in[0], dim, max, out);
                return arg_extremum<int64_t>(*in[0], dim, max, out);
              });
  }
}

}  // namespace inferno::reference::detail
