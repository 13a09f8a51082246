// Reference kernels of the normalization ops. Each normalized row (layer_norm: the last dims of
// x; group_norm: one group of channels of one image, contiguous in [N, C, *]) gets its mean and
// its biased variance in double, two passes (the mean first, then the squared deviations from
// it), and every element is (x - mean) / sqrt(var + eps) * weight + bias, rounded once. rms_norm's
// row gets the mean of its squares in double, and every element is x / sqrt(ms + eps) * weight.
#include <cmath>

#include "reference/kernels.h"
#include "support/check.h"

namespace inferno::reference::detail {
namespace {

struct RowStats {
  double mean, inv_std;
};

RowStats row_stats(const Tensor& x, int64_t begin, int64_t length, double eps) {
  double sum = 0;
  for (int64_t j = 0; j < length; ++j) sum += x.get(begin + j);
  const double mean = sum / static_cast<double>(length);
  double squares = 0;
  for (int64_t j = 0; j < length; ++j) {
    const double d = x.get(begin + j) - mean;
    squares += d * d;
  }
  return {mean, 1.0 / std::sqrt(squares / static_cast<double>(length) + eps)};
}

// rows of `length` elements; element j of row r takes weight and bias at param(r, j).
template <typename Param>
Tensor normalize_rows(const Tensor& x, const Tensor* weight, const Tensor* bias, int64_t rows,
                      int64_t length, double eps, const TensorType& out, Param param) {
  Tensor y = Tensor::zeros(out);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t begin = r * length;
    const RowStats s = row_stats(x, begin, length, eps);
    for (int64_t j = 0; j < length; ++j) {
      double v = (x.get(begin + j) - s.mean) * s.inv_std;
      const int64_t p = param(r, j);
      if (weight) v *= weight->get(p);
      if (bias) v += bias->get(p);
      store(y, begin + j, v);
    }
  }
  return y;
}

}  // namespace

Tensor layer_norm(const Tensor& x, const Tensor* weight, const Tensor* bias, int64_t dims,
                  double eps, const TensorType& out) {
  const Shape& s = x.type.shape;
  INFERNO_CHECK(dims >= 1 && dims <= static_cast<int64_t>(s.size()), "layer_norm: bad dims");
  const int64_t length = ir::shape_numel(Shape(s.end() - dims, s.end()));
  if (x.numel() == 0) return Tensor::zeros(out);
  return normalize_rows(x, weight, bias, x.numel() / length, length, eps, out,
                        [](int64_t, int64_t j) { return j; });
}

Tensor group_norm(const Tensor& x, const Tensor* weight, const Tensor* bias, int64_t groups,
                  double eps, const TensorType& out) {
  const Shape& s = x.type.shape;
  INFERNO_CHECK(s.size() >= 2 && groups >= 1 && s[1] % groups == 0, "group_norm: bad groups");
  if (x.numel() == 0) return Tensor::zeros(out);
  const int64_t channels_per_group = s[1] / groups;
  const int64_t spatial = x.numel() / (s[0] * s[1]);
  return normalize_rows(
      x, weight, bias, s[0] * groups, channels_per_group * spatial, eps, out,
      [=](int64_t r, int64_t j) { return (r % groups) * channels_per_group + j / spatial; });
}

Tensor rms_norm(const Tensor& x, const Tensor* weight, int64_t dims, double eps,
                const TensorType& out) {
  const Shape& s = x.type.shape;
  INFERNO_CHECK(dims >= 1 && dims <= static_cast<int64_t>(s.size()), "rms_norm: bad dims");
  const int64_t length = ir::shape_numel(Shape(s.end() - dims, s.end()));
  Tensor y = Tensor::zeros(out);
  if (x.numel() == 0) return y;
  for (int64_t begin = 0; begin < x.numel(); begin += length) {
    double squares = 0;
    for (int64_t j = 0; j < length; ++j) squares += x.get(begin + j) * x.get(begin + j);
    const double inv_rms = 1.0 / std::sqrt(squares / static_cast<double>(length) + eps);
    for (int64_t j = 0; j < length; ++j) {
      double v = x.get(begin + j) * inv_rms;
      if (weight) v *= weight->get(j);
      store(y, begin + j, v);
    }
  }
  return y;
}

void register_norm_kernels(KernelTable& table) {
  table.add(ir::OpKind::kLayerNorm,
            [](const ir::Node& node, const std::vector<const Tensor*>& in,
               const TensorType& out) -> Expected<Tensor> {
              return layer_norm(
                  *in[0], in.size() > 1 ? in[1] : nullptr, in.size() > 2 ? in[2] : nullptr,
                  node.attrs.get_int("normalized_dims"), node.attrs.get_float("eps"), out);
            });
  table.add(ir::OpKind::kRmsNorm,
            [](const ir::Node& node, const std::vector<const Tensor*>& in,
               const TensorType& out) -> Expected<Tensor> {
              return rms_norm(*in[0], in.size() > 1 ? in[1] : nullptr,
                              node.attrs.get_int("normalized_dims"), node.attrs.get_float("eps"),
                              out);
            });
  table.add(ir::OpKind::kGroupNorm,
            [](const ir::Node& node, const std::vector<const Tensor*>& in,
               const TensorType& out) -> Expected<Tensor> {
              return group_norm(*in[0], in.size() > 1 ? in[1] : nullptr,
                                in.size() > 2 ? in[2] : nullptr, node.attrs.get_int("groups"),
                                node.attrs.get_float("eps"), out);
            });
}

}  // namespace inferno::reference::detail
