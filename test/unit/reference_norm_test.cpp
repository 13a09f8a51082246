// The normalization reference kernels: layer_norm, rms_norm and group_norm on hand-computed rows,
// then against a definition written here from PyTorch's documentation (the mean and the biased
// variance over each normalized set of elements, found by its coordinates), on f32, f64, f16 and
// bf16, with and without weight and bias, and on rows far from zero (1000 + small), where a
// one-pass E[x^2] - E[x]^2 would lose every digit.
#include <cmath>
#include <string>
#include <vector>

#include "ir/builder.h"
#include "reference/interpreter.h"
#include "support/catch.h"
#include "support/op_table.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using ir::DType;
using ir::OpKind;

// Exactly the values given, one per element (op_table's tensor_of repeats a shorter list).
ir::Tensor tensor(const ir::TensorType& type, const std::vector<double>& values) {
  REQUIRE(static_cast<int64_t>(values.size()) == type.numel());
  return test::tensor_of(type, values);
}

// Evaluates `op` {attrs} on x (an input) and the optional parameters (constants).
ir::Tensor run(OpKind op, const ir::Tensor& x, const std::vector<ir::Tensor>& params,
               const ir::Attributes& attrs) {
  ir::Graph g;
  std::vector<ir::ValueId> in = {g.add_input("x", x.type)};
  for (size_t k = 0; k < params.size(); ++k)
    in.push_back(g.add_constant("p" + std::to_string(k), params[k]));
  auto y = ir::build_value(g, op, in, attrs, "y");
  INFO((y ? "" : y.status().to_string()));
  REQUIRE(y.has_value());
  g.set_outputs({*y});
  auto out = reference::evaluate(g, {x});
  INFO((out ? "" : out.status().to_string()));
  REQUIRE(out.has_value());
  return (*out)[0];
}

ir::Attributes layer(int64_t dims, double eps) {
  ir::Attributes a;
  a.set("normalized_dims", dims);
  a.set("eps", eps);
  return a;
}

ir::Attributes grouped(int64_t groups, double eps) {
  ir::Attributes a;
  a.set("groups", groups);
  a.set("eps", eps);
  return a;
}

void check_values(const ir::Tensor& got, const std::vector<double>& want) {
  REQUIRE(got.numel() == static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i);
    CHECK(got.get(static_cast<int64_t>(i)) == Approx(want[i]).margin(1e-12).epsilon(1e-12));
  }
}

TEST_CASE("layer_norm by hand") {
  const ir::TensorType row{DType::kF64, {1, 4}};
  const ir::Tensor x = tensor(row, {1, 2, 3, 4});
  // mean 2.5, biased variance 1.25
  const double s = std::sqrt(1.25);
  check_values(run(OpKind::kLayerNorm, x, {}, layer(1, 0)), {-1.5 / s, -0.5 / s, 0.5 / s, 1.5 / s});
  const ir::Tensor w = tensor({DType::kF64, {4}}, {1, 2, 0.5, -1});
  const ir::Tensor b = tensor({DType::kF64, {4}}, {0, 1, -1, 0.5});
  check_values(run(OpKind::kLayerNorm, x, {w, b}, layer(1, 0)),
               {-1.5 / s, 1 - 1 / s, -1 + 0.25 / s, 0.5 - 1.5 / s});
  check_values(run(OpKind::kLayerNorm, x, {w}, layer(1, 0)),
               {-1.5 / s, -1 / s, 0.25 / s, -1.5 / s});
  // eps inside the root: {0, 2, 5, 5} has mean 3 and variance 4.5, plus eps 1.
  const double r = std::sqrt(5.5);
  check_values(run(OpKind::kLayerNorm, tensor(row, {0, 2, 5, 5}), {}, layer(2, 1)),
               {-3 / r, -1 / r, 2 / r, 2 / r});
  // A constant row normalizes to 0 (then the bias).
  check_values(run(OpKind::kLayerNorm, tensor(row, {7, 7, 7, 7}), {w, b}, layer(1, 1e-5)),
               {0, 1, -1, 0.5});
}

TEST_CASE("rms_norm by hand") {
  const ir::TensorType row{DType::kF64, {2, 2}};
  // rows {3, 4} (mean square 12.5) and {1, -1} (mean square 1); no mean is subtracted
  const ir::Tensor x = tensor(row, {3, 4, 1, -1});
  const double r = std::sqrt(12.5);
  check_values(run(OpKind::kRmsNorm, x, {}, layer(1, 0)), {3 / r, 4 / r, 1, -1});
  const ir::Tensor w = tensor({DType::kF64, {2}}, {2, -0.5});
  check_values(run(OpKind::kRmsNorm, x, {w}, layer(1, 0)), {6 / r, -2 / r, 2, 0.5});
  // over both dims: mean square (9 + 16 + 1 + 1) / 4 = 6.75, plus eps 0.25
  check_values(run(OpKind::kRmsNorm, x, {}, layer(2, 0.25)),
               {3 / std::sqrt(7.0), 4 / std::sqrt(7.0), 1 / std::sqrt(7.0), -1 / std::sqrt(7.0)});
  // A zero row stays zero (eps keeps the root away from 0).
  check_values(run(OpKind::kRmsNorm, tensor(row, {0, 0, 0, 0}), {w}, layer(1, 1e-6)), {0, 0, 0, 0});
}

