// conv2d in the reference interpreter against a naive definition written here (seven nested loops,
// one output element at a time, padding by bounds checks): stride, asymmetric padding, dilation,
// groups, depthwise, bias and no bias, on f32, f64, f16 and bf16; and a tile boundary (more output
// positions than one im2col tile holds); conv_transpose2d against its gather definition.
#include <string>
#include <vector>

#include "ir/builder.h"
#include "reference/interpreter.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using ir::DType;
using ir::IntList;
using ir::Shape;
using ir::Tensor;
using ir::TensorType;

struct Conv {
  Shape x, w;
  bool bias;
  IntList stride, padding, dilation;  ///< padding: top, left, bottom, right
  int64_t groups;
};

/// conv2d from its definition, in double, rounded once to the output dtype.
Tensor naive_conv(const Tensor& x, const Tensor& w, const Tensor* b, const Conv& c,
                  const TensorType& out) {
  const int64_t n_size = c.x[0], ch = c.x[1], h = c.x[2], wd = c.x[3];
  const int64_t o_size = c.w[0], cg = c.w[1], kh = c.w[2], kw = c.w[3];
  const int64_t oh = out.shape[2], ow = out.shape[3], og = o_size / c.groups;
  Tensor y = Tensor::zeros(out);
  for (int64_t n = 0; n < n_size; ++n) {
    for (int64_t o = 0; o < o_size; ++o) {
      for (int64_t yy = 0; yy < oh; ++yy) {
        for (int64_t xx = 0; xx < ow; ++xx) {
          double acc = 0;
          for (int64_t ci = 0; ci < cg; ++ci) {
            const int64_t channel = (o / og) * cg + ci;
            for (int64_t ky = 0; ky < kh; ++ky) {
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t iy = yy * c.stride[0] - c.padding[0] + ky * c.dilation[0];
                const int64_t ix = xx * c.stride[1] - c.padding[1] + kx * c.dilation[1];
                if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
                acc += x.get(((n * ch + channel) * h + iy) * wd + ix) *
                       w.get(((o * cg + ci) * kh + ky) * kw + kx);
              }
            }
          }
          if (b != nullptr) acc += b->get(o);
          y.set(((n * o_size + o) * oh + yy) * ow + xx, acc);
        }
      }
    }
  }
  return y;
}

void check_conv(const Conv& c, DType dtype, uint64_t seed) {
  ir::Graph g;
  std::vector<Tensor> inputs = {test::random_tensor({dtype, c.x}, seed),
                                test::random_tensor({dtype, c.w}, seed + 1)};
  if (c.bias) inputs.push_back(test::random_tensor({dtype, {c.w[0]}}, seed + 2));
  std::vector<ir::ValueId> ids;
  for (const Tensor& t : inputs) ids.push_back(g.add_input("in", t.type));
  ir::Attributes attrs;
  attrs.set("stride", c.stride);
  attrs.set("padding", c.padding);
  attrs.set("dilation", c.dilation);
  attrs.set("groups", c.groups);
  Expected<ir::ValueId> out = ir::build_value(g, ir::OpKind::kConv2d, ids, attrs, "out");
  INFO((out ? std::string() : out.status().to_string()));
  REQUIRE(out.has_value());
  g.set_outputs({*out});
  Expected<std::vector<Tensor>> got = reference::evaluate(g, inputs);
  INFO((got ? std::string() : got.status().to_string()));
  REQUIRE(got.has_value());
  const Tensor expected =
      naive_conv(inputs[0], inputs[1], c.bias ? &inputs[2] : nullptr, c, g.type(*out));
  // Both sum in double (in different orders only where the naive loop skips padding), so the
  // results agree to double rounding before the one rounding to the dtype: equal after it but
  // for rare ties, which a relative 1e-12 (or one f16/bf16 ulp) covers.
  const double rtol = dtype == DType::kF16 ? 1e-3 : dtype == DType::kBF16 ? 8e-3 : 1e-12;
  const std::string mismatch = test::compare_close((*got)[0], expected, rtol, 1e-12);
  INFO(mismatch);
  CHECK(mismatch.empty());
}

