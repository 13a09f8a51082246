// The convolution entries of the ATen table: conv2d and conv1d (int and string padding),
// convolution, _convolution and _convolution_mode to one IR conv2d with resolved attributes,
// the transposed forms, reshapes for conv1d and unbatched inputs, and the refusals (3-D:
// unsupported; 'same' with a stride, a bad padding string: invalid).
#include <string>

#include "frontend/aten_table.h"
#include "ir/verifier.h"
#include "support/catch.h"

namespace inferno::frontend {
namespace {

using ir::DType;
using ir::IntList;
using ir::OpKind;
using ir::ValueId;

struct G {
  ir::Graph g;
  ValueId in(ir::Shape shape) {
    return g.add_input("in" + std::to_string(g.inputs().size()), {DType::kF32, std::move(shape)});
  }
  Expected<std::vector<ValueId>> lower(std::string op, std::vector<AtenArg> pos,
                                       std::string overload = "") {
    AtenCall call{std::move(op), std::move(overload), std::move(pos), {}, "node", {"m.py", 3}};
    return lower_aten_call(g, call);
  }
  ValueId one(std::string op, std::vector<AtenArg> pos, std::string overload = "") {
    auto out = lower(op, std::move(pos), std::move(overload));
    INFO(op << ": " << (out ? std::string() : out.status().to_string()));
    REQUIRE(out.has_value());
    REQUIRE(out->size() == 1);
    return out->front();
  }
  const ir::Node& conv() const {
    for (const ir::Node& n : g.nodes()) {
      if (n.op == OpKind::kConv2d) return n;
    }
    FAIL("no conv2d node");
    return g.nodes().front();
  }
  std::string type(ValueId v) const { return g.type(v).to_string(); }
};

AtenArg ints(IntList v) { return AtenArg{std::move(v)}; }
AtenArg i64(int64_t v) { return AtenArg{v}; }
const AtenArg kNone = NoneArg{};

TEST_CASE("aten conv2d, conv1d and convolution", "[frontend][aten]") {
  SECTION("conv2d with int padding and a bias") {
    G t;
    const ValueId x = t.in({2, 4, 9, 9}), w = t.in({6, 2, 3, 3}), b = t.in({6});
    const ValueId y = t.one("aten::conv2d", {x, w, b, ints({2}), ints({1, 0}), ints({1}), i64(2)});
    CHECK(t.type(y) == "f32[2,6,5,4]");  // W: (9 - 3) / 2 + 1
    const ir::Node& n = t.conv();
    CHECK(n.inputs.size() == 3);
    CHECK(n.attrs.get_ints("stride") == IntList{2, 2});
    CHECK(n.attrs.get_ints("padding") == IntList{1, 0, 1, 0});
    CHECK(n.attrs.get_ints("dilation") == IntList{1, 1});
    CHECK(n.attrs.get_int("groups") == 2);
  }
  SECTION("conv2d padding='same' with an even kernel pads more after") {
    G t;
    const ValueId x = t.in({1, 2, 8, 8}), w = t.in({3, 2, 4, 2});
    const ValueId y =
        t.one("aten::conv2d", {x, w, kNone, ints({1}), std::string("same"), ints({1, 2}), i64(1)},
              "padding");
    CHECK(t.type(y) == "f32[1,3,8,8]");
    CHECK(t.conv().attrs.get_ints("padding") == IntList{1, 1, 2, 1});
    CHECK(t.conv().inputs.size() == 2);
  }
  SECTION("conv2d padding='valid' and defaults") {
    G t;
    const ValueId y = t.one("aten::conv2d", {t.in({1, 2, 5, 5}), t.in({3, 2, 3, 3}), kNone,
                                             ints({1}), std::string("valid")});
    CHECK(t.type(y) == "f32[1,3,3,3]");
    const ValueId z = t.one("aten::conv2d", {t.in({1, 2, 5, 5}), t.in({3, 2, 3, 3})});
    CHECK(t.type(z) == "f32[1,3,3,3]");
  }
  SECTION("an unbatched conv2d gets a batch dim and loses it again") {
    G t;
    const ValueId y = t.one("aten::conv2d", {t.in({2, 5, 5}), t.in({3, 2, 3, 3})});
    CHECK(t.type(y) == "f32[3,3,3]");
  }
  SECTION("conv1d runs as conv2d over [N, C, 1, L]") {
    G t;
    const ValueId y = t.one("aten::conv1d", {t.in({2, 4, 16}), t.in({6, 4, 3}), t.in({6}),
                                             ints({2}), ints({1}), ints({1}), i64(1)});
    CHECK(t.type(y) == "f32[2,6,8]");
    CHECK(t.conv().attrs.get_ints("stride") == IntList{1, 2});
    CHECK(t.conv().attrs.get_ints("padding") == IntList{0, 1, 0, 1});
    CHECK(t.type(t.conv().inputs[1]) == "f32[6,4,1,3]");
  }
  SECTION("_convolution (TorchScript's 13 arguments) and convolution") {
    G t;
    const ValueId x = t.in({1, 4, 6, 6}), w = t.in({4, 1, 3, 3});
    const ValueId y =
        t.one("aten::_convolution", {x, w, kNone, ints({1, 1}), ints({1, 1}), ints({2, 2}), false,
                                     ints({0, 0}), i64(4), false, false, true, true});
    CHECK(t.type(y) == "f32[1,4,4,4]");
    const ValueId z = t.one("aten::convolution", {x, w, kNone, ints({1, 1}), ints({0, 0}),
                                                  ints({1, 1}), false, ints({0, 0}), i64(4)});
    CHECK(t.type(z) == "f32[1,4,4,4]");
    const ValueId s = t.one("aten::_convolution_mode",
                            {x, w, kNone, ints({1, 1}), std::string("same"), ints({1, 1}), i64(4)});
    CHECK(t.type(s) == "f32[1,4,6,6]");
  }
  SECTION("transposed: convolution, _convolution and conv_transpose2d / 1d") {
    G t;
    const ValueId x = t.in({1, 4, 5, 6}), w = t.in({4, 3, 3, 3}), b = t.in({6});
    // (5 - 1) 2 - 2 + 2 + 1 + 1 = 10, (6 - 1) 2 - 2 + 2 + 0 + 1 = 11; O = 3 * groups 2
    const ValueId y = t.one("aten::convolution", {x, w, b, ints({2, 2}), ints({1, 1}), ints({1, 1}),
                                                  true, ints({1, 0}), i64(2)});
    CHECK(t.type(y) == "f32[1,6,10,11]");
    const ir::Node* n = nullptr;
    for (const ir::Node& node : t.g.nodes()) n = node.op == OpKind::kConvTranspose2d ? &node : n;
    REQUIRE(n != nullptr);
    CHECK(n->attrs.get_ints("padding") == IntList{1, 1});
    CHECK(n->attrs.get_ints("output_padding") == IntList{1, 0});
    CHECK(n->attrs.get_int("groups") == 2);
    const ValueId z =
        t.one("aten::_convolution", {x, w, kNone, ints({1, 1}), ints({0, 0}), ints({1, 1}), true,
                                     ints({0, 0}), i64(1), false, false, true, true});
    CHECK(t.type(z) == "f32[1,3,7,8]");
    // conv_transpose2d: groups before dilation
    const ValueId u = t.one("aten::conv_transpose2d",
                            {x, w, kNone, ints({2}), ints({1}), ints({1}), i64(1), ints({2})});
    CHECK(t.type(u) == "f32[1,3,12,14]");
    const ValueId v = t.one("aten::conv_transpose1d", {t.in({2, 4, 7}), t.in({4, 5, 3}), kNone,
                                                       ints({2}), ints({1}), ints({1})});
    CHECK(t.type(v) == "f32[2,5,14]");
    auto transposed_same = t.lower(
        "aten::convolution",
        {x, w, kNone, ints({1, 1}), std::string("same"), ints({1, 1}), true, ints({0, 0}), i64(1)});
    REQUIRE_FALSE(transposed_same.has_value());
  }
  SECTION("refusals") {
    G t;
    const ValueId x = t.in({1, 4, 6, 6}), w = t.in({4, 4, 3, 3});
    auto mode_same =
        t.lower("aten::_convolution_mode",
                {x, w, kNone, ints({1, 1}), std::string("same"), ints({1, 1}), i64(1)});
    REQUIRE(mode_same.has_value());
    auto bad_output_padding = t.lower("aten::conv_transpose2d", {x, w, kNone, ints({1}), ints({0}),
                                                                 ints({1}), i64(1), ints({1})});
    REQUIRE_FALSE(bad_output_padding.has_value());
    CHECK(bad_output_padding.status().code() == ErrorCode::kInvalidInput);
    CHECK(bad_output_padding.status().node() == "node");
    auto conv3d =
        t.lower("aten::convolution", {t.in({1, 4, 6, 6, 6}), t.in({4, 4, 3, 3, 3}), kNone,
                                      ints({1}), ints({0}), ints({1}), true, ints({0}), i64(1)});
    REQUIRE_FALSE(conv3d.has_value());
    CHECK(conv3d.status().code() == ErrorCode::kUnsupported);
    CHECK(conv3d.status().message().find("3-D transposed") != std::string::npos);
    auto strided_same =
        t.lower("aten::conv2d", {x, w, kNone, ints({2}), std::string("same"), ints({1}), i64(1)},
                "padding");
    REQUIRE_FALSE(strided_same.has_value());
    CHECK(strided_same.status().code() == ErrorCode::kInvalidInput);
    auto bad_mode =
        t.lower("aten::conv2d", {x, w, kNone, ints({1}), std::string("full"), ints({1}), i64(1)},
                "padding");
    REQUIRE_FALSE(bad_mode.has_value());
    CHECK(bad_mode.status().code() == ErrorCode::kInvalidInput);
    auto bad_groups =
        t.lower("aten::conv2d", {x, w, kNone, ints({1}), ints({0}), ints({1}), i64(3)});
    REQUIRE_FALSE(bad_groups.has_value());
    CHECK(bad_groups.status().code() == ErrorCode::kInvalidInput);
    CHECK(bad_groups.status().node() == "node");
    auto bad_stride =
        t.lower("aten::conv2d", {x, w, kNone, ints({1, 1, 1}), ints({0}), ints({1}), i64(1)});
    REQUIRE_FALSE(bad_stride.has_value());
    CHECK(bad_stride.status().code() == ErrorCode::kInvalidInput);
  }
}

}  // namespace
}  // namespace inferno::frontend