TEST_CASE("group_norm by hand") {
  // [1, 4, 2]: group 0 = channels 0, 1 = {1, 3, 5, 7} (mean 4, variance 5); group 1 = channels
  // 2, 3 = {0, 0, 2, -2} (mean 0, variance 2).
  const ir::Tensor x = tensor({DType::kF64, {1, 4, 2}}, {1, 3, 5, 7, 0, 0, 2, -2});
  const double s5 = std::sqrt(5.0), s2 = std::sqrt(2.0);
  check_values(run(OpKind::kGroupNorm, x, {}, grouped(2, 0)),
               {-3 / s5, -1 / s5, 1 / s5, 3 / s5, 0, 0, 2 / s2, -2 / s2});
  const ir::Tensor w = tensor({DType::kF64, {4}}, {1, 2, 3, 4});
  const ir::Tensor b = tensor({DType::kF64, {4}}, {0, 0, 1, 1});
  check_values(run(OpKind::kGroupNorm, x, {w, b}, grouped(2, 0)),
               {-3 / s5, -1 / s5, 2 / s5, 6 / s5, 1, 1, 1 + 8 / s2, 1 - 8 / s2});
  // One element per group ([N, C] with a group per channel): each normalizes to 0.
  check_values(
      run(OpKind::kGroupNorm, tensor({DType::kF64, {2, 2}}, {1, 2, 3, 4}), {}, grouped(2, 1e-5)),
      {0, 0, 0, 0});
}

// The definition: element i belongs to the normalized set set_of(i) and takes parameter
// param_of(i); each set's mean and biased variance in double, then every element rounded once.
template <typename SetOf, typename ParamOf>
ir::Tensor definition(const ir::Tensor& x, const ir::Tensor* w, const ir::Tensor* b, double eps,
                      int64_t sets, SetOf set_of, ParamOf param_of) {
  std::vector<double> sum(static_cast<size_t>(sets)), squares(static_cast<size_t>(sets)),
      count(static_cast<size_t>(sets));
  for (int64_t i = 0; i < x.numel(); ++i) {
    sum[static_cast<size_t>(set_of(i))] += x.get(i);
    count[static_cast<size_t>(set_of(i))] += 1;
  }
  for (int64_t i = 0; i < x.numel(); ++i) {
    const auto k = static_cast<size_t>(set_of(i));
    const double d = x.get(i) - sum[k] / count[k];
    squares[k] += d * d;
  }
  ir::Tensor y = ir::Tensor::zeros(x.type);
  for (int64_t i = 0; i < x.numel(); ++i) {
    const auto k = static_cast<size_t>(set_of(i));
    double v = (x.get(i) - sum[k] / count[k]) / std::sqrt(squares[k] / count[k] + eps);
    if (w) v *= w->get(param_of(i));
    if (b) v += b->get(param_of(i));
    y.set(i, v);
  }
  return y;
}

// x of `type`: random values in [-2, 2), or 1000 plus them.
ir::Tensor data(const ir::TensorType& type, uint64_t seed, bool offset) {
  ir::Tensor x = test::random_tensor(type, seed);
  if (offset) {
    for (int64_t i = 0; i < x.numel(); ++i) x.set(i, 1000 + x.get(i));
  }
  return x;
}

void compare(const ir::Tensor& got, const ir::Tensor& want) {
  const test::Tolerance tol = test::default_tolerance(want.type.dtype);
  const std::string mismatch = test::compare_close(got, want, tol.rtol, tol.atol);
  INFO(mismatch);
  CHECK(mismatch.empty());
}