TEST_CASE("conv2d matches its definition") {
  const std::vector<Conv> convs = {
      {{1, 3, 8, 8}, {4, 3, 3, 3}, true, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1},    // 3x3, padding 1
      {{2, 3, 7, 9}, {5, 3, 3, 3}, false, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1},   // no padding, no bias
      {{1, 4, 6, 6}, {6, 4, 1, 1}, true, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1},    // 1x1
      {{2, 3, 9, 8}, {4, 3, 3, 3}, true, {2, 2}, {1, 1, 1, 1}, {1, 1}, 1},    // stride 2
      {{1, 2, 9, 9}, {3, 2, 3, 2}, false, {2, 1}, {2, 0, 1, 3}, {1, 1}, 1},   // asymmetric
      {{1, 2, 9, 10}, {3, 2, 3, 3}, true, {1, 1}, {2, 2, 2, 2}, {2, 3}, 1},   // dilated
      {{2, 4, 6, 6}, {6, 2, 3, 3}, true, {1, 1}, {1, 1, 1, 1}, {1, 1}, 2},    // groups 2
      {{1, 6, 7, 7}, {6, 1, 3, 3}, false, {2, 2}, {1, 1, 1, 1}, {1, 1}, 6},   // depthwise
      {{1, 3, 5, 5}, {6, 1, 3, 3}, true, {1, 1}, {1, 1, 1, 1}, {1, 1}, 3},    // multiplier 2
      {{1, 1, 3, 3}, {1, 1, 3, 3}, false, {1, 1}, {5, 5, 5, 5}, {1, 1}, 1},   // mostly padding
      {{1, 3, 1, 20}, {4, 3, 1, 5}, true, {1, 3}, {0, 2, 0, 2}, {1, 2}, 1},   // conv1d-shaped
      {{0, 3, 5, 5}, {4, 3, 3, 3}, true, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1},    // empty batch
      {{1, 2, 70, 70}, {9, 2, 2, 2}, true, {1, 1}, {0, 0, 1, 1}, {1, 1}, 1},  // several tiles
  };
  uint64_t seed = 1;
  for (const Conv& c : convs) {
    for (const DType dtype : {DType::kF32, DType::kF64, DType::kF16, DType::kBF16}) {
      INFO("x " << ir::shape_to_string(c.x) << " w " << ir::shape_to_string(c.w) << " "
                << ir::dtype_name(dtype));
      check_conv(c, dtype, seed += 3);
    }
  }
}

struct ConvT {
  Shape x, w;  ///< w: [C, O / groups, kh, kw]
  bool bias;
  IntList stride, padding, output_padding, dilation;
  int64_t groups;
};

/// conv_transpose2d from its gather definition: output (y, x) sums x[iy, ix] * w[.., ky, kx]
/// over the taps with y = iy * s - p + ky * d (and likewise for x).
Tensor naive_conv_transpose(const Tensor& x, const Tensor& w, const Tensor* b, const ConvT& c,
                            const TensorType& out) {
  const int64_t ch = c.x[1], h = c.x[2], wd = c.x[3], og = c.w[1], kh = c.w[2], kw = c.w[3];
  const int64_t cg = ch / c.groups, o_size = out.shape[1], oh = out.shape[2], ow = out.shape[3];
  Tensor y = Tensor::zeros(out);
  for (int64_t n = 0; n < out.shape[0]; ++n) {
    for (int64_t o = 0; o < o_size; ++o) {
      for (int64_t yy = 0; yy < oh; ++yy) {
        for (int64_t xx = 0; xx < ow; ++xx) {
          double acc = 0;
          for (int64_t ci = (o / og) * cg; ci < (o / og + 1) * cg; ++ci) {
            for (int64_t ky = 0; ky < kh; ++ky) {
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t ty = yy + c.padding[0] - ky * c.dilation[0];
                const int64_t tx = xx + c.padding[1] - kx * c.dilation[1];
                if (ty < 0 || tx < 0 || ty % c.stride[0] != 0 || tx % c.stride[1] != 0) continue;
                const int64_t iy = ty / c.stride[0], ix = tx / c.stride[1];
                if (iy >= h || ix >= wd) continue;
                acc += x.get(((n * ch + ci) * h + iy) * wd + ix) *
                       w.get(((ci * og + o % og) * kh + ky) * kw + kx);
              }
            }
          }
          if (b != nullptr) acc += b->get(o);
          y.set(((n * o_size + o) * oh + yy) * ow + xx, acc);
        }
      }
    }
  }
  return y;
}

