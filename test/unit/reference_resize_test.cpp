// The resizing reference kernels against definitions written here from PyTorch's documentation
// of F.interpolate: nearest takes source floor(dst * in / out) (or dst / scale with a scale
// factor) in float; bilinear interpolates the two neighbours of (dst + 0.5) * in / out - 0.5 (at
// least 0), or of dst * (in - 1) / (out - 1) with align_corners, in double. f32, f64 and f16; sizes
// up and down, a 1-wide output with align_corners, scale factors that differ from in / out.
#include <algorithm>
#include <cmath>
#include <string>

#include "ir/builder.h"
#include "reference/interpreter.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using ir::DType;
using ir::OpKind;

struct Resize {
  bool bilinear;
  bool align_corners;
  int64_t out_h, out_w;
  double scale_h = 0, scale_w = 0;
};

// The source coordinate of `dst` along a dim of `in` elements resized to `out`.
double source(const Resize& r, int64_t dst, int64_t in, int64_t out, double scale) {
  const double s = scale > 0 ? 1 / scale : static_cast<double>(in) / static_cast<double>(out);
  // nearest in float, as PyTorch computes it whatever the dtype: 3 * (1 / 1.5) is 2 in float but
  // just below 2 in double.
  if (!r.bilinear)
    return std::min(std::floor(static_cast<float>(dst) * static_cast<float>(s)), float(in - 1));
  if (r.align_corners)
    return out > 1 ? static_cast<double>(dst) * static_cast<double>(in - 1) / (out - 1) : 0.0;
  return std::max((static_cast<double>(dst) + 0.5) * s - 0.5, 0.0);
}

ir::Tensor naive(const Resize& r, const ir::Tensor& x, const ir::TensorType& out) {
  const int64_t planes = x.type.shape[0] * x.type.shape[1], ih = x.type.shape[2],
                iw = x.type.shape[3];
  ir::Tensor y = ir::Tensor::zeros(out);
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t h = 0; h < r.out_h; ++h) {
      for (int64_t w = 0; w < r.out_w; ++w) {
        const double sh = source(r, h, ih, r.out_h, r.scale_h);
        const double sw = source(r, w, iw, r.out_w, r.scale_w);
        auto at = [&](int64_t a, int64_t b) { return x.get((p * ih + a) * iw + b); };
        double v;
        if (!r.bilinear) {
          v = at(static_cast<int64_t>(sh), static_cast<int64_t>(sw));
        } else {
          const auto h0 = std::min(static_cast<int64_t>(sh), ih - 1),
                     w0 = std::min(static_cast<int64_t>(sw), iw - 1);
          const int64_t h1 = std::min(h0 + 1, ih - 1), w1 = std::min(w0 + 1, iw - 1);
          const double lh = std::min(sh - static_cast<double>(h0), 1.0),
                       lw = std::min(sw - static_cast<double>(w0), 1.0);
          v = (1 - lh) * ((1 - lw) * at(h0, w0) + lw * at(h0, w1)) +
              lh * ((1 - lw) * at(h1, w0) + lw * at(h1, w1));
        }
        y.set((p * r.out_h + h) * r.out_w + w, v);
      }
    }
  }
  return y;
}

void check(const Resize& r, DType dtype) {
  ir::Graph g;
  const ir::TensorType t{dtype, {2, 3, 5, 6}};
  const ir::ValueId x = g.add_input("x", t);
  ir::Attributes a;
  a.set("output_size", ir::IntList{r.out_h, r.out_w});
  a.set("scale_h", r.scale_h);
  a.set("scale_w", r.scale_w);
  if (r.bilinear) a.set("align_corners", r.align_corners);
  auto y = ir::build_value(g, r.bilinear ? OpKind::kUpsampleBilinear2d : OpKind::kUpsampleNearest2d,
                           {x}, a, "y");
  INFO((y ? "" : y.status().to_string()));
  REQUIRE(y.has_value());
  g.set_outputs({*y});
  const ir::Tensor in = test::random_tensor(t, 3);
  auto out = reference::evaluate(g, {in});
  REQUIRE(out.has_value());
  // Coordinates in float (PyTorch's) against double here: a few ulps of f32.
  const double rtol = dtype == DType::kF16 ? 1e-3 : 1e-5;
  const std::string mismatch = test::compare_close((*out)[0], naive(r, in, g.type(*y)), rtol, 1e-5);
  INFO(mismatch);
  CHECK(mismatch.empty());
}

TEST_CASE("upsampling matches its definition") {
  for (const DType dtype : {DType::kF32, DType::kF64, DType::kF16}) {
    for (const bool bilinear : {false, true}) {
      for (const bool align : {false, true}) {
        if (!bilinear && align) continue;
        INFO(ir::dtype_name(dtype)
             << (bilinear ? " bilinear" : " nearest") << (align ? " align_corners" : ""));
        check({bilinear, align, 10, 12}, dtype);          // twice the size
        check({bilinear, align, 7, 9}, dtype);            // up, not a multiple
        check({bilinear, align, 4, 3}, dtype);            // down
        check({bilinear, align, 1, 1}, dtype);            // one element
        check({bilinear, align, 7, 3, 1.5, 0.5}, dtype);  // the model's scale factors
      }
    }
  }
}

}  // namespace
}  // namespace inferno
