// Shape rules of the pooling ops: PyTorch's output sizes (floor and ceil_mode, padding, dilation,
// adaptive sizes) and the attributes PyTorch refuses, each an invalid-input error (exit 3) that
// names the op; dtypes and ranks it does not pool, unsupported or invalid as PyTorch says.
#include <string>

#include "ir/shape_rules.h"
#include "support/catch.h"

namespace inferno::ir {
namespace {

Attributes max_pool(IntList kernel, IntList stride, IntList padding, IntList dilation = {1, 1},
                    bool ceil_mode = false) {
  Attributes a;
  a.set("kernel", std::move(kernel));
  a.set("stride", std::move(stride));
  a.set("padding", std::move(padding));
  a.set("dilation", std::move(dilation));
  a.set("ceil_mode", ceil_mode);
  a.set("layout", std::string("nchw"));
  return a;
}

Attributes avg_pool(IntList kernel, IntList stride, IntList padding, bool ceil_mode = false,
                    int64_t divisor = 0) {
  Attributes a;
  a.set("kernel", std::move(kernel));
  a.set("stride", std::move(stride));
  a.set("padding", std::move(padding));
  a.set("ceil_mode", ceil_mode);
  a.set("count_include_pad", true);
  a.set("divisor_override", divisor);
  a.set("layout", std::string("nchw"));
  return a;
}

Attributes adaptive(IntList size) {
  Attributes a;
  a.set("output_size", std::move(size));
  a.set("layout", std::string("nchw"));
  return a;
}

TensorType f32(Shape s) { return {DType::kF32, std::move(s)}; }

Shape shape_of(OpKind op, const TensorType& in, const Attributes& attrs) {
  auto out = infer_output_types(op, {in}, attrs);
  INFO((out ? "" : out.status().to_string()));
  REQUIRE(out.has_value());
  REQUIRE(out->size() == 1);
  CHECK((*out)[0].dtype == in.dtype);
  return (*out)[0].shape;
}

void refused(OpKind op, const TensorType& in, const Attributes& attrs, ErrorCode code,
             const std::string& needle) {
  auto out = infer_output_types(op, {in}, attrs);
  REQUIRE(!out.has_value());
  INFO(out.status().to_string());
  CHECK(out.status().code() == code);
  CHECK(out.status().message().rfind(std::string(op_name(op)) + ": ", 0) == 0);
  CHECK(out.status().message().find(needle) != std::string::npos);
}

TEST_CASE("pooling output sizes follow PyTorch") {
  using K = OpKind;
  // floor: (8 + 2 - 3) / 2 + 1 = 4
  CHECK(shape_of(K::kMaxPool2d, f32({2, 3, 8, 8}), max_pool({3, 3}, {2, 2}, {1, 1})) ==
        Shape{2, 3, 4, 4});
  // ceil_mode: ceil((8 - 3) / 2) + 1 = 4, a window running past the input
  CHECK(shape_of(K::kMaxPool2d, f32({3, 8, 8}), max_pool({3, 3}, {2, 2}, {0, 0}, {1, 1}, true)) ==
        Shape{3, 4, 4});
  // ceil_mode whose last window would start in the right padding: dropped (5 -> 4... -> 2)
  CHECK(shape_of(K::kMaxPool2d, f32({1, 1, 4, 4}),
                 max_pool({2, 2}, {3, 3}, {1, 1}, {1, 1}, true)) == Shape{1, 1, 2, 2});
  // dilation: effective kernel (2 - 1) * 2 + 1 = 3
  CHECK(shape_of(K::kMaxPool2d, f32({1, 2, 5, 7}), max_pool({2, 2}, {1, 1}, {1, 0}, {2, 2})) ==
        Shape{1, 2, 5, 5});
  // separate H and W values
  CHECK(shape_of(K::kAvgPool2d, f32({1, 1, 9, 10}), avg_pool({3, 2}, {2, 3}, {1, 0}, true, 5)) ==
        Shape{1, 1, 5, 4});
  CHECK(shape_of(K::kAvgPool2d, f32({2, 6, 6}), avg_pool({2, 2}, {2, 2}, {0, 0})) ==
        Shape{2, 3, 3});
  CHECK(shape_of(K::kAdaptiveAvgPool2d, f32({2, 3, 7, 5}), adaptive({3, 4})) == Shape{2, 3, 3, 4});
  CHECK(shape_of(K::kAdaptiveMaxPool2d, f32({3, 2, 9}), adaptive({5, 1})) == Shape{3, 5, 1});
  CHECK(shape_of(K::kAdaptiveAvgPool2d, f32({1, 3, 4, 4}), adaptive({0, 2})) == Shape{1, 3, 0, 2});
  // other floating dtypes keep theirs
  CHECK(shape_of(K::kMaxPool2d, {DType::kF16, {1, 1, 4, 4}}, max_pool({2, 2}, {2, 2}, {0, 0})) ==
        Shape{1, 1, 2, 2});
  CHECK(shape_of(K::kAvgPool2d, {DType::kBF16, {1, 4, 4}}, avg_pool({2, 2}, {2, 2}, {1, 1})) ==
        Shape{1, 3, 3});
}

TEST_CASE("pooling attributes PyTorch refuses are invalid input") {
  using K = OpKind;
  const ErrorCode invalid = ErrorCode::kInvalidInput;
  const TensorType x = f32({1, 2, 5, 5});
  refused(K::kMaxPool2d, x, max_pool({3, 3}, {1, 1}, {2, 2}), invalid,
          "at most half of the kernel");
  refused(K::kMaxPool2d, x, max_pool({3, 3}, {1, 1}, {-1, 0}), invalid, "padding");
  refused(K::kMaxPool2d, x, max_pool({7, 7}, {1, 1}, {0, 0}), invalid, "does not fit the input");
  refused(K::kMaxPool2d, x, max_pool({3, 3}, {1, 1}, {0, 0}, {3, 3}), invalid,
          "does not fit the input");  // effective kernel 7
  refused(K::kMaxPool2d, x, max_pool({0, 3}, {1, 1}, {0, 0}), invalid, "kernel");
  refused(K::kMaxPool2d, x, max_pool({3, 3}, {0, 1}, {0, 0}), invalid, "stride");
  refused(K::kMaxPool2d, x, max_pool({3, 3}, {1, 1}, {0, 0}, {0, 1}), invalid, "dilation");
  refused(K::kMaxPool2d, x, max_pool({3}, {1, 1}, {0, 0}), invalid, "two values");
  refused(K::kMaxPool2d, x, max_pool({int64_t{1} << 40, 3}, {1, 1}, {0, 0}), invalid, "within");
  refused(K::kAvgPool2d, x, avg_pool({3, 3}, {1, 1}, {0, 0}, false, int64_t{1} << 40), invalid,
          "divisor_override");
  refused(K::kAvgPool2d, x, avg_pool({2, 2}, {1, 1}, {2, 2}), invalid, "at most half");
}

TEST_CASE("pooling inputs: ranks 3 and 4, non-empty, floating") {
  using K = OpKind;
  const Attributes a = max_pool({2, 2}, {1, 1}, {0, 0});
  refused(K::kMaxPool2d, f32({5, 5}), a, ErrorCode::kInvalidInput, "3-D [C, H, W] or 4-D");
  refused(K::kMaxPool2d, f32({1, 1, 1, 5, 5}), a, ErrorCode::kInvalidInput, "3-D");
  refused(K::kMaxPool2d, f32({1, 0, 5, 5}), a, ErrorCode::kInvalidInput, "non-empty");
  refused(K::kAdaptiveAvgPool2d, f32({1, 2, 0, 5}), adaptive({1, 1}), ErrorCode::kInvalidInput,
          "non-empty");
  refused(K::kMaxPool2d, {DType::kI64, {1, 2, 5, 5}}, a, ErrorCode::kUnsupported, "floating-point");
  refused(K::kAdaptiveMaxPool2d, {DType::kBool, {1, 2, 5, 5}}, adaptive({1, 1}),
          ErrorCode::kUnsupported, "floating-point");
  refused(K::kAdaptiveAvgPool2d, f32({1, 2, 5, 5}), adaptive({-1, 2}), ErrorCode::kInvalidInput,
          "output_size");
  refused(K::kAdaptiveAvgPool2d, f32({1, 2, 5, 5}), adaptive({2, 2, 2}), ErrorCode::kInvalidInput,
          "two values");
  // An empty batch pools to an empty batch.
  CHECK(shape_of(K::kMaxPool2d, f32({0, 2, 5, 5}), a) == Shape{0, 2, 4, 4});
}

Attributes in_layout(Attributes a, const std::string& layout) {
  a.set("layout", layout);
  return a;
}

TEST_CASE("pooling in layout nhwc: windows over dims 1 and 2 of a 4-D input only") {
  using K = OpKind;
  // [N, H, W, C]: (8 + 2 - 3) / 2 + 1 = 4 rows, (6 + 2 - 3) / 2 + 1 = 3 columns, C kept.
  CHECK(shape_of(K::kMaxPool2d, f32({2, 8, 6, 3}),
                 in_layout(max_pool({3, 3}, {2, 2}, {1, 1}), "nhwc")) == Shape{2, 4, 3, 3});
  CHECK(shape_of(K::kAvgPool2d, f32({1, 9, 10, 16}),
                 in_layout(avg_pool({3, 2}, {2, 3}, {1, 0}, true), "nhwc")) == Shape{1, 5, 4, 16});
  CHECK(shape_of(K::kAdaptiveAvgPool2d, f32({2, 7, 5, 8}), in_layout(adaptive({1, 1}), "nhwc")) ==
        Shape{2, 1, 1, 8});
  refused(K::kMaxPool2d, f32({8, 6, 3}), in_layout(max_pool({2, 2}, {1, 1}, {0, 0}), "nhwc"),
          ErrorCode::kInvalidInput, "4-D [N, H, W, C]");
  refused(K::kAdaptiveMaxPool2d, f32({1, 4, 4, 0}), in_layout(adaptive({1, 1}), "nhwc"),
          ErrorCode::kInvalidInput, "non-empty");
  refused(K::kMaxPool2d, f32({1, 2, 5, 5}), in_layout(max_pool({2, 2}, {1, 1}, {0, 0}), "nchwc"),
          ErrorCode::kInvalidInput, "layout must be");
}

}  // namespace
}  // namespace inferno::ir
