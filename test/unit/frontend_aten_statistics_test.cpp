// Statistics in the ATen table (aten_statistics.cpp, aten_batch_norm.cpp) in the overloads a .pt2
// records (var.correction, std_mean.correction, linalg_vector_norm, _native_batch_norm_legit's
// no_stats): lowered and run on the reference against values computed here in double. (The
// TorchScript overloads are checked against PyTorch by the statistics fixture.) What stays
// unsupported says so.
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "frontend/aten_table.h"
#include "reference/interpreter.h"
#include "support/catch.h"

namespace inferno::frontend {
namespace {

using ir::DType;
using ir::ValueId;
using Kw = std::vector<std::pair<std::string, AtenArg>>;

constexpr double kInf = std::numeric_limits<double>::infinity();

// x [2, 3]: rows {1, 2, 6} and {-3, 0, 0.5}.
const std::vector<double> kX = {1, 2, 6, -3, 0, 0.5};

ir::Tensor input() {
  ir::Tensor t = ir::Tensor::zeros({DType::kF32, {2, 3}});
  for (size_t i = 0; i < kX.size(); ++i) t.set(static_cast<int64_t>(i), kX[i]);
  return t;
}

// The outputs of `op` (overload `overload`) on x with the given arguments after x.
std::vector<ir::Tensor> run(const std::string& op, const std::string& overload,
                            std::vector<AtenArg> after_x, Kw kw = {}) {
  ir::Graph g;
  const ValueId x = g.add_input("x", input().type);
  std::vector<AtenArg> args = {x};
  args.insert(args.end(), after_x.begin(), after_x.end());
  auto out = lower_aten_call(g, {op, overload, std::move(args), std::move(kw), "n", {"m.py", 1}});
  INFO(op << ": " << (out ? std::string() : out.status().to_string()));
  REQUIRE(out.has_value());
  std::vector<ValueId> kept;
  for (const ValueId v : *out)
    if (v != ir::kNoValue) kept.push_back(v);
  g.set_outputs(kept);
  auto result = reference::evaluate(g, {input()});
  INFO((result ? std::string() : result.status().to_string()));
  REQUIRE(result.has_value());
  return *result;
}

void check_values(const ir::Tensor& got, const std::vector<double>& want) {
  REQUIRE(got.numel() == static_cast<int64_t>(want.size()));
  for (int64_t i = 0; i < got.numel(); ++i) {
    INFO("element " << i << ": " << got.get(i) << " vs " << want[static_cast<size_t>(i)]);
    const double w = want[static_cast<size_t>(i)];
    if (std::isinf(w)) {
      CHECK(got.get(i) == w);
    } else {
      CHECK(std::fabs(got.get(i) - w) <= 1e-6 + 1.3e-6 * std::fabs(w));  // f32 results
    }
  }
}

}  // namespace

TEST_CASE("var and std_mean in their correction overloads", "[frontend][aten]") {
  // Each row's mean and sum of squared deviations, in double.
  std::vector<double> ss(2), mean(2);
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 3; ++c) mean[static_cast<size_t>(r)] += kX[static_cast<size_t>(3 * r + c)];
    mean[static_cast<size_t>(r)] /= 3;
    for (int c = 0; c < 3; ++c) {
      const double d = kX[static_cast<size_t>(3 * r + c)] - mean[static_cast<size_t>(r)];
      ss[static_cast<size_t>(r)] += d * d;
    }
  }
  const ir::IntList last = {-1};
  // correction 0 (biased) over the last dim, kept.
  auto var0 =
      run("aten::var", "correction", {last}, {{"correction", int64_t{0}}, {"keepdim", true}});
  CHECK(var0[0].type.to_string() == "f32[2,1]");
  check_values(var0[0], {ss[0] / 3, ss[1] / 3});
  // The default correction (1), every dim.
  double all_mean = 0, all_ss = 0;
  for (const double v : kX) all_mean += v / 6;
  for (const double v : kX) all_ss += (v - all_mean) * (v - all_mean);
  check_values(run("aten::var", "correction", {})[0], {all_ss / 5});
  // A correction as large as the count: a zero divisor, inf (PyTorch's result too).
  check_values(run("aten::var", "correction", {last}, {{"correction", int64_t{3}}})[0],
               {kInf, kInf});
  // std_mean: the square root and the mean, without keepdim.
  auto sm = run("aten::std_mean", "correction", {last}, {{"correction", 1.0}});
  REQUIRE(sm.size() == 2);
  check_values(sm[0], {std::sqrt(ss[0] / 2), std::sqrt(ss[1] / 2)});
  check_values(sm[1], mean);
  CHECK(sm[1].type.to_string() == "f32[2]");
}

TEST_CASE("linalg_vector_norm of every order PyTorch names", "[frontend][aten]") {
  const ir::IntList last = {-1};
  auto norm = [&](double ord) { return run("aten::linalg_vector_norm", "", {ord, last})[0]; };
  check_values(norm(2), {std::sqrt(1 + 4 + 36.0), std::sqrt(9 + 0 + 0.25)});
  check_values(norm(1), {9, 3.5});
  check_values(norm(kInf), {6, 3});
  check_values(norm(-kInf), {1, 0});
  check_values(norm(0), {3, 2});
  check_values(norm(3), {std::cbrt(1 + 8 + 216.0), std::cbrt(27 + 0.125)});
}

TEST_CASE("batch statistics normalize over every dim but the channels", "[frontend][aten]") {
  // _native_batch_norm_legit.no_stats on x [2, 3] (2 samples, 3 channels): each channel's two
  // values become -1 and 1 (up to eps), the saved statistics not kept.
  auto out =
      run("aten::_native_batch_norm_legit", "no_stats", {NoneArg{}, NoneArg{}, true, 0.1, 1e-5});
  REQUIRE(out.size() == 1);
  std::vector<double> want;
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 3; ++c) {
      const double a = kX[static_cast<size_t>(c)], b = kX[static_cast<size_t>(3 + c)];
      const double m = (a + b) / 2, v = (a - m) * (a - m);
      want.push_back((kX[static_cast<size_t>(3 * r + c)] - m) / std::sqrt(v + 1e-5));
    }
  }
  check_values(out[0], want);
}

TEST_CASE("one_hot needs its class count, and logsumexp", "[frontend][aten]") {
  ir::Graph g;
  const ValueId ids = g.add_input("ids", {DType::kI64, {4}});
  auto refused = lower_aten_call(g, {"aten::one_hot", "", {ids}, {}, "n", {"m.py", 1}});
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.status().code() == ErrorCode::kUnsupported);
  CHECK(refused.status().message().find("num_classes must be given") != std::string::npos);
  auto hot = lower_aten_call(g, {"aten::one_hot", "", {ids, int64_t{5}}, {}, "n", {"m.py", 1}});
  REQUIRE(hot.has_value());
  CHECK(g.type(hot->at(0)).to_string() == "i64[4,5]");
  // logsumexp over the last dim: log(e + e^2 + e^6) and log(e^-3 + 1 + e^0.5).
  check_values(run("aten::logsumexp", "", {ir::IntList{-1}})[0],
               {std::log(std::exp(1.0) + std::exp(2.0) + std::exp(6.0)),
                std::log(std::exp(-3.0) + 1 + std::exp(0.5))});
}

}  // namespace inferno::frontend
