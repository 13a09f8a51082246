// Reference kernels for pooling: max_pool2d, avg_pool2d and their adaptive forms, written as
// PyTorch's CPU kernels define them. The input is [planes, H, W] (any leading dims are planes;
// layout "nhwc" is pooled as its NCHW permutation, the result permuted back);
// each output element reduces its window in double. Windows are clipped to the input before the
// loops, so their cost is bounded by the input, whatever the kernel attribute says.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ir/channels_last.h"
#include "reference/kernels.h"
#include "support/check.h"

namespace inferno::reference::detail {
namespace {

// One dim of a window: input indices first, first + step, ... (count of them) inside [0, in).
struct Span {
  int64_t first = 0, step = 1, count = 0;
};

// The taps start + k * dilation (k in [0, kernel)) that fall inside [0, in).
Span clipped_taps(int64_t start, int64_t kernel, int64_t dilation, int64_t in) {
  const int64_t k0 = start < 0 ? (-start + dilation - 1) / dilation : 0;
  if (start + k0 * dilation >= in) return {start, dilation, 0};
  const int64_t k1 = std::min(kernel, (in - 1 - start) / dilation + 1);
  return {start + k0 * dilation, dilation, std::max<int64_t>(k1 - k0, 0)};
}

struct Planes {
  int64_t planes, in_h, in_w, out_h, out_w;
};

Planes planes_of(const Tensor& x, const TensorType& out) {
  const Shape& s = x.type.shape;
  INFERNO_CHECK(s.size() >= 2 && out.shape.size() == s.size(), "pooling ranks differ");
  const int64_t h = s[s.size() - 2], w = s[s.size() - 1];
  return {h * w == 0 ? 0 : x.numel() / (h * w), h, w, out.shape[s.size() - 2],
          out.shape[s.size() - 1]};
}

// max over the taps, -inf when there are none; NaN wins, as in PyTorch.
double max_over(const Tensor& x, int64_t base, int64_t in_w, Span rows, Span cols) {
  double m = -std::numeric_limits<double>::infinity();
  for (int64_t r = 0; r < rows.count; ++r) {
    for (int64_t c = 0; c < cols.count; ++c) {
      const double v =
          x.get(base + (rows.first + r * rows.step) * in_w + cols.first + c * cols.step);
      if (v > m || std::isnan(v)) m = v;
      if (std::isnan(m)) return m;
    }
  }
  return m;
}

double sum_over(const Tensor& x, int64_t base, int64_t in_w, Span rows, Span cols) {
  double s = 0;
  for (int64_t r = 0; r < rows.count; ++r) {
    for (int64_t c = 0; c < cols.count; ++c)
      s += x.get(base + (rows.first + r * rows.step) * in_w + cols.first + c * cols.step);
  }
  return s;
}

Tensor pool2d_nchw(const Tensor& x, ir::OpKind op, const ir::Attributes& attrs,
                   const TensorType& out) {
  const Planes p = planes_of(x, out);
  const bool is_max = op == ir::OpKind::kMaxPool2d;
  const ir::IntList &k = attrs.get_ints("kernel"), &s = attrs.get_ints("stride"),
                    &pad = attrs.get_ints("padding");
  const ir::IntList d = is_max ? attrs.get_ints("dilation") : ir::IntList{1, 1};
  const bool include_pad = !is_max && attrs.get_bool("count_include_pad");
  const int64_t divisor = is_max ? 0 : attrs.get_int("divisor_override");
  Tensor y = Tensor::zeros(out);
  for (int64_t n = 0; n < p.planes; ++n) {
    const int64_t base = n * p.in_h * p.in_w;
    for (int64_t oh = 0; oh < p.out_h; ++oh) {
      for (int64_t ow = 0; ow < p.out_w; ++ow) {
        const int64_t h0 = oh * s[0] - pad[0], w0 = ow * s[1] - pad[1];
        const Span rows = clipped_taps(h0, k[0], d[0], p.in_h);
        const Span cols = clipped_taps(w0, k[1], d[1], p.in_w);
        double v;
        if (is_max) {
          v = max_over(x, base, p.in_w, rows, cols);
        } else if (rows.count == 0 || cols.count == 0) {
          v = 0;  // PyTorch writes 0 for a window with no input element
        } else {
          // The padded window: clipped to the padded input (count_include_pad) or the input.
          const int64_t h1 = std::min(h0 + k[0], p.in_h + pad[0]);
          const int64_t w1 = std::min(w0 + k[1], p.in_w + pad[1]);
          const double count = divisor != 0  ? static_cast<double>(divisor)
                               : include_pad ? static_cast<double>((h1 - h0) * (w1 - w0))
                                             : static_cast<double>(rows.count * cols.count);
          v = sum_over(x, base, p.in_w, rows, cols) / count;
        }
        store(y, (n * p.out_h + oh) * p.out_w + ow, v);
      }
    }
  }
  return y;
}

Tensor adaptive_pool2d_nchw(const Tensor& x, bool is_max, const TensorType& out) {
  const Planes p = planes_of(x, out);
  // Window i of `o` over `in`: [floor(i * in / o), ceil((i + 1) * in / o)).
  auto window = [](int64_t i, int64_t in, int64_t o) {
    const int64_t start = i * in / o, end = ((i + 1) * in + o - 1) / o;
    return Span{start, 1, end - start};
  };
  Tensor y = Tensor::zeros(out);
  for (int64_t n = 0; n < p.planes; ++n) {
    const int64_t base = n * p.in_h * p.in_w;
    for (int64_t oh = 0; oh < p.out_h; ++oh) {
      const Span rows = window(oh, p.in_h, p.out_h);
      for (int64_t ow = 0; ow < p.out_w; ++ow) {
        const Span cols = window(ow, p.in_w, p.out_w);
        const double v = is_max ? max_over(x, base, p.in_w, rows, cols)
                                : sum_over(x, base, p.in_w, rows, cols) /
                                      static_cast<double>(rows.count * cols.count);
        store(y, (n * p.out_h + oh) * p.out_w + ow, v);
      }
    }
  }
  return y;
}

TensorType permuted(const TensorType& t, const ir::IntList& dims) {
  TensorType p{t.dtype, {}};
  for (const int64_t d : dims) p.shape.push_back(t.shape[static_cast<size_t>(d)]);
  return p;
}

/// `pool` (an NCHW kernel) applied to x in x's layout.
template <typename Pool>
Tensor in_layout(const Tensor& x, const ir::Attributes& attrs, const TensorType& out, Pool pool) {
  if (!ir::pool_dims(attrs, x.type.shape.size()).nhwc) return pool(x, out);
  const TensorType out_nchw = permuted(out, ir::kToNchw);
  const Tensor y = pool(permute(x, ir::kToNchw, permuted(x.type, ir::kToNchw)), out_nchw);
  return permute(y, ir::kToNhwc, out);
}

}  // namespace

Tensor pool2d(const Tensor& x, ir::OpKind op, const ir::Attributes& attrs, const TensorType& out) {
  return in_layout(x, attrs, out, [&](const Tensor& nchw, const TensorType& out_nchw) {
    return pool2d_nchw(nchw, op, attrs, out_nchw);
  });
}

Tensor adaptive_pool2d(const Tensor& x, bool is_max, const ir::Attributes& attrs,
                       const TensorType& out) {
  return in_layout(x, attrs, out, [&](const Tensor& nchw, const TensorType& out_nchw) {
    return adaptive_pool2d_nchw(nchw, is_max, out_nchw);
  });
}

void register_pool_kernels(KernelTable& table) {
  for (const ir::OpKind op : {ir::OpKind::kMaxPool2d, ir::OpKind::kAvgPool2d}) {
    table.add(op,
              [](const ir::Node& node, const std::vector<const Tensor*>& in, const TensorType& out)
                  -> Expected<Tensor> { return pool2d(*in[0], node.op, node.attrs, out); });
  }
  table.add(ir::OpKind::kAdaptiveAvgPool2d,
            [](const ir::Node& node, const std::vector<const Tensor*>& in,
               const TensorType& out) -> Expected<Tensor> {
              return adaptive_pool2d(*in[0], /*is_max=*/false, node.attrs, out);
            });
  table.add(ir::OpKind::kAdaptiveMaxPool2d,
            [](const ir::Node& node, const std::vector<const Tensor*>& in,
               const TensorType& out) -> Expected<Tensor> {
              return adaptive_pool2d(*in[0], /*is_max=*/true, node.attrs, out);
            });
}

}  // namespace inferno::reference::detail
