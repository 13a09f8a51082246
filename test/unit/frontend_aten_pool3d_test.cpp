// 3-D pooling in the ATen table (aten_pool3d.cpp): max_pool3d and avg_pool3d lowered to 2-D pools
// over the frames and a combination over each temporal window, run on the reference against a
// direct 3-D pool written here (windows walked element by element in double, with PyTorch's
// padding, dilation, ceil_mode and divisor rules); adaptive_avg_pool3d to one value. What stays
// unsupported says so.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "frontend/aten_table.h"
#include "reference/interpreter.h"
#include "support/catch.h"

namespace inferno::frontend {
namespace {

using ir::DType;
using ir::ValueId;

struct PoolCase {
  bool max;
  ir::Shape x;                                             // [N, C, T, H, W] or [C, T, H, W]
  std::vector<int64_t> kernel, stride, padding, dilation;  // dilation: max only
  bool ceil_mode, count_include_pad;
  int64_t divisor_override;  // 0: none
};

int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  const int64_t room = in + 2 * p - d * (k - 1) - 1;
  int64_t out = (ceil_mode ? (room + s - 1) / s : room / s) + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

// PyTorch's pools over one window, element by element.
std::vector<double> direct(const ir::Tensor& x, const PoolCase& k, ir::Shape& shape) {
  const ir::Shape& s = x.type.shape;  // batched
  shape = {s[0], s[1]};
  for (size_t i = 0; i < 3; ++i)
    shape.push_back(out_size(s[2 + i], k.kernel[i], k.stride[i], k.padding[i],
                             k.max ? k.dilation[i] : 1, k.ceil_mode));
  std::vector<double> y;
  for (int64_t n = 0; n < s[0]; ++n)
    for (int64_t c = 0; c < s[1]; ++c)
      for (int64_t t = 0; t < shape[2]; ++t)
        for (int64_t h = 0; h < shape[3]; ++h)
          for (int64_t w = 0; w < shape[4]; ++w) {
            const int64_t o[3] = {t, h, w};
            int64_t start[3], end[3], pad_end[3];
            for (size_t i = 0; i < 3; ++i) {
              const int64_t d = k.max ? k.dilation[i] : 1;
              start[i] = o[i] * k.stride[i] - k.padding[i];
              end[i] = start[i] + d * (k.kernel[i] - 1) + 1;
              pad_end[i] = std::min(end[i], s[2 + i] + k.padding[i]);
            }
            double best = -std::numeric_limits<double>::infinity(), sum = 0;
            int64_t count = 0;
            for (int64_t a = start[0]; a < end[0]; a += k.max ? k.dilation[0] : 1)
              for (int64_t b = start[1]; b < end[1]; b += k.max ? k.dilation[1] : 1)
                for (int64_t e = start[2]; e < end[2]; e += k.max ? k.dilation[2] : 1) {
                  if (a < 0 || a >= s[2] || b < 0 || b >= s[3] || e < 0 || e >= s[4]) continue;
                  const double v = x.get((((n * s[1] + c) * s[2] + a) * s[3] + b) * s[4] + e);
                  best = std::max(best, v);
                  sum += v;
                  ++count;
                }
            if (k.max) {
              y.push_back(best);
              continue;
            }
            // The divisor: the override, else the window clipped to the padded input (with
            // count_include_pad) or to the input.
            int64_t divisor = k.divisor_override;
            if (divisor == 0 && k.count_include_pad) {
              divisor = 1;
              for (size_t i = 0; i < 3; ++i) divisor *= pad_end[i] - start[i];
            } else if (divisor == 0) {
              divisor = count;
            }
            y.push_back(sum / static_cast<double>(divisor));
          }
  return y;
}

void check_pool(const PoolCase& k) {
  ir::Graph g;
  ir::Tensor t = ir::Tensor::zeros({DType::kF32, k.x});
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, std::sin(0.61 * static_cast<double>(i) + 0.3));
  const ValueId x = g.add_input("x", t.type);
  AtenCall call =
      k.max ? AtenCall{"aten::max_pool3d",
                       "",
                       {x, k.kernel, k.stride, k.padding, k.dilation, k.ceil_mode},
                       {},
                       "pool",
                       {"m.py", 3}}
            : AtenCall{"aten::avg_pool3d",
                       "",
                       {x, k.kernel, k.stride, k.padding, k.ceil_mode, k.count_include_pad,
                        k.divisor_override == 0 ? AtenArg{NoneArg{}} : AtenArg{k.divisor_override}},
                       {},
                       "pool",
                       {"m.py", 3}};
  auto out = lower_aten_call(g, call);
  INFO((out ? std::string() : out.status().to_string()));
  REQUIRE(out.has_value());
  g.set_outputs({out->at(0)});
  auto result = reference::evaluate(g, {t});
  INFO((result ? std::string() : result.status().to_string()));
  REQUIRE(result.has_value());
  ir::Tensor x5 = t;
  if (x5.type.shape.size() == 4) x5.type.shape.insert(x5.type.shape.begin(), 1);
  ir::Shape shape;
  const std::vector<double> want = direct(x5, k, shape);
  if (k.x.size() == 4) shape.erase(shape.begin());
  const ir::Tensor& y = result->at(0);
  CHECK(y.type.shape == shape);
  REQUIRE(y.numel() == static_cast<int64_t>(want.size()));
  for (int64_t i = 0; i < y.numel(); ++i) {
    INFO(i);
    // max: exact; avg: f32 sums of a few dozen values in another order, then one division.
    CHECK(std::fabs(y.get(i) - want[static_cast<size_t>(i)]) <=
          (k.max ? 0.0 : 1e-6 + 1.3e-6 * std::fabs(want[static_cast<size_t>(i)])));
  }
}

}  // namespace

