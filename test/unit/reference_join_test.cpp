// cat and constant_pad on the reference against naive definitions written here (element by
// element, by index), on every dtype: both copy elements exactly, integers beyond 2^53 included.
#include <cstring>
#include <string>
#include <vector>

#include "ir/builder.h"
#include "reference/interpreter.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using ir::DType;
using ir::OpKind;

// Evaluates one node of `op` over inputs with these values.
ir::Tensor run(OpKind op, const std::vector<ir::Tensor>& in, const ir::Attributes& a) {
  ir::Graph g;
  std::vector<ir::ValueId> ids;
  for (size_t k = 0; k < in.size(); ++k)
    ids.push_back(g.add_input("in" + std::to_string(k), in[k].type));
  auto y = ir::build_value(g, op, ids, a, "y");
  INFO((y ? "" : y.status().to_string()));
  REQUIRE(y.has_value());
  g.set_outputs({*y});
  auto out = reference::evaluate(g, in);
  REQUIRE(out.has_value());
  return (*out)[0];
}

// Element `i`'s bytes equal.
bool same_element(const ir::Tensor& a, int64_t i, const ir::Tensor& b, int64_t j) {
  const size_t n = static_cast<size_t>(ir::dtype_size(a.type.dtype));
  return std::memcmp(a.data.data() + static_cast<size_t>(i) * n,
                     b.data.data() + static_cast<size_t>(j) * n, n) == 0;
}

TEST_CASE("cat copies every input into its slice, on every dtype") {
  for (const DType dtype : ir::kAllDTypes) {
    INFO(ir::dtype_name(dtype));
    const std::vector<ir::Tensor> in = {
        test::random_tensor({dtype, {2, 3, 4}}, 1), test::random_tensor({dtype, {2, 1, 4}}, 2),
        test::random_tensor({dtype, {2, 0, 4}}, 3), test::random_tensor({dtype, {2, 2, 4}}, 4)};
    ir::Attributes a;
    a.set("dim", int64_t{1});
    const ir::Tensor y = run(OpKind::kCat, in, a);
    REQUIRE(y.type == ir::TensorType{dtype, {2, 6, 4}});
    for (int64_t n = 0; n < 2; ++n) {
      int64_t row = 0;
      for (const ir::Tensor& t : in) {
        for (int64_t r = 0; r < t.type.shape[1]; ++r, ++row) {
          for (int64_t c = 0; c < 4; ++c) {
            CHECK(same_element(y, (n * 6 + row) * 4 + c, t, (n * t.type.shape[1] + r) * 4 + c));
          }
        }
      }
    }
  }
}

TEST_CASE("constant_pad pads with the fill and crops, on every dtype") {
  for (const DType dtype : ir::kAllDTypes) {
    INFO(ir::dtype_name(dtype));
    const ir::Tensor x = test::random_tensor({dtype, {3, 4, 5}}, 5);
    ir::Tensor fill = ir::Tensor::zeros({dtype, {}});
    fill.set(0, 1);
    const ir::IntList before = {1, -1, 2}, after = {0, 2, -3};
    ir::Attributes a;
    a.set("before", before);
    a.set("after", after);
    const ir::Tensor y = run(OpKind::kConstantPad, {x, fill}, a);
    REQUIRE(y.type == ir::TensorType{dtype, {4, 5, 4}});
    for (int64_t i = 0; i < 4; ++i) {
      for (int64_t j = 0; j < 5; ++j) {
        for (int64_t k = 0; k < 4; ++k) {
          const int64_t xi = i - 1, xj = j + 1, xk = k - 2;  // the input element, if any
          const bool inside = xi >= 0 && xi < 3 && xj >= 0 && xj < 4 && xk >= 0 && xk < 5;
          const int64_t at = (i * 5 + j) * 4 + k;
          if (inside) {
            CHECK(same_element(y, at, x, (xi * 4 + xj) * 5 + xk));
          } else {
            CHECK(same_element(y, at, fill, 0));
          }
        }
      }
    }
  }
}

TEST_CASE("joins copy i64 values beyond 2^53 exactly") {
  ir::Tensor big = ir::Tensor::zeros({DType::kI64, {1}});
  const int64_t v = (int64_t{1} << 53) + 1;
  std::memcpy(big.data.data(), &v, sizeof v);
  ir::Attributes a;
  a.set("dim", int64_t{0});
  const ir::Tensor y = run(OpKind::kCat, {big, big}, a);
  int64_t got = 0;
  std::memcpy(&got, y.data.data() + sizeof got, sizeof got);
  CHECK(got == v);
  ir::Attributes p;
  p.set("before", ir::IntList{1});
  p.set("after", ir::IntList{0});
  const ir::Tensor z = run(OpKind::kConstantPad, {big, ir::Tensor::zeros({DType::kI64, {}})}, p);
  std::memcpy(&got, z.data.data() + sizeof got, sizeof got);
  CHECK(got == v);
}

}  // namespace
}  // namespace inferno