TEST_CASE("conv_transpose2d matches its definition") {
  const std::vector<ConvT> convs = {
      {{1, 3, 4, 4}, {3, 2, 3, 3}, true, {1, 1}, {0, 0}, {0, 0}, {1, 1}, 1},   // stride 1
      {{2, 3, 4, 5}, {3, 4, 3, 3}, true, {2, 2}, {1, 1}, {1, 1}, {1, 1}, 1},   // stride 2
      {{1, 2, 3, 3}, {2, 3, 2, 2}, false, {2, 2}, {0, 0}, {0, 0}, {1, 1}, 1},  // 2x2 stride 2
      {{1, 4, 3, 4}, {4, 2, 3, 2}, true, {2, 1}, {1, 0}, {1, 0}, {1, 2}, 2},   // groups, dilation
      {{1, 4, 5, 5}, {4, 1, 3, 3}, false, {1, 1}, {1, 1}, {0, 0}, {1, 1}, 4},  // depthwise
      {{1, 3, 1, 9}, {3, 2, 1, 4}, true, {1, 3}, {0, 2}, {0, 2}, {1, 1}, 1},   // conv1d-shaped
  };
  uint64_t seed = 101;
  for (const ConvT& c : convs) {
    for (const DType dtype : {DType::kF32, DType::kF64, DType::kF16, DType::kBF16}) {
      INFO("x " << ir::shape_to_string(c.x) << " w " << ir::shape_to_string(c.w) << " "
                << ir::dtype_name(dtype));
      ir::Graph g;
      std::vector<Tensor> inputs = {test::random_tensor({dtype, c.x}, seed += 3),
                                    test::random_tensor({dtype, c.w}, seed + 1)};
      if (c.bias) inputs.push_back(test::random_tensor({dtype, {c.w[1] * c.groups}}, seed + 2));
      std::vector<ir::ValueId> ids;
      for (const Tensor& t : inputs) ids.push_back(g.add_input("in", t.type));
      ir::Attributes attrs;
      attrs.set("stride", c.stride);
      attrs.set("padding", c.padding);
      attrs.set("output_padding", c.output_padding);
      attrs.set("dilation", c.dilation);
      attrs.set("groups", c.groups);
      Expected<ir::ValueId> out = ir::build_value(g, ir::OpKind::kConvTranspose2d, ids, attrs, "y");
      INFO((out ? std::string() : out.status().to_string()));
      REQUIRE(out.has_value());
      g.set_outputs({*out});
      Expected<std::vector<Tensor>> got = reference::evaluate(g, inputs);
      INFO((got ? std::string() : got.status().to_string()));
      REQUIRE(got.has_value());
      const Tensor expected = naive_conv_transpose(inputs[0], inputs[1],
                                                   c.bias ? &inputs[2] : nullptr, c, g.type(*out));
      const double rtol = dtype == DType::kF16 ? 1e-3 : dtype == DType::kBF16 ? 8e-3 : 1e-12;
      const std::string mismatch = test::compare_close((*got)[0], expected, rtol, 1e-12);
      INFO(mismatch);
      CHECK(mismatch.empty());
    }
  }
}

}  // namespace
}  // namespace inferno
