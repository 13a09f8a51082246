// The conv2d shape rule, one row per case: output shapes for stride, padding (before and after),
// dilation and groups, and every refusal with its exit code (dtype: unsupported, the rest: invalid
// input).
#include <string>
#include <vector>

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
