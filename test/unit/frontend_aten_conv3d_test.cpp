// 3-D convolutions in the ATen table (aten::conv3d, and aten::_convolution with a 5-D weight):
// lowered to one conv2d per temporal tap and run on the reference, against a direct 3-D
// convolution written here (seven nested loops in double), for strides, paddings (integers and
// "same"), dilations, groups, a bias, an unbatched input and a kernel of one frame. What stays
// unsupported says so.
#include <cmath>
#include <string>
#include <vector>

#include "frontend/aten_table.h"
#include "reference/interpreter.h"
#include "support/catch.h"

namespace inferno::frontend {
namespace {

using ir::DType;
using ir::ValueId;

struct Conv3dCase {
  ir::Shape x, w;  // x [N, C, T, H, W] (or [C, T, H, W]), w [Co, C/g, KT, KH, KW]
  std::vector<int64_t> stride, padding, dilation;
  int64_t groups;
  bool bias;
  std::string same_or_valid;  // non-empty: the string padding instead of `padding`
};

ir::Tensor filled(ir::Shape shape, double scale) {
  ir::Tensor t = ir::Tensor::zeros({DType::kF32, std::move(shape)});
  // Values in [-1, 1) that differ from element to element.
  for (int64_t k = 0; k < t.numel(); ++k)
    t.set(k, scale * std::sin(0.37 * static_cast<double>(k) + 0.1));
  return t;
}

// The direct convolution: out[n, o, t, h, w] = bias[o] + sum over c (of o's group), kt, kh, kw.
std::vector<double> direct(const ir::Tensor& x, const ir::Tensor& w, const ir::Tensor* bias,
                           const int64_t (&stride)[3], const int64_t (&before)[3],
                           const int64_t (&dilation)[3], int64_t groups, const ir::Shape& out) {
  const ir::Shape& xs = x.type.shape;
  const ir::Shape& ws = w.type.shape;
  const int64_t n_ = xs[0], c_ = xs[1], t_ = xs[2], h_ = xs[3], w_ = xs[4];
  const int64_t co = ws[0], cg = ws[1], kt = ws[2], kh = ws[3], kw = ws[4];
  std::vector<double> y;
  for (int64_t n = 0; n < n_; ++n)
    for (int64_t o = 0; o < co; ++o)
      for (int64_t t = 0; t < out[2]; ++t)
        for (int64_t h = 0; h < out[3]; ++h)
          for (int64_t q = 0; q < out[4]; ++q) {
            double sum = bias != nullptr ? bias->get(o) : 0.0;
            const int64_t g = o / (co / groups);
            for (int64_t ci = 0; ci < cg; ++ci)
              for (int64_t a = 0; a < kt; ++a)
                for (int64_t b = 0; b < kh; ++b)
                  for (int64_t d = 0; d < kw; ++d) {
                    const int64_t it = t * stride[0] - before[0] + a * dilation[0];
                    const int64_t ih = h * stride[1] - before[1] + b * dilation[1];
                    const int64_t iw = q * stride[2] - before[2] + d * dilation[2];
                    if (it < 0 || it >= t_ || ih < 0 || ih >= h_ || iw < 0 || iw >= w_) continue;
                    const int64_t c = g * cg + ci;
                    sum += x.get((((n * c_ + c) * t_ + it) * h_ + ih) * w_ + iw) *
                           w.get((((o * cg + ci) * kt + a) * kh + b) * kw + d);
                  }
            y.push_back(sum);
          }
  return y;
}

void check_conv3d(const Conv3dCase& k) {
  ir::Graph g;
  std::vector<ir::Tensor> values = {filled(k.x, 1.0), filled(k.w, 0.5)};
  std::vector<ValueId> in = {g.add_input("x", values[0].type), g.add_input("w", values[1].type)};
  AtenArg bias = NoneArg{};
  if (k.bias) {
    values.push_back(filled({k.w[0]}, 0.25));
    in.push_back(g.add_input("b", values.back().type));
    bias = in.back();
  }
  AtenArg padding = k.padding;
  if (!k.same_or_valid.empty()) padding = k.same_or_valid;
  AtenCall call{"aten::conv3d",
                k.same_or_valid.empty() ? "" : "padding",
                {in[0], in[1], bias, k.stride, padding, k.dilation, k.groups},
                {},
                "conv",
                {"m.py", 7}};
  auto out = lower_aten_call(g, call);
  INFO((out ? std::string() : out.status().to_string()));
  REQUIRE(out.has_value());
  g.set_outputs(*out);
  auto result = reference::evaluate(g, values);
  INFO((result ? std::string() : result.status().to_string()));
  REQUIRE(result.has_value());
  const ir::Tensor& y = result->at(0);

  // The same on the batched input, by the direct loops.
  ir::Tensor x5 = values[0];
  if (x5.type.shape.size() == 4) x5.type.shape.insert(x5.type.shape.begin(), 1);
  int64_t stride[3], before[3], dilation[3];
  for (int i = 0; i < 3; ++i) {
    stride[i] = k.stride[static_cast<size_t>(i)];
    dilation[i] = k.dilation[static_cast<size_t>(i)];
    before[i] = k.same_or_valid == "same" ? dilation[i] * (k.w[2 + static_cast<size_t>(i)] - 1) / 2
                : k.same_or_valid == "valid" ? 0
                                             : k.padding[static_cast<size_t>(i)];
  }
  ir::Shape out_shape = {x5.type.shape[0], k.w[0], 0, 0, 0};
  for (size_t i = 0; i < 3; ++i) {
    const int64_t span = dilation[i] * (k.w[2 + i] - 1) + 1;
    const int64_t total = k.same_or_valid == "same" ? x5.type.shape[2 + i] - 1 + span
                                                    : x5.type.shape[2 + i] + 2 * before[i];
    out_shape[2 + i] = (total - span) / stride[i] + 1;
  }
  const std::vector<double> want = direct(x5, values[1], k.bias ? &values[2] : nullptr, stride,
                                          before, dilation, k.groups, out_shape);
  ir::Shape expected_shape = out_shape;
  if (k.x.size() == 4) expected_shape.erase(expected_shape.begin());
  CHECK(y.type.shape == expected_shape);
  REQUIRE(y.numel() == static_cast<int64_t>(want.size()));
  // f32 sums of up to a few hundred terms of magnitude <= 0.5, in another order than the loops.
  for (int64_t i = 0; i < y.numel(); ++i) {
    INFO(i);
    CHECK(std::fabs(y.get(i) - want[static_cast<size_t>(i)]) <=
          1e-5 + 1.3e-6 * std::fabs(want[static_cast<size_t>(i)]));
  }
}

}  // namespace

TEST_CASE("aten conv3d: one conv2d per temporal tap matches a direct 3-D convolution",
          "[frontend][aten]") {
  // r3d_18's stem shape (3 x 7 x 7, stride 1 x 2 x 2, padding 1 x 3 x 3), small.
  check_conv3d({{1, 3, 4, 9, 9}, {4, 3, 3, 7, 7}, {1, 2, 2}, {1, 3, 3}, {1, 1, 1}, 1, false, ""});
  // A block's 3 x 3 x 3 with a time stride of 2 and a bias, batch 2.
  check_conv3d({{2, 4, 5, 6, 6}, {6, 4, 3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, 1, true, ""});
  // A 1 x 1 x 1 downsample (one tap, no padding).
  check_conv3d({{1, 4, 4, 6, 6}, {8, 4, 1, 1, 1}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}, 1, false, ""});
  // Dilation in time and space, groups, uneven padding per dim.
  check_conv3d({{1, 4, 7, 8, 8}, {6, 2, 2, 3, 3}, {1, 1, 2}, {2, 1, 0}, {3, 2, 1}, 2, true, ""});
  // r2plus1d's (1 x 3 x 3) spatial and (3 x 1 x 1) temporal halves.
  check_conv3d({{1, 3, 4, 8, 8}, {5, 3, 1, 3, 3}, {1, 1, 1}, {0, 1, 1}, {1, 1, 1}, 1, false, ""});
  check_conv3d({{1, 5, 4, 8, 8}, {3, 5, 3, 1, 1}, {1, 1, 1}, {1, 0, 0}, {1, 1, 1}, 1, false, ""});
  // An unbatched input, and the string paddings.
  check_conv3d({{3, 4, 6, 6}, {2, 3, 3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, 1, true, ""});
  check_conv3d({{1, 2, 5, 6, 6}, {3, 2, 4, 3, 2}, {1, 1, 1}, {}, {2, 1, 1}, 1, false, "same"});
  check_conv3d({{1, 2, 5, 6, 6}, {3, 2, 2, 3, 3}, {1, 1, 1}, {}, {1, 1, 1}, 1, true, "valid"});
}

TEST_CASE("aten conv3d: what it refuses says why", "[frontend][aten]") {
  ir::Graph g;
  const ValueId x = g.add_input("x", {DType::kF32, {1, 2, 2, 5, 5}});
  const ValueId w = g.add_input("w", {DType::kF32, {3, 2, 3, 3, 3}});
  // Two frames, no padding, a kernel of three: no output frame.
  AtenCall call{"aten::conv3d",
                "",
                {x, w, NoneArg{}, std::vector<int64_t>{1}, std::vector<int64_t>{0},
                 std::vector<int64_t>{1}, int64_t{1}},
                {},
                "conv",
                {"m.py", 9}};
  auto out = lower_aten_call(g, call);
  REQUIRE_FALSE(out.has_value());
  CHECK(out.status().message().find("frames (padded) are fewer than the kernel spans") !=
        std::string::npos);
  // A transposed 3-D convolution.
  AtenCall transposed{"aten::convolution",
                      "",
                      {x, w, NoneArg{}, std::vector<int64_t>{1}, std::vector<int64_t>{0},
                       std::vector<int64_t>{1}, true, std::vector<int64_t>{0}, int64_t{1}},
                      {},
                      "deconv",
                      {"m.py", 10}};
  auto refused = lower_aten_call(g, transposed);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.status().code() == ErrorCode::kUnsupported);
  CHECK(refused.status().message().find("3-D transposed convolutions are not supported") !=
        std::string::npos);
}

}  // namespace inferno::frontend
