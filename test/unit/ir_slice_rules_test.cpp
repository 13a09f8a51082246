// The shape rule of slice: output sizes (end - start) / step rounded up, and the bounds it
// refuses as invalid input (exit 3) naming the op: the frontends normalize PyTorch's bounds, so
// a bound outside 0 <= start <= end <= size, or a step below 1, is never clamped here.
#include <string>

#include "ir/shape_rules.h"
#include "support/catch.h"

namespace inferno::ir {
namespace {

TensorType f32(Shape s) { return {DType::kF32, std::move(s)}; }

Attributes bounds(IntList starts, IntList ends, IntList steps) {
  Attributes a;
  a.set("starts", std::move(starts));
  a.set("ends", std::move(ends));
  a.set("steps", std::move(steps));
  return a;
}

Expected<std::vector<TensorType>> infer(TensorType x, Attributes a) {
  return infer_output_types(OpKind::kSlice, {std::move(x)}, a);
}

void refused(const Expected<std::vector<TensorType>>& out, const std::string& needle) {
  REQUIRE(!out.has_value());
  INFO(out.status().to_string());
  CHECK(out.status().code() == ErrorCode::kInvalidInput);
  CHECK(out.status().message().find("slice") != std::string::npos);
  CHECK(out.status().message().find(needle) != std::string::npos);
}

TEST_CASE("slice sizes are the elements from start below end, step apart") {
  auto out = infer(f32({2, 8, 6, 5}), bounds({0, 4, 0, 1}, {2, 8, 6, 5}, {1, 1, 2, 3}));
  REQUIRE(out.has_value());
  CHECK((*out)[0] == f32({2, 4, 3, 2}));  // 6 / 2 = 3 and ceil(4 / 3) = 2
  out = infer(f32({7}), bounds({3}, {3}, {1}));
  REQUIRE(out.has_value());
  CHECK((*out)[0] == f32({0}));  // empty
  out = infer(f32({7}), bounds({6}, {7}, {100}));
  REQUIRE(out.has_value());
  CHECK((*out)[0] == f32({1}));
  out = infer({DType::kI64, {3, 0}}, bounds({1, 0}, {3, 0}, {1, 1}));
  REQUIRE(out.has_value());
  CHECK((*out)[0] == TensorType{DType::kI64, {2, 0}});
  out = infer(f32({}), bounds({}, {}, {}));  // a scalar's only slice is itself
  REQUIRE(out.has_value());
  CHECK((*out)[0] == f32({}));
}

TEST_CASE("slice refuses bounds that are not normalized") {
  refused(infer(f32({4, 5}), bounds({0}, {4}, {1})), "one start, end and step per dim");
  refused(infer(f32({4, 5}), bounds({0, 0}, {4, 5}, {1})), "one start, end and step per dim");
  refused(infer(f32({4, 5}), bounds({-1, 0}, {4, 5}, {1, 1})), "dim 0");
  refused(infer(f32({4, 5}), bounds({0, 0}, {4, 6}, {1, 1})), "dim 1");
  refused(infer(f32({4, 5}), bounds({0, 3}, {4, 2}, {1, 1})), "start <= end");
  refused(infer(f32({4, 5}), bounds({0, 0}, {4, 5}, {1, 0})), "step >= 1");
  refused(infer(f32({4, 5}), bounds({0, 0}, {4, 5}, {-1, 1})), "step >= 1");
}

}  // namespace
}  // namespace inferno::ir