TEST_CASE("layer_norm matches its definition on every floating dtype") {
  uint64_t seed = 10;
  for (const DType dtype : {DType::kF32, DType::kF64, DType::kF16, DType::kBF16}) {
    for (const bool offset : {false, true}) {
      for (const ir::Shape& shape : {ir::Shape{3, 5}, ir::Shape{2, 3, 4, 6}, ir::Shape{1, 300}}) {
        for (int64_t dims = 1; dims <= 2 && dims <= static_cast<int64_t>(shape.size()); ++dims) {
          const ir::Shape normalized(shape.end() - dims, shape.end());
          const int64_t length = ir::shape_numel(normalized);
          const ir::Tensor x = data({dtype, shape}, ++seed, offset);
          const ir::Tensor w = test::random_tensor({dtype, normalized}, ++seed);
          const ir::Tensor b = test::random_tensor({dtype, normalized}, ++seed);
          for (const int affine : {0, 1, 2}) {
            INFO(ir::dtype_name(dtype) << ir::shape_to_string(shape) << " over " << dims
                                       << " dims, " << affine << " parameters, offset " << offset);
            std::vector<ir::Tensor> params;
            if (affine > 0) params.push_back(w);
            if (affine > 1) params.push_back(b);
            const ir::Tensor got = run(OpKind::kLayerNorm, x, params, layer(dims, 1e-5));
            compare(got, definition(
                             x, affine > 0 ? &w : nullptr, affine > 1 ? &b : nullptr, 1e-5,
                             x.numel() / length, [&](int64_t i) { return i / length; },
                             [&](int64_t i) { return i % length; }));
          }
        }
      }
    }
  }
}

// rms_norm's definition, written from PyTorch's documentation: each row of `length` elements
// divided by the root of its mean square plus eps, times the weight, in double, rounded once.
ir::Tensor rms_definition(const ir::Tensor& x, const ir::Tensor* w, double eps, int64_t length) {
  ir::Tensor y = ir::Tensor::zeros(x.type);
  for (int64_t row = 0; row * length < x.numel(); ++row) {
    double mean_square = 0;
    for (int64_t j = 0; j < length; ++j) {
      const double v = x.get(row * length + j);
      mean_square += v * v / static_cast<double>(length);
    }
    for (int64_t j = 0; j < length; ++j) {
      const double v = x.get(row * length + j) / std::sqrt(mean_square + eps);
      y.set(row * length + j, w ? v * w->get(j) : v);
    }
  }
  return y;
}

TEST_CASE("rms_norm matches its definition on every floating dtype") {
  uint64_t seed = 50;
  for (const DType dtype : {DType::kF32, DType::kF64, DType::kF16, DType::kBF16}) {
    for (const bool offset : {false, true}) {
      for (const ir::Shape& shape : {ir::Shape{3, 5}, ir::Shape{2, 3, 4, 6}, ir::Shape{1, 300}}) {
        for (int64_t dims = 1; dims <= 2 && dims <= static_cast<int64_t>(shape.size()); ++dims) {
          const ir::Shape normalized(shape.end() - dims, shape.end());
          const ir::Tensor x = data({dtype, shape}, ++seed, offset);
          const ir::Tensor w = test::random_tensor({dtype, normalized}, ++seed);
          for (const bool weighted : {false, true}) {
            INFO(ir::dtype_name(dtype) << ir::shape_to_string(shape) << " over " << dims
                                       << " dims, weight " << weighted << ", offset " << offset);
            std::vector<ir::Tensor> params;
            if (weighted) params.push_back(w);
            const ir::Tensor got = run(OpKind::kRmsNorm, x, params, layer(dims, 1e-6));
            compare(got,
                    rms_definition(x, weighted ? &w : nullptr, 1e-6, ir::shape_numel(normalized)));
          }
        }
      }
    }
  }
}

TEST_CASE("group_norm matches its definition on every floating dtype") {
  uint64_t seed = 100;
  for (const DType dtype : {DType::kF32, DType::kF64, DType::kF16, DType::kBF16}) {
    for (const bool offset : {false, true}) {
      for (const ir::Shape& shape : {ir::Shape{2, 6, 5, 4}, ir::Shape{3, 4}, ir::Shape{1, 8, 33}}) {
        const int64_t n = shape[0], c = shape[1];
        const int64_t spatial = ir::shape_numel(shape) / (n * c);
        for (const int64_t groups : {int64_t{1}, int64_t{2}, c}) {
          const int64_t per_group = c / groups;
          const ir::Tensor x = data({dtype, shape}, ++seed, offset);
          const ir::Tensor w = test::random_tensor({dtype, {c}}, ++seed);
          const ir::Tensor b = test::random_tensor({dtype, {c}}, ++seed);
          for (const int affine : {0, 2}) {
            INFO(ir::dtype_name(dtype)
                 << ir::shape_to_string(shape) << " in " << groups << " groups, " << affine
                 << " parameters, offset " << offset);
            std::vector<ir::Tensor> params;
            if (affine > 0) params = {w, b};
            const ir::Tensor got = run(OpKind::kGroupNorm, x, params, grouped(groups, 1e-3));
            // Element i is at (image, channel, position); its set: (image, channel / per_group).
            auto channel = [&](int64_t i) { return (i / spatial) % c; };
            compare(got, definition(
                             x, affine ? &w : nullptr, affine ? &b : nullptr, 1e-3, n * groups,
                             [&](int64_t i) {
                               return (i / (spatial * c)) * groups + channel(i) / per_group;
                             },
                             channel));
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace inferno
