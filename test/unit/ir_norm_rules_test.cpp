// Shape rules of layer_norm and group_norm: the output is x's type; weight and bias must have
// exactly the shape PyTorch requires and x's dtype, or the node is invalid input (exit 3) named
// by the builder; integer inputs are unsupported (exit 2).
#include <cmath>
#include <limits>
#include <string>

#include "ir/builder.h"
#include "ir/shape_rules.h"
#include "support/catch.h"

namespace inferno::ir {
namespace {

Attributes layer(int64_t dims, double eps = 1e-5) {
  Attributes a;
  a.set("normalized_dims", dims);
  a.set("eps", eps);
  return a;
}

Attributes grouped(int64_t groups, double eps = 1e-5) {
  Attributes a;
  a.set("groups", groups);
  a.set("eps", eps);
  return a;
}

void accepted(OpKind op, const std::vector<TensorType>& in, const Attributes& a) {
  auto out = infer_output_types(op, in, a);
  INFO((out ? "" : out.status().to_string()));
  REQUIRE(out.has_value());
  REQUIRE(out->size() == 1);
  CHECK((*out)[0] == in[0]);
}

void refused(OpKind op, const std::vector<TensorType>& in, const Attributes& a, ErrorCode code,
             const std::string& needle) {
  auto out = infer_output_types(op, in, a);
  REQUIRE(!out.has_value());
  INFO(out.status().to_string());
  CHECK(out.status().code() == code);
  CHECK(out.status().message().find(needle) != std::string::npos);
}

constexpr ErrorCode kInvalid = ErrorCode::kInvalidInput;

TEST_CASE("layer_norm keeps x's type and checks weight and bias against the normalized dims") {
  const TensorType x{DType::kF32, {2, 3, 4}};
  accepted(OpKind::kLayerNorm, {x}, layer(1));
  accepted(OpKind::kLayerNorm, {x, {DType::kF32, {4}}}, layer(1));
  accepted(OpKind::kLayerNorm, {x, {DType::kF32, {3, 4}}, {DType::kF32, {3, 4}}}, layer(2));
  accepted(OpKind::kLayerNorm, {x, {DType::kF32, {2, 3, 4}}}, layer(3));
  accepted(OpKind::kLayerNorm, {{DType::kBF16, {5, 0}}, {DType::kBF16, {0}}}, layer(1));
  accepted(OpKind::kLayerNorm, {{DType::kF16, {7}}}, layer(1, 0.0));

  refused(OpKind::kLayerNorm, {x}, layer(0), kInvalid, "normalized_dims 0 must be within [1, 3]");
  refused(OpKind::kLayerNorm, {x}, layer(4), kInvalid, "normalized_dims");
  refused(OpKind::kLayerNorm, {{DType::kF32, {}}}, layer(1), kInvalid, "normalized_dims");
  refused(OpKind::kLayerNorm, {x, {DType::kF32, {3}}}, layer(1), kInvalid,
          "weight f32[3] must be f32[4]");
  refused(OpKind::kLayerNorm, {x, {DType::kF32, {1, 4}}}, layer(1), kInvalid, "weight");
  refused(OpKind::kLayerNorm, {x, {DType::kF32, {3, 4}}, {DType::kF32, {4}}}, layer(2), kInvalid,
          "bias f32[4] must be f32[3,4]");
  refused(OpKind::kLayerNorm, {x, {DType::kF16, {4}}}, layer(1), kInvalid, "must be f32[4]");
  refused(OpKind::kLayerNorm, {x}, layer(1, std::nan("")), kInvalid, "eps must be finite");
  refused(OpKind::kLayerNorm, {x}, layer(1, std::numeric_limits<double>::infinity()), kInvalid,
          "eps");
  refused(OpKind::kLayerNorm, {{DType::kI64, {2, 3}}}, layer(1), ErrorCode::kUnsupported,
          "floating-point");
  refused(OpKind::kLayerNorm, {x, x, x, x}, layer(1), kInvalid, "takes 1 to 3 inputs");
}

TEST_CASE("rms_norm keeps x's type and checks its weight against the normalized dims") {
  const TensorType x{DType::kBF16, {2, 3, 8}};
  accepted(OpKind::kRmsNorm, {x}, layer(1));
  accepted(OpKind::kRmsNorm, {x, {DType::kBF16, {8}}}, layer(1));
  accepted(OpKind::kRmsNorm, {x, {DType::kBF16, {3, 8}}}, layer(2));
  accepted(OpKind::kRmsNorm, {{DType::kF32, {4, 0}}, {DType::kF32, {0}}}, layer(1));

  refused(OpKind::kRmsNorm, {x}, layer(0), kInvalid, "normalized_dims 0 must be within [1, 3]");
  refused(OpKind::kRmsNorm, {x}, layer(4), kInvalid, "normalized_dims");
  refused(OpKind::kRmsNorm, {x, {DType::kBF16, {3}}}, layer(1), kInvalid,
          "weight bf16[3] must be bf16[8]");
  refused(OpKind::kRmsNorm, {x, {DType::kF32, {8}}}, layer(1), kInvalid, "must be bf16[8]");
  refused(OpKind::kRmsNorm, {x}, layer(1, std::nan("")), kInvalid, "eps must be finite");
  refused(OpKind::kRmsNorm, {{DType::kI32, {2, 3}}}, layer(1), ErrorCode::kUnsupported,
          "floating-point");
  // No bias: a third operand is an arity error.
  const TensorType w{DType::kBF16, {8}};
  refused(OpKind::kRmsNorm, {x, w, w}, layer(1), kInvalid, "takes 1 to 2 inputs");
}

TEST_CASE("group_norm keeps x's type and checks groups and the per-channel weight and bias") {
  const TensorType x{DType::kF16, {2, 6, 5, 4}};
  const TensorType per_channel{DType::kF16, {6}};
  accepted(OpKind::kGroupNorm, {x}, grouped(3));
  accepted(OpKind::kGroupNorm, {x, per_channel, per_channel}, grouped(6));
  accepted(OpKind::kGroupNorm, {x, per_channel}, grouped(1));
  accepted(OpKind::kGroupNorm, {{DType::kF64, {3, 4}}}, grouped(2));  // [N, C]
  accepted(OpKind::kGroupNorm, {{DType::kF32, {2, 4, 7}}}, grouped(4));

  refused(OpKind::kGroupNorm, {x}, grouped(4), kInvalid, "groups 4 must be >= 1 and divide the 6");
  refused(OpKind::kGroupNorm, {x}, grouped(0), kInvalid, "groups 0");
  refused(OpKind::kGroupNorm, {x}, grouped(-3), kInvalid, "groups -3");
  refused(OpKind::kGroupNorm, {{DType::kF32, {6}}}, grouped(1), kInvalid, "[N, C, *]");
  refused(OpKind::kGroupNorm, {x, {DType::kF16, {3}}}, grouped(3), kInvalid,
          "weight f16[3] must be f16[6]");
  refused(OpKind::kGroupNorm, {x, per_channel, {DType::kF16, {1, 6}}}, grouped(3), kInvalid,
          "bias f16[1,6]");
  refused(OpKind::kGroupNorm, {x, {DType::kF32, {6}}}, grouped(3), kInvalid, "must be f16[6]");
  refused(OpKind::kGroupNorm, {x}, grouped(3, std::nan("")), kInvalid, "eps");
  refused(OpKind::kGroupNorm, {{DType::kI32, {2, 6}}}, grouped(3), ErrorCode::kUnsupported,
          "floating-point");
}

TEST_CASE("a norm node with a mismatched weight is invalid input naming the node") {
  Graph g;
  const ValueId x = g.add_input("x", {DType::kF32, {2, 8}});
  const ValueId w = g.add_input("w", {DType::kF32, {7}});
  auto y = build_value(g, OpKind::kLayerNorm, {x, w}, layer(1), "ln1");
  REQUIRE(!y.has_value());
  CHECK(y.status().code() == kInvalid);
  CHECK(y.status().node() == "ln1");
  CHECK(y.status().message().find("layer_norm: weight") == 0);
  auto z = build_value(g, OpKind::kGroupNorm, {x, w}, grouped(2), "gn1");
  REQUIRE(!z.has_value());
  CHECK(z.status().node() == "gn1");
  CHECK(z.status().message().find("group_norm: weight f32[7] must be f32[8]") == 0);
}

}  // namespace
}  // namespace inferno::ir
