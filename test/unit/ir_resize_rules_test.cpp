// Shape rules of upsample_nearest2d and upsample_bilinear2d: the output is [N, C, output_size];
// what PyTorch refuses is invalid input (exit 3), other dtypes unsupported (exit 2).
#include <string>

#include "ir/shape_rules.h"
#include "support/catch.h"

namespace inferno::ir {
namespace {

Attributes resize(IntList size, double scale_h = 0, double scale_w = 0) {
  Attributes a;
  a.set("output_size", std::move(size));
  a.set("scale_h", scale_h);
  a.set("scale_w", scale_w);
  return a;
}

Attributes bilinear(IntList size) {
  Attributes a = resize(std::move(size));
  a.set("align_corners", true);
  return a;
}

void refused(OpKind op, TensorType in, const Attributes& a, ErrorCode code,
             const std::string& needle) {
  auto out = infer_output_types(op, {in}, a);
  REQUIRE(!out.has_value());
  INFO(out.status().to_string());
  CHECK(out.status().code() == code);
  CHECK(out.status().message().find(needle) != std::string::npos);
}

TEST_CASE("upsampling output shapes and refusals") {
  const TensorType x{DType::kF32, {2, 3, 5, 6}};
  auto out = infer_output_types(OpKind::kUpsampleNearest2d, {x}, resize({10, 12}, 2.0, 2.0));
  REQUIRE(out.has_value());
  CHECK((*out)[0] == TensorType{DType::kF32, {2, 3, 10, 12}});
  out = infer_output_types(OpKind::kUpsampleBilinear2d, {{DType::kBF16, {1, 1, 2, 2}}},
                           bilinear({1, 7}));
  REQUIRE(out.has_value());
  CHECK((*out)[0] == TensorType{DType::kBF16, {1, 1, 1, 7}});
  const ErrorCode invalid = ErrorCode::kInvalidInput;
  refused(OpKind::kUpsampleNearest2d, x, resize({0, 4}), invalid, "output_size");
  refused(OpKind::kUpsampleNearest2d, x, resize({4}), invalid, "two values");
  refused(OpKind::kUpsampleNearest2d, x, resize({4, 4}, -1.0), invalid, "scale_h");
  refused(OpKind::kUpsampleBilinear2d, x, bilinear({int64_t{1} << 30, int64_t{1} << 30}), invalid,
          "too large");
  refused(OpKind::kUpsampleNearest2d, {DType::kF32, {3, 5, 6}}, resize({4, 4}), invalid, "4-D");
  refused(OpKind::kUpsampleNearest2d, {DType::kF32, {1, 3, 0, 6}}, resize({4, 4}), invalid,
          "non-empty");
  refused(OpKind::kUpsampleNearest2d, {DType::kI64, {1, 3, 5, 6}}, resize({4, 4}),
          ErrorCode::kUnsupported, "floating-point");
}

}  // namespace
}  // namespace inferno::ir
