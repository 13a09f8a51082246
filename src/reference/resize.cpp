// Reference kernels of the resizing ops, with PyTorch's source-coordinate arithmetic
// (aten/src/ATen/native/UpSample.h): nearest in float, whatever the dtype, as PyTorch computes
// it; bilinear's coordinates in float (double for f64), the interpolation in double.
#include <algorithm>
#include <cmath>

#include "reference/kernels.h"
#include "support/check.h"

namespace inferno::reference::detail {
namespace {

// in / out, or 1 / scale when the model gave a scale factor.
template <typename A>
A source_scale(double scale, int64_t in, int64_t out) {
  return scale > 0 ? static_cast<A>(1.0 / scale) : static_cast<A>(in) / static_cast<A>(out);
}

int64_t nearest_source(int64_t dst, int64_t in, int64_t out, double scale) {
  if (out == in) return dst;
  if (out == 2 * in) return dst >> 1;
  const float f = std::floor(static_cast<float>(dst) * source_scale<float>(scale, in, out));
  // Clamped before the conversion, which a huge 1 / scale would overflow.
  return f < static_cast<float>(in - 1) ? static_cast<int64_t>(f) : in - 1;
}

// The two neighbours along one dim and the second one's weight.
struct Linear {
  int64_t i0, i1;
  double w1;
};

template <typename A>
Linear linear_source(int64_t dst, int64_t in, int64_t out, bool align_corners, double scale) {
  A s;
  A src;
  if (align_corners) {
    s = out > 1 ? static_cast<A>(in - 1) / static_cast<A>(out - 1) : A(0);
    src = s * static_cast<A>(dst);
  } else {
    s = source_scale<A>(scale, in, out);
    src = std::max(s * (static_cast<A>(dst) + A(0.5)) - A(0.5), A(0));
  }
  // Past the last element both neighbours are the last one (PyTorch clamps the same way); the
  // clamp also keeps a huge 1 / scale from overflowing the conversion.
  if (!(src < static_cast<A>(in - 1))) return {in - 1, in - 1, 0};
  const auto i0 = static_cast<int64_t>(src);
  const int64_t i1 = i0 < in - 1 ? i0 + 1 : i0;
  return {i0, i1, static_cast<double>(std::min(src - static_cast<A>(i0), A(1)))};
}

}  // namespace

Tensor upsample2d(const Tensor& x, bool bilinear, const ir::Attributes& attrs,
                  const TensorType& out) {
  const Shape& s = x.type.shape;
  INFERNO_CHECK(s.size() == 4 && out.shape.size() == 4, "upsample: not 4-D");
  const int64_t planes = s[0] * s[1], ih = s[2], iw = s[3], oh = out.shape[2], ow = out.shape[3];
  const double scale_h = attrs.get_float("scale_h"), scale_w = attrs.get_float("scale_w");
  const bool align = bilinear && attrs.get_bool("align_corners");
  const bool wide = x.type.dtype == ir::DType::kF64;  // bilinear coordinates in double
  Tensor y = Tensor::zeros(out);
  for (int64_t h = 0; h < oh; ++h) {
    for (int64_t w = 0; w < ow; ++w) {
      if (!bilinear) {
        const int64_t sh = nearest_source(h, ih, oh, scale_h),
                      sw = nearest_source(w, iw, ow, scale_w);
        for (int64_t p = 0; p < planes; ++p)
          store(y, (p * oh + h) * ow + w, x.get((p * ih + sh) * iw + sw));
        continue;
      }
      const Linear lh = wide ? linear_source<double>(h, ih, oh, align, scale_h)
                             : linear_source<float>(h, ih, oh, align, scale_h);
      const Linear lw = wide ? linear_source<double>(w, iw, ow, align, scale_w)
                             : linear_source<float>(w, iw, ow, align, scale_w);
      for (int64_t p = 0; p < planes; ++p) {
        auto at = [&](int64_t r, int64_t c) { return x.get((p * ih + r) * iw + c); };
        const double top = (1 - lw.w1) * at(lh.i0, lw.i0) + lw.w1 * at(lh.i0, lw.i1);
        const double bottom = (1 - lw.w1) * at(lh.i1, lw.i0) + lw.w1 * at(lh.i1, lw.i1);
        store(y, (p * oh + h) * ow + w, (1 - lh.w1) * top + lh.w1 * bottom);
      }
    }
  }
  return y;
}

void register_resize_kernels(KernelTable& table) {
  table.add(ir::OpKind::kUpsampleNearest2d,
            [](const ir::Node& node, const std::vector<const Tensor*>& in,
               const TensorType& out) -> Expected<Tensor> {
              return upsample2d(*in[0], /*bilinear=*/false, node.attrs, out);
            });
  table.add(ir::OpKind::kUpsampleBilinear2d,
            [](const ir::Node& node, const std::vector<const Tensor*>& in,
               const TensorType& out) -> Expected<Tensor> {
              return upsample2d(*in[0], /*bilinear=*/true, node.attrs, out);
            });
}

}  // namespace inferno::reference::detail
