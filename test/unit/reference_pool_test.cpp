// The pooling reference kernels against a naive definition written here from PyTorch's
// documentation: every tap of every window is enumerated and classified as inside the input,
// inside the padding or past the padded input; adaptive windows are computed with floor and
// ceil in double. f32, f64 and f16, with the edge cases: ceil_mode windows running into and past
// the padding, count_include_pad both ways, divisor_override, dilation, -inf padding for max (an
// all-negative input), NaN winning a max.
#include <cmath>
#include <limits>
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
using ir::OpKind;

struct Pool {
  OpKind op;
  IntList kernel{1, 1}, stride{1, 1}, padding{0, 0}, dilation{1, 1};
  bool ceil_mode = false, count_include_pad = true;
  int64_t divisor = 0;
  IntList output_size{1, 1};  // adaptive ops

  ir::Attributes attrs() const {
    ir::Attributes a;
    a.set("layout", std::string("nchw"));
    if (op == OpKind::kAdaptiveAvgPool2d || op == OpKind::kAdaptiveMaxPool2d) {
      a.set("output_size", output_size);
      return a;
    }
    a.set("kernel", kernel);
    a.set("stride", stride);
    a.set("padding", padding);
    a.set("ceil_mode", ceil_mode);
    if (op == OpKind::kMaxPool2d) {
      a.set("dilation", dilation);
    } else {
      a.set("count_include_pad", count_include_pad);
      a.set("divisor_override", divisor);
    }
    return a;
  }
};

// The naive definition: out[n, oh, ow] over the taps of its window.
ir::Tensor naive(const Pool& p, const ir::Tensor& x, const ir::TensorType& out_type) {
  const ir::Shape& s = x.type.shape;
  const int64_t H = s[s.size() - 2], W = s[s.size() - 1];
  const int64_t OH = out_type.shape[s.size() - 2], OW = out_type.shape[s.size() - 1];
  const int64_t planes = x.numel() / (H * W);
  const bool is_max = p.op == OpKind::kMaxPool2d || p.op == OpKind::kAdaptiveMaxPool2d;
  const bool adaptive = p.op == OpKind::kAdaptiveAvgPool2d || p.op == OpKind::kAdaptiveMaxPool2d;
  ir::Tensor y = ir::Tensor::zeros(out_type);
  for (int64_t n = 0; n < planes; ++n) {
    for (int64_t oh = 0; oh < OH; ++oh) {
      for (int64_t ow = 0; ow < OW; ++ow) {
        std::vector<double> inside;  // values of taps inside the input
        int64_t padded = 0;          // taps inside the padded input (input included)
        auto tap = [&](int64_t h, int64_t w) {
          const bool in_h = h >= 0 && h < H, in_w = w >= 0 && w < W;
          const bool pad_h = h >= -p.padding[0] && h < H + p.padding[0];
          const bool pad_w = w >= -p.padding[1] && w < W + p.padding[1];
          if (pad_h && pad_w) ++padded;
          if (in_h && in_w) inside.push_back(x.get((n * H + h) * W + w));
        };
        if (adaptive) {
          const auto lo = [](int64_t i, int64_t in, int64_t o) {
            return static_cast<int64_t>(std::floor(static_cast<double>(i * in) / o));
          };
          const auto hi = [](int64_t i, int64_t in, int64_t o) {
            return static_cast<int64_t>(std::ceil(static_cast<double>((i + 1) * in) / o));
          };
          for (int64_t h = lo(oh, H, OH); h < hi(oh, H, OH); ++h)
            for (int64_t w = lo(ow, W, OW); w < hi(ow, W, OW); ++w) tap(h, w);
        } else {
          for (int64_t kh = 0; kh < p.kernel[0]; ++kh)
            for (int64_t kw = 0; kw < p.kernel[1]; ++kw)
              tap(oh * p.stride[0] - p.padding[0] + kh * p.dilation[0],
                  ow * p.stride[1] - p.padding[1] + kw * p.dilation[1]);
        }
        double v;
        if (is_max) {
          v = -std::numeric_limits<double>::infinity();  // padding is -inf
          for (double e : inside) v = (std::isnan(v) || std::isnan(e)) ? NAN : std::max(v, e);
        } else {
          double sum = 0;
          for (double e : inside) sum += e;
          const double count = p.divisor != 0        ? static_cast<double>(p.divisor)
                               : adaptive            ? static_cast<double>(inside.size())
                               : p.count_include_pad ? static_cast<double>(padded)
                                                     : static_cast<double>(inside.size());
          v = sum / count;
        }
        y.set((n * OH + oh) * OW + ow, v);
      }
    }
  }
  return y;
}

