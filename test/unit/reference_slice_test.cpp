// slice on the reference against a definition written here (the source index of each output
// element, dim by dim), on every dtype: elements are copied exactly, integers beyond 2^53
// included.
#include <cstring>
#include <vector>

#include "ir/builder.h"
#include "reference/interpreter.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using ir::DType;
using ir::IntList;

ir::Tensor run_slice(const ir::Tensor& x, IntList starts, IntList ends, IntList steps) {
  ir::Graph g;
  const ir::ValueId in = g.add_input("x", x.type);
  ir::Attributes a;
  a.set("starts", std::move(starts));
  a.set("ends", std::move(ends));
  a.set("steps", std::move(steps));
  auto y = ir::build_value(g, ir::OpKind::kSlice, {in}, a, "y");
  INFO((y ? "" : y.status().to_string()));
  REQUIRE(y.has_value());
  g.set_outputs({*y});
  auto out = reference::evaluate(g, {x});
  REQUIRE(out.has_value());
  return (*out)[0];
}

// Output element (i, j, k) of x[starts : ends : steps] is x[s0 + i t0, s1 + j t1, s2 + k t2].
void check_3d(const ir::Tensor& x, const ir::Tensor& y, const IntList& starts,
              const IntList& steps) {
  const size_t size = static_cast<size_t>(ir::dtype_size(x.type.dtype));
  const ir::Shape &xs = x.type.shape, &ys = y.type.shape;
  int64_t flat = 0;
  for (int64_t i = 0; i < ys[0]; ++i) {
    for (int64_t j = 0; j < ys[1]; ++j) {
      for (int64_t k = 0; k < ys[2]; ++k, ++flat) {
        const int64_t src =
            ((starts[0] + i * steps[0]) * xs[1] + starts[1] + j * steps[1]) * xs[2] + starts[2] +
            k * steps[2];
        INFO("element " << i << ", " << j << ", " << k);
        CHECK(std::memcmp(y.data.data() + static_cast<size_t>(flat) * size,
                          x.data.data() + static_cast<size_t>(src) * size, size) == 0);
      }
    }
  }
}

TEST_CASE("slice copies x[start:end:step] in every dim, on every dtype") {
  for (const DType dtype : ir::kAllDTypes) {
    INFO(ir::dtype_name(dtype));
    const ir::Tensor x = test::random_tensor({dtype, {4, 7, 9}}, 5);
    const IntList starts = {1, 0, 2}, ends = {3, 7, 9}, steps = {1, 3, 4};
    const ir::Tensor y = run_slice(x, starts, ends, steps);
    REQUIRE(y.type == ir::TensorType{dtype, {2, 3, 2}});  // ceil(7 / 3) = 3, ceil(7 / 4) = 2
    check_3d(x, y, starts, steps);
  }
}

TEST_CASE("slice: a contiguous piece, a single element, an empty result") {
  const ir::Tensor x = test::random_tensor({DType::kF32, {2, 6, 5}}, 9);
  ir::Tensor y = run_slice(x, {0, 3, 0}, {2, 6, 5}, {1, 1, 1});  // a chunk of channels
  REQUIRE(y.type.shape == ir::Shape{2, 3, 5});
  check_3d(x, y, {0, 3, 0}, {1, 1, 1});
  y = run_slice(x, {1, 5, 4}, {2, 6, 5}, {5, 5, 5});
  REQUIRE(y.type.shape == ir::Shape{1, 1, 1});
  check_3d(x, y, {1, 5, 4}, {5, 5, 5});
  y = run_slice(x, {2, 0, 0}, {2, 6, 5}, {1, 1, 1});
  CHECK(y.type.shape == ir::Shape{0, 6, 5});
  CHECK(y.data.empty());
}

}  // namespace
}  // namespace inferno
