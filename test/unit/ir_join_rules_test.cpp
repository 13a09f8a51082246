// Shape rules of cat and constant_pad: output shapes, and the inconsistent inputs and attributes
// they refuse as invalid input (exit 3) naming the op.
#include <string>

#include "ir/shape_rules.h"
#include "support/catch.h"

namespace inferno::ir {
namespace {

TensorType f32(Shape s) { return {DType::kF32, std::move(s)}; }

Attributes dim(int64_t d) {
  Attributes a;
  a.set("dim", d);
  return a;
}

Attributes pads(IntList before, IntList after) {
  Attributes a;
  a.set("before", std::move(before));
  a.set("after", std::move(after));
  return a;
}

Expected<std::vector<TensorType>> infer(OpKind op, std::vector<TensorType> in, Attributes a) {
  return infer_output_types(op, in, a);
}

void refused(const Expected<std::vector<TensorType>>& out, const std::string& needle) {
  REQUIRE(!out.has_value());
  INFO(out.status().to_string());
  CHECK(out.status().code() == ErrorCode::kInvalidInput);
  CHECK(out.status().message().find(needle) != std::string::npos);
}

TEST_CASE("cat joins along one dim") {
  auto out = infer(OpKind::kCat, {f32({2, 3, 4}), f32({2, 5, 4}), f32({2, 0, 4})}, dim(1));
  REQUIRE(out.has_value());
  CHECK((*out)[0] == f32({2, 8, 4}));
  out = infer(OpKind::kCat, {{DType::kBool, {3}}}, dim(0));
  REQUIRE(out.has_value());
  CHECK((*out)[0] == TensorType{DType::kBool, {3}});
  refused(infer(OpKind::kCat, {f32({2, 3}), f32({3, 3})}, dim(1)), "sizes except in dim 1");
  refused(infer(OpKind::kCat, {f32({2, 3}), {DType::kF16, {2, 3}}}, dim(0)), "share dtype");
  refused(infer(OpKind::kCat, {f32({2, 3}), f32({2, 3, 1})}, dim(0)), "share dtype");
  refused(infer(OpKind::kCat, {f32({2, 3})}, dim(2)), "dim 2 out of range");
  refused(infer(OpKind::kCat, {f32({})}, dim(0)), "out of range");
  refused(infer(OpKind::kCat, {f32({int64_t{1} << 47}), f32({int64_t{1} << 47}), f32({1})}, dim(0)),
          "too large");
}

TEST_CASE("constant_pad pads and crops each dim") {
  const TensorType fill = f32({});
  auto out = infer(OpKind::kConstantPad, {f32({2, 3, 4}), fill}, pads({0, 1, -1}, {0, 2, 3}));
  REQUIRE(out.has_value());
  CHECK((*out)[0] == f32({2, 6, 6}));
  out = infer(OpKind::kConstantPad, {f32({}), fill}, pads({}, {}));
  REQUIRE(out.has_value());
  CHECK((*out)[0] == f32({}));
  out = infer(OpKind::kConstantPad, {f32({3}), fill}, pads({-2}, {-1}));
  REQUIRE(out.has_value());
  CHECK((*out)[0] == f32({0}));
  refused(infer(OpKind::kConstantPad, {f32({3}), fill}, pads({-2}, {-2})), "negative");
  refused(
      infer(OpKind::kConstantPad, {f32({3}), fill}, pads({int64_t{1} << 62}, {int64_t{1} << 62})),
      "too large");
  refused(infer(OpKind::kConstantPad, {f32({3, 3}), fill}, pads({1}, {1})), "one value per dim");
  refused(infer(OpKind::kConstantPad, {f32({3}), f32({1})}, pads({1}, {1})), "rank-0 value");
  refused(infer(OpKind::kConstantPad, {f32({3}), {DType::kF64, {}}}, pads({1}, {1})),
          "rank-0 value of f32");
}

}  // namespace
}  // namespace inferno::ir
