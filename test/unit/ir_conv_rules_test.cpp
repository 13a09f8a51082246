// The conv2d shape rule, one row per case: output shapes for stride, padding (before and after),
// dilation and groups, and every refusal with its exit code (dtype: unsupported, the rest: invalid
// input).
#include <string>
#include <vector>

#include "ir/attr_schema.h"
#include "ir/shape_rules.h"
#include "support/catch.h"

namespace inferno::ir {
namespace {

TensorType t(DType d, Shape s) { return {d, std::move(s)}; }
TensorType f32(Shape s) { return t(DType::kF32, std::move(s)); }

Attributes conv(IntList stride, IntList padding, IntList dilation, int64_t groups) {
  Attributes a;
  a.set("stride", std::move(stride));
  a.set("padding", std::move(padding));
  a.set("dilation", std::move(dilation));
  a.set("groups", groups);
  apply_attr_defaults(OpKind::kConv2d, a);
  return a;
}
const Attributes kPlain = conv({1, 1}, {0, 0, 0, 0}, {1, 1}, 1);

struct Case {
  std::vector<TensorType> inputs;
  Attributes attrs;
  Shape expected;          ///< empty: an error is expected
  std::string error = {};  ///< substring of the error message
  ErrorCode code = ErrorCode::kInvalidInput;
};

TEST_CASE("conv2d shape rule") {
  const std::vector<Case> cases = {
      // 3x3, no padding: 8 - 3 + 1
      {{f32({1, 3, 8, 8}), f32({4, 3, 3, 3})}, kPlain, {1, 4, 6, 6}},
      // padding 1, bias
      {{f32({2, 3, 8, 8}), f32({4, 3, 3, 3}), f32({4})},
       conv({1, 1}, {1, 1, 1, 1}, {1, 1}, 1),
       {2, 4, 8, 8}},
      // stride 2 rounds down: (9 + 2 - 3) / 2 + 1 = 5
      {{f32({1, 3, 9, 9}), f32({4, 3, 3, 3})}, conv({2, 2}, {1, 1, 1, 1}, {1, 1}, 1), {1, 4, 5, 5}},
      // asymmetric padding ('same' with an even kernel): 7 + 0 + 1 - 2 + 1
      {{f32({1, 1, 7, 7}), f32({1, 1, 2, 2})}, conv({1, 1}, {0, 0, 1, 1}, {1, 1}, 1), {1, 1, 7, 7}},
      // dilation 2: span 5
      {{f32({1, 2, 9, 9}), f32({2, 2, 3, 3})}, conv({1, 1}, {0, 0, 0, 0}, {2, 2}, 1), {1, 2, 5, 5}},
      // depthwise
      {{f32({1, 8, 5, 5}), f32({8, 1, 3, 3})}, conv({1, 1}, {1, 1, 1, 1}, {1, 1}, 8), {1, 8, 5, 5}},
      // grouped, and empty batch
      {{f32({0, 4, 5, 5}), f32({6, 2, 1, 1})}, conv({1, 1}, {0, 0, 0, 0}, {1, 1}, 2), {0, 6, 5, 5}},
      // f16, f64 and bf16
      {{t(DType::kF16, {1, 1, 3, 3}), t(DType::kF16, {1, 1, 3, 3})}, kPlain, {1, 1, 1, 1}},
      {{t(DType::kF64, {1, 1, 3, 3}), t(DType::kF64, {1, 1, 3, 3})}, kPlain, {1, 1, 1, 1}},
      {{t(DType::kBF16, {1, 1, 3, 3}), t(DType::kBF16, {1, 1, 3, 3})}, kPlain, {1, 1, 1, 1}},
      // refusals
      {{t(DType::kI64, {1, 1, 3, 3}), t(DType::kI64, {1, 1, 3, 3})},
       kPlain,
       {},
       "floating-point",
       ErrorCode::kUnsupported},
      {{f32({1, 1, 3, 3}), t(DType::kF16, {1, 1, 3, 3})}, kPlain, {}, "dtypes differ"},
      {{f32({1, 3, 3}), f32({1, 3, 3, 3})}, kPlain, {}, "expects x[N, C, H, W]"},
      {{f32({1, 4, 5, 5}), f32({4, 3, 3, 3})}, kPlain, {}, "expects 3 input channels"},
      {{f32({1, 3, 5, 5}), f32({4, 1, 3, 3})},
       conv({1, 1}, {0, 0, 0, 0}, {1, 1}, 2),
       {},
       "divisible by groups"},
      {{f32({1, 4, 5, 5}), f32({3, 2, 3, 3})},
       conv({1, 1}, {0, 0, 0, 0}, {1, 1}, 2),
       {},
       "divisible by groups"},
      {{f32({1, 3, 5, 5}), f32({4, 3, 3, 3}), f32({3})}, kPlain, {}, "bias f32[3]"},
      {{f32({1, 3, 5, 5}), f32({4, 3, 3, 3}), f32({1, 4})}, kPlain, {}, "bias"},
      {{f32({1, 3, 5, 5}), f32({4, 3, 3, 3})},
       conv({1, 1}, {-1, 0, 0, 0}, {1, 1}, 1),
       {},
       "padding"},
      {{f32({1, 3, 5, 5}), f32({4, 3, 3, 3})}, conv({0, 1}, {0, 0, 0, 0}, {1, 1}, 1), {}, "stride"},
      {{f32({1, 3, 5, 5}), f32({4, 3, 3, 3})},
       conv({1, 1}, {0, 0, 0, 0}, {1, 0}, 1),
       {},
       "dilation"},
      {{f32({1, 3, 5, 5}), f32({4, 3, 3, 3})}, conv({1, 1}, {0, 0, 0, 0}, {1, 1}, 0), {}, "groups"},
      {{f32({1, 3, 5, 5}), f32({4, 3, 3, 3})}, conv({1, 1}, {1, 1}, {1, 1}, 1), {}, "4 values"},
      {{f32({1, 3, 5, 5}), f32({4, 3, 3, 3})},
       conv({int64_t{1} << 40, 1}, {0, 0, 0, 0}, {1, 1}, 1),
       {},
       "stride"},
      // the kernel does not fit: 6 > 5, and dilated 5 > 4
      {{f32({1, 3, 5, 5}), f32({4, 3, 6, 1})}, kPlain, {}, "larger than the padded input"},
      {{f32({1, 3, 4, 4}), f32({4, 3, 3, 3})},
       conv({1, 1}, {0, 0, 0, 0}, {2, 2}, 1),
       {},
       "larger than the padded input"},
      {{f32({1, 3, 4, 4}), f32({4, 3, 0, 3})}, kPlain, {}, "kernel size"},
  };
  for (const Case& c : cases) {
    std::string what = "conv2d(";
    for (const TensorType& in : c.inputs) what += in.to_string() + " ";
    INFO(what + ")");
    Expected<std::vector<TensorType>> result =
        infer_output_types(OpKind::kConv2d, c.inputs, c.attrs);
    if (c.expected.empty()) {
      REQUIRE_FALSE(result.has_value());
      INFO("error: " << result.status().message());
      CHECK(result.status().code() == c.code);
      CHECK(result.status().message().find(c.error) != std::string::npos);
    } else {
      INFO((result ? std::string() : result.status().message()));
      REQUIRE(result.has_value());
      CHECK(*result == std::vector<TensorType>{{c.inputs[0].dtype, c.expected}});
    }
  }
}

// The fused epilogue and the layout (ops.def): flags decide which operands follow the bias, and
// each must have exactly its type.
Attributes fused(const std::string& activation, bool residual, bool gate,
                 const std::string& layout = "nchw") {
  Attributes a = conv({1, 1}, {1, 1, 1, 1}, {1, 1}, 1);
  a.set("activation", activation);
  a.set("residual", residual);
  a.set("gate", gate);
  a.set("layout", layout);
  return a;
}

TEST_CASE("conv2d epilogue operands and layout") {
  const TensorType x = f32({2, 3, 5, 6}), w = f32({4, 3, 3, 3}), b = f32({4}),
                   res = f32({2, 4, 5, 6}), gate = f32({2, 3, 1, 1});
  // nhwc: x [N, H, W, C], w [O, kh, kw, C], residual [N, OH, OW, O], gate [N, 1, 1, C]
  const TensorType xh = f32({2, 5, 6, 3}), wh = f32({4, 3, 3, 3}), resh = f32({2, 5, 6, 4}),
                   gateh = f32({2, 1, 1, 3});
  const std::vector<Case> cases = {
      {{x, w, b}, fused("relu6", false, false), {2, 4, 5, 6}},
      {{x, w, b, res}, fused("silu", true, false), {2, 4, 5, 6}},
      {{x, w, b, gate}, fused("none", false, true), {2, 4, 5, 6}},
      {{x, w, b, res, gate}, fused("gelu_tanh", true, true), {2, 4, 5, 6}},
      {{xh, wh, b, resh, gateh}, fused("hardswish", true, true, "nhwc"), {2, 5, 6, 4}},
      {{xh, wh}, fused("none", false, false, "nhwc"), {2, 5, 6, 4}},
      // nhwc with a stride and groups: [1, 7, 9, 4] -> [1, 4, 5, 6], w [6, 3, 3, 2]
      {{f32({1, 7, 9, 4}), f32({6, 3, 3, 2})},
       [] {
         Attributes a = conv({2, 2}, {1, 1, 1, 1}, {1, 1}, 2);
         a.set("layout", std::string("nhwc"));
         return a;
       }(),
       {1, 4, 5, 6}},
      // refusals: all invalid input (exit 3)
      {{x, w, b}, fused("tanh", false, false), {}, "unknown activation \"tanh\""},
      {{x, w, b}, fused("relu", false, false, "nhcw"), {}, "layout must be"},
      {{x, w, b}, fused("none", true, false), {}, "takes x, w, bias, residual"},
      {{x, w, res}, fused("none", true, false), {}, "takes x, w, bias, residual"},
      {{x, w, b, res}, fused("none", false, false), {}, "residual=false"},
      {{x, w, b, res}, fused("none", false, true), {}, "gate f32[2,4,5,6] must be f32[2,3,1,1]"},
      {{x, w, b, gate}, fused("none", true, false), {}, "residual f32[2,3,1,1] must be"},
      {{x, w, b, res, gate}, fused("none", true, false), {}, "takes x, w, bias, residual ("},
      {{x, w, b, f32({1, 4, 5, 6})}, fused("none", true, false), {}, "residual"},
      {{x, w, b, f32({2, 4, 1, 1})}, fused("none", true, false), {}, "residual"},
      {{x, w, b, f32({2, 3})}, fused("none", false, true), {}, "gate"},
      {{x, w, b, f32({1, 3, 1, 1})}, fused("none", false, true), {}, "gate"},
      {{x, w, b, gateh}, fused("none", false, true), {}, "gate"},
      {{xh, wh, b, gate}, fused("none", false, true, "nhwc"), {}, "must be f32[2,1,1,3]"},
      {{xh, wh, b, res}, fused("none", true, false, "nhwc"), {}, "must be the output's type"},
      {{x, w, b, t(DType::kF16, {2, 4, 5, 6})}, fused("none", true, false), {}, "dtypes differ"},
      {{x, w, b, t(DType::kF64, {2, 3, 1, 1})}, fused("none", false, true), {}, "dtypes differ"},
      // an nchw x read as nhwc: C = 6 is not the weight's 3
      {{x, w}, fused("none", false, false, "nhwc"), {}, "input channels"},
  };
  for (const Case& c : cases) {
    std::string what = "conv2d(";
    for (const TensorType& in : c.inputs) what += in.to_string() + " ";
    INFO(what + ")");
    Expected<std::vector<TensorType>> result =
        infer_output_types(OpKind::kConv2d, c.inputs, c.attrs);
    if (c.expected.empty()) {
      REQUIRE_FALSE(result.has_value());
      INFO("error: " << result.status().message());
      CHECK(result.status().code() == ErrorCode::kInvalidInput);
      CHECK(result.status().message().find(c.error) != std::string::npos);
    } else {
      INFO((result ? std::string() : result.status().message()));
      REQUIRE(result.has_value());
      CHECK(*result == std::vector<TensorType>{{c.inputs[0].dtype, c.expected}});
    }
  }
}

Attributes transposed(IntList stride, IntList padding, IntList output_padding, IntList dilation,
                      int64_t groups) {
  Attributes a;
  a.set("stride", std::move(stride));
  a.set("padding", std::move(padding));
  a.set("output_padding", std::move(output_padding));
  a.set("dilation", std::move(dilation));
  a.set("groups", groups);
  return a;
}

TEST_CASE("conv_transpose2d shape rule") {
  const std::vector<Case> cases = {
      // (in - 1) s - 2 p + d (k - 1) + op + 1
      {{f32({1, 4, 5, 5}), f32({4, 3, 3, 3})},
       transposed({1, 1}, {0, 0}, {0, 0}, {1, 1}, 1),
       {1, 3, 7, 7}},
      {{f32({2, 4, 5, 6}), f32({4, 3, 3, 3}), f32({3})},
       transposed({2, 2}, {1, 1}, {1, 0}, {1, 1}, 1),
       {2, 3, 10, 11}},
      // groups: O = w[1] * groups
      {{f32({1, 4, 3, 3}), f32({4, 2, 2, 2}), f32({4})},
       transposed({2, 1}, {0, 1}, {0, 0}, {1, 2}, 2),
       {1, 4, 6, 3}},
      {{t(DType::kI32, {1, 1, 3, 3}), t(DType::kI32, {1, 1, 3, 3})},
       transposed({1, 1}, {0, 0}, {0, 0}, {1, 1}, 1),
       {},
       "floating-point",
       ErrorCode::kUnsupported},
      {{f32({1, 4, 3, 3}), f32({3, 2, 2, 2})},
       transposed({1, 1}, {0, 0}, {0, 0}, {1, 1}, 1),
       {},
       "channels first"},
      {{f32({1, 4, 3, 3}), f32({4, 2, 2, 2})},
       transposed({1, 1}, {0, 0}, {0, 0}, {1, 1}, 3),
       {},
       "multiple of groups"},
      {{f32({1, 4, 3, 3}), f32({4, 2, 2, 2}), f32({2})},
       transposed({1, 1}, {0, 0}, {0, 0}, {1, 1}, 2),
       {},
       "bias"},
      {{f32({1, 4, 3, 3}), f32({4, 2, 2, 2})},
       transposed({2, 2}, {0, 0}, {2, 0}, {1, 1}, 1),
       {},
       "output_padding"},
      {{f32({1, 4, 3, 3}), f32({4, 2, 2, 2})},
       transposed({1, 1}, {3, 0}, {0, 0}, {1, 1}, 1),
       {},
       "would be empty"},
      {{f32({1, 4, 3, 3}), f32({4, 2, 2, 2})},
       transposed({1, 1}, {0, 0, 0, 0}, {0, 0}, {1, 1}, 1),
       {},
       "2 values"},
      {{f32({1, 4, 3, 3}), f32({4, 2, 2, 2})},
       transposed({1, 0}, {0, 0}, {0, 0}, {1, 1}, 1),
       {},
       "stride"},
  };
  for (const Case& c : cases) {
    INFO(c.inputs[0].to_string() + ", " + c.inputs[1].to_string());
    Expected<std::vector<TensorType>> result =
        infer_output_types(OpKind::kConvTranspose2d, c.inputs, c.attrs);
    if (c.expected.empty()) {
      REQUIRE_FALSE(result.has_value());
      INFO("error: " << result.status().message());
      CHECK(result.status().code() == c.code);
      CHECK(result.status().message().find(c.error) != std::string::npos);
    } else {
      INFO((result ? std::string() : result.status().message()));
      REQUIRE(result.has_value());
      CHECK(*result == std::vector<TensorType>{{c.inputs[0].dtype, c.expected}});
    }
  }
}

}  // namespace
}  // namespace inferno::ir