// Pools x (of `dtype`, values from `fill` or random) on the reference and naively; compares.
void check(const Pool& p, ir::TensorType in_type, double special = 0, int64_t special_at = -1) {
  ir::Graph g;
  const ir::ValueId xv = g.add_input("x", in_type);
  auto y = ir::build_value(g, p.op, {xv}, p.attrs(), "y");
  INFO(ir::op_name(p.op) << " on " << in_type.to_string() << ": "
                         << (y ? "" : y.status().to_string()));
  REQUIRE(y.has_value());
  g.set_outputs({*y});
  ir::Tensor x = test::random_tensor(in_type, 7);
  if (special_at >= 0) x.set(special_at, special);
  auto out = reference::evaluate(g, {x});
  REQUIRE(out.has_value());
  const ir::Tensor expected = naive(p, x, g.type(*y));
  // The reference sums in double and rounds once; f16 keeps ~3 decimal digits.
  const double rtol = in_type.dtype == DType::kF16 ? 1e-3 : 1e-6;
  const std::string mismatch = test::compare_close((*out)[0], expected, rtol, 1e-6);
  INFO(mismatch);
  CHECK(mismatch.empty());
}

std::vector<Pool> fixed_cases() {
  using K = OpKind;
  std::vector<Pool> cases;
  for (const OpKind op : {K::kMaxPool2d, K::kAvgPool2d}) {
    for (const bool ceil_mode : {false, true}) {
      for (const bool include : {false, true}) {
        if (op == K::kMaxPool2d && !include) continue;  // no count_include_pad for max
        Pool p{op};
        p.ceil_mode = ceil_mode;
        p.count_include_pad = include;
        p.kernel = {3, 3}, p.stride = {2, 2}, p.padding = {1, 1};
        cases.push_back(p);  // 8 -> 4 (ceil: 5 -> windows starting in the left padding)
        p.kernel = {3, 2}, p.stride = {2, 3}, p.padding = {0, 1};
        cases.push_back(p);  // ceil: the last window runs past the input
        p.kernel = {2, 2}, p.stride = {3, 3}, p.padding = {1, 1};
        cases.push_back(p);  // ceil: a window that would start in the right padding is dropped
      }
    }
  }
  Pool dilated{K::kMaxPool2d};
  dilated.kernel = {2, 3}, dilated.padding = {1, 1}, dilated.dilation = {2, 3};
  dilated.stride = {1, 2};
  cases.push_back(dilated);
  dilated.ceil_mode = true;
  cases.push_back(dilated);
  for (const int64_t divisor : {int64_t{5}, int64_t{-2}}) {
    Pool avg{K::kAvgPool2d};
    avg.kernel = {3, 3}, avg.stride = {2, 2}, avg.padding = {1, 1}, avg.ceil_mode = true;
    avg.divisor = divisor;
    cases.push_back(avg);
  }
  return cases;
}

TEST_CASE("max_pool2d and avg_pool2d match the naive definition") {
  for (const DType dtype : {DType::kF32, DType::kF64, DType::kF16}) {
    for (const Pool& p : fixed_cases()) {
      check(p, {dtype, {2, 3, 8, 8}});
      check(p, {dtype, {3, 7, 9}});
    }
  }
}

TEST_CASE("adaptive pooling matches the naive definition") {
  for (const DType dtype : {DType::kF32, DType::kF64, DType::kF16}) {
    for (const OpKind op : {OpKind::kAdaptiveAvgPool2d, OpKind::kAdaptiveMaxPool2d}) {
      for (const IntList& size : {IntList{1, 1}, IntList{3, 5}, IntList{7, 7}, IntList{4, 2},
                                  IntList{9, 10}, IntList{0, 3}}) {
        Pool p{op};
        p.output_size = size;
        check(p, {dtype, {2, 3, 7, 7}});
        check(p, {dtype, {3, 5, 6}});
      }
    }
  }
}

TEST_CASE("max pooling pads with -inf and lets NaN win") {
  // An all-negative input: a padded window's max is an input value, not 0.
  Pool p{OpKind::kMaxPool2d};
  p.kernel = {3, 3}, p.stride = {2, 2}, p.padding = {1, 1};
  ir::Graph g;
  const ir::TensorType t{DType::kF32, {1, 1, 3, 3}};
  const ir::ValueId x = g.add_input("x", t);
  auto y = ir::build_value(g, p.op, {x}, p.attrs(), "y");
  REQUIRE(y.has_value());
  g.set_outputs({*y});
  ir::Tensor in = ir::Tensor::zeros(t);
  for (int64_t i = 0; i < 9; ++i) in.set(i, -1.0 - static_cast<double>(i));
  auto out = reference::evaluate(g, {in});
  REQUIRE(out.has_value());
  CHECK((*out)[0].get(0) == -1.0);  // window rows/cols -1..1: max of -1, -2, -4, -5
  CHECK((*out)[0].get(3) == -5.0);  // window rows/cols 1..3: -5, -6, -8, -9
  // NaN anywhere in a window makes that window NaN, in both max ops.
  check(p, {DType::kF32, {1, 2, 5, 5}}, NAN, 12);
  Pool a{OpKind::kAdaptiveMaxPool2d};
  a.output_size = {2, 2};
  check(a, {DType::kF32, {1, 2, 5, 5}}, NAN, 0);
  check(a, {DType::kF16, {1, 2, 5, 5}}, -INFINITY, 6);
}

}  // namespace
}  // namespace inferno