TEST_CASE("aten max_pool3d: 2-D pools over the frames and a maximum over each window",
          "[frontend][aten]") {
  // S3D's: (1, 3, 3) stride (1, 2, 2) padding (0, 1, 1); (3, 3, 3) stride 1 padding 1;
  // (2, 2, 2) stride 2.
  check_pool({true, {1, 2, 4, 9, 9}, {1, 3, 3}, {1, 2, 2}, {0, 1, 1}, {1, 1, 1}, false, true, 0});
  check_pool({true, {2, 3, 5, 6, 6}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, false, true, 0});
  check_pool({true, {1, 2, 6, 8, 8}, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}, false, true, 0});
  // ceil_mode with a last window past the end, dilation in time, an unbatched input.
  check_pool({true, {1, 2, 7, 7, 7}, {2, 3, 3}, {2, 2, 2}, {1, 1, 0}, {1, 1, 1}, true, true, 0});
  check_pool({true, {2, 7, 5, 5}, {2, 2, 2}, {1, 1, 1}, {1, 0, 1}, {2, 1, 1}, false, true, 0});
}

TEST_CASE("aten avg_pool3d: 2-D averages over the frames and a mean over each window",
          "[frontend][aten]") {
  // S3D's head: (2, 7, 7), stride 1.
  check_pool({false, {1, 3, 3, 7, 7}, {2, 7, 7}, {1, 1, 1}, {0, 0, 0}, {}, false, true, 0});
  // Spatial padding with and without count_include_pad, ceil_mode in space, a divisor override.
  check_pool({false, {2, 2, 4, 7, 7}, {2, 3, 3}, {2, 2, 2}, {0, 1, 1}, {}, false, true, 0});
  check_pool({false, {2, 2, 4, 7, 7}, {2, 3, 3}, {2, 2, 2}, {0, 1, 1}, {}, true, false, 0});
  check_pool({false, {2, 5, 6, 6}, {3, 2, 2}, {1, 2, 2}, {0, 1, 0}, {}, false, true, 5});
}

TEST_CASE("aten 3-D pools: what they refuse says why", "[frontend][aten]") {
  ir::Graph g;
  const ValueId x = g.add_input("x", {DType::kF32, {1, 2, 5, 6, 6}});
  const std::vector<int64_t> two = {2, 2, 2}, one = {1, 1, 1};
  auto padded = lower_aten_call(
      g,
      {"aten::avg_pool3d", "", {x, two, two, one, false, true, NoneArg{}}, {}, "avg", {"m.py", 4}});
  REQUIRE_FALSE(padded.has_value());
  CHECK(padded.status().code() == ErrorCode::kUnsupported);
  CHECK(padded.status().message().find("padding in time") != std::string::npos);
  // 5 frames, windows of 2 at stride 2 with ceil_mode: the last one holds one frame.
  auto past_end = lower_aten_call(g, {"aten::avg_pool3d",
                                      "",
                                      {x, two, two, std::vector<int64_t>{0}, true, true, NoneArg{}},
                                      {},
                                      "avg2",
                                      {"m.py", 5}});
  REQUIRE_FALSE(past_end.has_value());
  CHECK(past_end.status().code() == ErrorCode::kUnsupported);
  auto too_padded = lower_aten_call(g, {"aten::max_pool3d",
                                        "",
                                        {x, two, two, std::vector<int64_t>{2, 0, 0}, one, false},
                                        {},
                                        "max",
                                        {"m.py", 6}});
  REQUIRE_FALSE(too_padded.has_value());
  CHECK(too_padded.status().message().find("at most half of the window") != std::string::npos);
}

TEST_CASE("aten adaptive_avg_pool3d to one value is a mean over frames and pixels",
          "[frontend][aten]") {
  ir::Graph g;
  ir::Tensor t = ir::Tensor::zeros({DType::kF32, {1, 2, 2, 2, 3}});
  for (int64_t k = 0; k < t.numel(); ++k) t.set(k, static_cast<double>(k));
  const ValueId x = g.add_input("x", t.type);
  auto out = lower_aten_call(g, {"aten::adaptive_avg_pool3d",
                                 "",
                                 {x, std::vector<int64_t>{1, 1, 1}},
                                 {},
                                 "pool",
                                 {"m.py", 4}});
  REQUIRE(out.has_value());
  g.set_outputs(*out);
  auto result = reference::evaluate(g, {t});
  REQUIRE(result.has_value());
  CHECK(result->at(0).type.to_string() == "f32[1,2,1,1,1]");
  CHECK(result->at(0).get(0) == 5.5);   // the mean of 0..11
  CHECK(result->at(0).get(1) == 17.5);  // of 12..23
  auto other = lower_aten_call(g, {"aten::adaptive_avg_pool3d",
                                   "",
                                   {x, std::vector<int64_t>{1, 2, 2}},
                                   {},
                                   "pool2",
                                   {"m.py", 5}});
  REQUIRE_FALSE(other.has_value());
  CHECK(other.status().code() == ErrorCode::kUnsupported);
}

}  // namespace inferno::frontend
