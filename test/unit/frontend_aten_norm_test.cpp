// The normalization entries of the ATen table: layer_norm, native_layer_norm and rms_norm
// (normalized_shape to normalized_dims; rms_norm's eps None is torch.finfo's), group_norm and
// native_group_norm (N, C and HxW checked against the input), optional parameters (a bias alone
// gets a weight of ones, parameters of another dtype are cast to x's), the 3-output forms' unused
// statistics (kNoValue), and the refusals (invalid input naming the ATen op and the node).
#include <string>

#include "frontend/aten_table.h"
#include "ir/verifier.h"
#include "support/catch.h"

namespace inferno::frontend {
namespace {

using ir::DType;
using ir::OpKind;
using ir::ValueId;

struct G {
  ir::Graph g;
  ValueId in(ir::Shape shape, DType dtype = DType::kF32) {
    return g.add_input("in" + std::to_string(g.inputs().size()), {dtype, std::move(shape)});
  }
  Expected<std::vector<ValueId>> lower(std::string op, std::vector<AtenArg> pos) {
    AtenCall call{std::move(op), "default", std::move(pos), {}, "norm", {"m.py", 5}};
    return lower_aten_call(g, call);
  }
  std::vector<ValueId> ok(std::string op, std::vector<AtenArg> pos) {
    auto out = lower(op, std::move(pos));
    INFO(op << ": " << (out ? std::string() : out.status().to_string()));
    REQUIRE(out.has_value());
    CHECK(ir::verify(g).is_ok());
    return *out;
  }
  const ir::Node& last() const { return g.nodes().back(); }
};

AtenArg ints(ir::IntList v) { return AtenArg{std::move(v)}; }
AtenArg i64(int64_t v) { return AtenArg{v}; }
const AtenArg kNone = NoneArg{};

void refused(G& t, const std::string& op, std::vector<AtenArg> pos, const std::string& needle) {
  auto out = t.lower(op, std::move(pos));
  REQUIRE(!out.has_value());
  INFO(out.status().to_string());
  CHECK(out.status().code() == ErrorCode::kInvalidInput);
  CHECK(out.status().message().find(op + ": ") == 0);
  CHECK(out.status().message().find(needle) != std::string::npos);
  CHECK(out.status().node() == "norm");
}

TEST_CASE("aten layer_norm and native_layer_norm", "[frontend][aten]") {
  SECTION("over the last two dims, with weight and bias") {
    G t;
    const ValueId x = t.in({2, 3, 4}), w = t.in({3, 4}), b = t.in({3, 4});
    const auto out = t.ok("aten::layer_norm", {x, ints({3, 4}), w, b, 1e-6, true});
    REQUIRE(out.size() == 1);
    const ir::Node& n = t.last();
    CHECK(n.op == OpKind::kLayerNorm);
    CHECK(n.inputs == std::vector<ValueId>{x, w, b});
    CHECK(n.attrs.get_int("normalized_dims") == 2);
    CHECK(n.attrs.get_float("eps") == 1e-6);
    CHECK(t.g.type(out[0]).to_string() == "f32[2,3,4]");
  }
  SECTION("defaults: no parameters, eps 1e-5") {
    G t;
    const ValueId x = t.in({5, 6});
    t.ok("aten::layer_norm", {x, ints({6})});
    CHECK(t.last().inputs.size() == 1);
    CHECK(t.last().attrs.get_float("eps") == 1e-5);
  }
  SECTION("a bias without a weight gets a weight of ones") {
    G t;
    const ValueId x = t.in({2, 6}), b = t.in({6});
    t.ok("aten::layer_norm", {x, ints({6}), kNone, b});
    const ir::Node& n = t.last();
    REQUIRE(n.inputs.size() == 3);
    CHECK(n.inputs[2] == b);
    const ir::Tensor* ones = t.g.value(n.inputs[1]).constant.get();
    REQUIRE(ones != nullptr);
    CHECK(ones->type.to_string() == "f32[6]");
    for (int64_t i = 0; i < 6; ++i) CHECK(ones->get(i) == 1);
  }
  SECTION("f32 parameters of an f16 input are cast to f16") {
    G t;
    const ValueId x = t.in({2, 8}, DType::kF16), w = t.in({8}), b = t.in({8});
    const auto out = t.ok("aten::layer_norm", {x, ints({8}), w, b});
    const ir::Node& n = t.last();
    CHECK(t.g.type(out[0]).to_string() == "f16[2,8]");
    for (size_t k = 1; k < 3; ++k) CHECK(t.g.type(n.inputs[k]).dtype == DType::kF16);
  }
  SECTION("native_layer_norm: the saved mean and rstd are not computed") {
    G t;
    const ValueId x = t.in({4, 10}), w = t.in({10});
    const auto out = t.ok("aten::native_layer_norm", {x, ints({10}), w, kNone, 1e-5});
    REQUIRE(out.size() == 3);
    CHECK(out[0] != ir::kNoValue);
    CHECK(out[1] == ir::kNoValue);
    CHECK(out[2] == ir::kNoValue);
    CHECK(t.last().inputs.size() == 2);
  }
  SECTION("refusals") {
    G t;
    const ValueId x = t.in({2, 3, 4});
    refused(t, "aten::layer_norm", {x, ints({3})}, "normalized_shape [3] must be");
    refused(t, "aten::layer_norm", {x, ints({2, 3, 4, 5})}, "trailing part");
    refused(t, "aten::layer_norm", {x, ints({})}, "non-empty");
    refused(t, "aten::native_layer_norm", {x, ints({4}), t.in({3}), kNone, 1e-5},
            "weight f32[3] must be f32[4]");
  }
}

TEST_CASE("aten rms_norm", "[frontend][aten]") {
  SECTION("over the last dim with a weight and an eps") {
    G t;
    const ValueId x = t.in({2, 3, 8}), w = t.in({8});
    const auto out = t.ok("aten::rms_norm", {x, ints({8}), w, 1e-6});
    REQUIRE(out.size() == 1);
    const ir::Node& n = t.last();
    CHECK(n.op == OpKind::kRmsNorm);
    CHECK(n.inputs == std::vector<ValueId>{x, w});
    CHECK(n.attrs.get_int("normalized_dims") == 1);
    CHECK(n.attrs.get_float("eps") == 1e-6);
    CHECK(t.g.type(out[0]).to_string() == "f32[2,3,8]");
  }
  SECTION("eps None is torch.finfo(x.dtype).eps; no weight") {
    const std::pair<DType, double> cases[] = {{DType::kF32, 1.1920928955078125e-07},
                                              {DType::kF16, 0.0009765625},
                                              {DType::kBF16, 0.0078125},
                                              {DType::kF64, 2.220446049250313e-16}};
    for (const auto& [dtype, eps] : cases) {
      G t;
      t.ok("aten::rms_norm", {t.in({4, 6}, dtype), ints({4, 6})});
      CHECK(t.last().inputs.size() == 1);
      CHECK(t.last().attrs.get_int("normalized_dims") == 2);
      CHECK(t.last().attrs.get_float("eps") == eps);
    }
  }
  SECTION("an f32 weight of a bf16 input is cast to bf16") {
    G t;
    const ValueId x = t.in({2, 8}, DType::kBF16), w = t.in({8});
    t.ok("aten::rms_norm", {x, ints({8}), w, kNone});
    CHECK(t.g.type(t.last().inputs[1]).dtype == DType::kBF16);
  }
  SECTION("refusals") {
    G t;
    const ValueId x = t.in({2, 3, 4});
    refused(t, "aten::rms_norm", {x, ints({3})}, "normalized_shape [3] must be");
    refused(t, "aten::rms_norm", {x, ints({4}), t.in({3})}, "weight f32[3] must be f32[4]");
  }
}

TEST_CASE("aten group_norm and native_group_norm", "[frontend][aten]") {
  SECTION("group_norm with weight and bias") {
    G t;
    const ValueId x = t.in({2, 6, 5, 4}), w = t.in({6}), b = t.in({6});
    const auto out = t.ok("aten::group_norm", {x, i64(3), w, b, 1e-3, true});
    REQUIRE(out.size() == 1);
    const ir::Node& n = t.last();
    CHECK(n.op == OpKind::kGroupNorm);
    CHECK(n.inputs == std::vector<ValueId>{x, w, b});
    CHECK(n.attrs.get_int("groups") == 3);
    CHECK(n.attrs.get_float("eps") == 1e-3);
  }
  SECTION("native_group_norm: N, C and HxW restate the input; statistics not computed") {
    G t;
    const ValueId x = t.in({2, 8, 3, 5});
    const auto out =
        t.ok("aten::native_group_norm", {x, kNone, kNone, i64(2), i64(8), i64(15), i64(4), 1e-5});
    REQUIRE(out.size() == 3);
    CHECK(out[1] == ir::kNoValue);
    CHECK(out[2] == ir::kNoValue);
    CHECK(t.last().attrs.get_int("groups") == 4);
    CHECK(t.last().inputs.size() == 1);
  }
  SECTION("refusals") {
    G t;
    const ValueId x = t.in({2, 6, 5});
    refused(t, "aten::group_norm", {x, i64(4)}, "groups 4 must be >= 1 and divide the 6");
    refused(t, "aten::group_norm", {t.in({6}), i64(1)}, "[N, C, *]");
    refused(t, "aten::group_norm", {x, i64(2), t.in({5})}, "weight f32[5] must be f32[6]");
    refused(t, "aten::native_group_norm", {x, kNone, kNone, i64(2), i64(6), i64(4), i64(2), 1e-5},
            "N, C, HxW = 2, 6, 4 do not describe the input f32[2,6,5]");
    refused(t, "aten::native_group_norm", {x, kNone, kNone, i64(1), i64(6), i64(5), i64(2), 1e-5},
            "do not describe");
  }
}

}  // namespace
}  // namespace inferno::frontend
