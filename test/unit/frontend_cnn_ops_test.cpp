// The ATen table's CNN entries: batch_norm (TorchScript, default export and core forms) as a
// per-channel scale and shift that matches PyTorch's inference formula on the reference; the
// pooling entries (argument normalization, index outputs as kNoValue, the 1x1 adaptive average
// as a mean); cat and constant padding; and what they refuse, unsupported (exit 2) or invalid (exit
// 3), naming the node.
#include <cmath>
#include <string>

#include "frontend/aten_table.h"
#include "ir/builder.h"
#include "passes/pipeline.h"
#include "reference/interpreter.h"
#include "support/catch.h"
#include "support/test_support.h"

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
  ValueId constant(ir::Shape shape, uint64_t seed, double offset = 0) {
    ir::Tensor t = test::random_tensor({DType::kF32, std::move(shape)}, seed);
    for (int64_t i = 0; i < t.numel(); ++i) t.set(i, t.get(i) + offset);
    return g.add_constant("c" + std::to_string(seed), std::move(t));
  }
  Expected<std::vector<ValueId>> lower(std::string op, std::vector<AtenArg> pos) {
    AtenCall call{std::move(op), "", std::move(pos), {}, "node", {"model.py", 7}};
    return lower_aten_call(g, call);
  }
  const ir::Node& node_of(ValueId v) const {
    for (const ir::Node& n : g.nodes()) {
      if (!n.outputs.empty() && n.outputs.front() == v) return n;
    }
    FAIL("value is not a node output");
    return g.nodes().front();
  }
};

AtenArg ints(std::vector<int64_t> v) { return AtenArg{std::move(v)}; }
AtenArg i64(int64_t v) { return AtenArg{v}; }
const AtenArg kNone = NoneArg{};

void check_error(const Expected<std::vector<ValueId>>& out, ErrorCode code,
                 const std::string& needle) {
  REQUIRE(!out);
  INFO(out.status().to_string());
  CHECK(out.status().code() == code);
  CHECK(out.status().message().find(needle) != std::string::npos);
  CHECK(out.status().node() == "node");
}

// y = (x - mean) / sqrt(var + eps) * w + b, per channel (dim 1), in double.
double bn_expected(const ir::Tensor& x, int64_t i, int64_t channels, int64_t inner,
                   const ir::Tensor* w, const ir::Tensor* b, const ir::Tensor& mean,
                   const ir::Tensor& var, double eps) {
  const int64_t c = (i / inner) % channels;
  double y = (x.get(i) - mean.get(c)) / std::sqrt(var.get(c) + eps);
  if (w) y *= w->get(c);
  if (b) y += b->get(c);
  return y;
}

TEST_CASE("batch_norm at inference is a per-channel scale and shift", "[frontend][aten]") {
  struct Form {
    std::string op;
    size_t outputs;
  };
  for (const Form& form : {Form{"aten::batch_norm", 1}, Form{"aten::native_batch_norm", 3},
                           Form{"aten::_native_batch_norm_legit_no_training", 3}}) {
    for (const ir::Shape& shape : {ir::Shape{2, 3, 4, 5}, ir::Shape{4, 3}, ir::Shape{2, 3, 6}}) {
      for (const bool affine : {true, false}) {
        INFO(form.op << " on " << ir::shape_to_string(shape) << (affine ? " affine" : ""));
        G t;
        const ValueId x = t.in(shape);
        const ValueId w = t.constant({3}, 1), b = t.constant({3}, 2), mean = t.constant({3}, 3),
                      var = t.constant({3}, 4, 2.5);  // var in [0.5, 4.5)
        // One push at a time: GCC 12 warns (maybe-uninitialized) on brace lists of variants.
        std::vector<AtenArg> args;
        args.emplace_back(x);
        args.emplace_back(affine ? AtenArg{w} : kNone);
        args.emplace_back(affine ? AtenArg{b} : kNone);
        args.emplace_back(mean);
        args.emplace_back(var);
        if (form.op != "aten::_native_batch_norm_legit_no_training") args.push_back(false);
        args.push_back(0.1);
        args.push_back(1e-3);
        if (form.op == "aten::batch_norm") args.push_back(true);
        auto out = t.lower(form.op, args);
        INFO((out ? "" : out.status().to_string()));
        REQUIRE(out.has_value());
        REQUIRE(out->size() == form.outputs);
        for (size_t k = 1; k < out->size(); ++k) CHECK((*out)[k] == ir::kNoValue);
        CHECK(t.g.type(out->front()) == t.g.type(x));
        t.g.set_outputs({out->front()});
        // The parameters' data, before the pipeline replaces them by folded constants.
        auto data = [&](ValueId v) { return *t.g.value(v).constant; };
        const ir::Tensor wt = data(w), bt = data(b), mt = data(mean), vt = data(var);
        // The optimized graph folds the parameters into two constants and fuses the rest.
        REQUIRE(passes::run_default_pipeline(t.g, {}).is_ok());
        CHECK(t.g.nodes().size() == 1);
        const ir::Tensor in = test::random_tensor(t.g.type(t.g.inputs()[0]), 9);
        auto y = reference::evaluate(t.g, {in});
        REQUIRE(y.has_value());
        const int64_t inner = shape.size() > 2 ? in.numel() / (shape[0] * shape[1]) : 1;
        ir::Tensor expected = ir::Tensor::zeros((*y)[0].type);
        for (int64_t i = 0; i < in.numel(); ++i) {
          expected.set(i, bn_expected(in, i, 3, inner, affine ? &wt : nullptr,
                                      affine ? &bt : nullptr, mt, vt, 1e-3));
        }
        const std::string mismatch = test::compare_close((*y)[0], expected, 1e-5, 1e-5);
        INFO(mismatch);
        CHECK(mismatch.empty());
      }
    }
  }
}

TEST_CASE("batch_norm: f16 input with f32 statistics keeps f16", "[frontend][aten]") {
  G t;
  const ValueId x = t.in({2, 3, 4}, DType::kF16);
  auto out =
      t.lower("aten::batch_norm", {x, t.constant({3}, 1), t.constant({3}, 2), t.constant({3}, 3),
                                   t.constant({3}, 4, 3.0), false, 0.1, 1e-5, true});
  REQUIRE(out.has_value());
  CHECK(t.g.type(out->front()).to_string() == "f16[2,3,4]");
}

TEST_CASE("batch_norm takes batch statistics in training mode, refuses malformed parameters",
          "[frontend][aten]") {
  G t;
  const ValueId x = t.in({2, 3, 4, 4});
  const ValueId c3 = t.constant({3}, 1), c4 = t.constant({4}, 2);
  // Training mode: x's own statistics (frontend_aten_statistics_test checks the values); the
  // 3-output form keeps no saved statistics.
  auto trained = t.lower("aten::batch_norm", {x, c3, c3, c3, c3, true, 0.1, 1e-5, true});
  REQUIRE(trained.has_value());
  CHECK(t.g.type(trained->front()).to_string() == "f32[2,3,4,4]");
  trained = t.lower("aten::native_batch_norm", {x, c3, c3, c3, c3, true, 0.1, 1e-5});
  REQUIRE(trained.has_value());
  REQUIRE(trained->size() == 3);
  CHECK((*trained)[1] == ir::kNoValue);
  check_error(t.lower("aten::batch_norm", {x, c3, c3, kNone, kNone, false, 0.1, 1e-5, true}),
              ErrorCode::kInvalidInput, "running_mean and running_var");
  check_error(t.lower("aten::batch_norm", {x, c4, c3, c3, c3, false, 0.1, 1e-5, true}),
              ErrorCode::kInvalidInput, "weight must be [3]");
  check_error(t.lower("aten::batch_norm", {t.in({3}), c3, c3, c3, c3, false, 0.1, 1e-5, true}),
              ErrorCode::kInvalidInput, "rank >= 2");
}

TEST_CASE("aten pooling entries", "[frontend][aten]") {
  G t;
  const ValueId x = t.in({2, 3, 8, 8});
  // One value serves both dims; an empty stride is the kernel.
  auto out = t.lower("aten::max_pool2d", {x, ints({3}), ints({}), i64(1), i64(1), false});
  REQUIRE(out.has_value());
  REQUIRE(out->size() == 1);
  const ir::Node& max = t.node_of(out->front());
  CHECK(max.op == OpKind::kMaxPool2d);
  CHECK(max.attrs.get_ints("kernel") == ir::IntList{3, 3});
  CHECK(max.attrs.get_ints("stride") == ir::IntList{3, 3});
  CHECK(max.attrs.get_ints("padding") == ir::IntList{1, 1});
  CHECK(t.g.type(out->front()).to_string() == "f32[2,3,3,3]");
  // with_indices: the indices are not computed.
  out = t.lower("aten::max_pool2d_with_indices",
                {x, ints({2, 3}), ints({2, 1}), ints({0, 1}), ints({1, 2}), true});
  REQUIRE(out.has_value());
  REQUIRE(out->size() == 2);
  CHECK((*out)[1] == ir::kNoValue);
  CHECK(t.node_of(out->front()).attrs.get_ints("dilation") == ir::IntList{1, 2});
  CHECK(t.node_of(out->front()).attrs.get_bool("ceil_mode"));
  // avg_pool2d: divisor_override None is 0 in the IR.
  out = t.lower("aten::avg_pool2d", {x, ints({2}), ints({2}), ints({0}), false, false, kNone});
  REQUIRE(out.has_value());
  CHECK(t.node_of(out->front()).attrs.get_int("divisor_override") == 0);
  CHECK(!t.node_of(out->front()).attrs.get_bool("count_include_pad"));
  out = t.lower("aten::avg_pool2d", {x, ints({2}), ints({2}), ints({0}), true, true, i64(3)});
  REQUIRE(out.has_value());
  CHECK(t.node_of(out->front()).attrs.get_int("divisor_override") == 3);
  // adaptive: a 1x1 average is a mean; other sizes their op; max returns unused indices.
  out = t.lower("aten::adaptive_avg_pool2d", {x, ints({1, 1})});
  REQUIRE(out.has_value());
  CHECK(t.node_of(out->front()).op == OpKind::kMean);
  CHECK(t.g.type(out->front()).to_string() == "f32[2,3,1,1]");
  out = t.lower("aten::_adaptive_avg_pool2d", {x, ints({3})});
  REQUIRE(out.has_value());
  CHECK(t.node_of(out->front()).op == OpKind::kAdaptiveAvgPool2d);
  CHECK(t.g.type(out->front()).to_string() == "f32[2,3,3,3]");
  out = t.lower("aten::adaptive_max_pool2d", {x, ints({2, 5})});
  REQUIRE(out.has_value());
  REQUIRE(out->size() == 2);
  CHECK((*out)[1] == ir::kNoValue);
  CHECK(t.g.type(out->front()).to_string() == "f32[2,3,2,5]");
}

TEST_CASE("aten pooling errors name the node", "[frontend][aten]") {
  G t;
  const ValueId x = t.in({2, 3, 8, 8});
  check_error(t.lower("aten::max_pool2d", {x, ints({3}), ints({1}), ints({2}), ints({1}), false}),
              ErrorCode::kInvalidInput, "at most half of the kernel");
  check_error(t.lower("aten::max_pool2d", {x, ints({3}), ints({1}), ints({-1}), ints({1}), false}),
              ErrorCode::kInvalidInput, "padding");
  check_error(t.lower("aten::max_pool2d", {x, ints({9}), ints({1}), ints({0}), ints({1}), false}),
              ErrorCode::kInvalidInput, "does not fit");
  check_error(
      t.lower("aten::max_pool2d", {x, ints({1, 2, 3}), ints({}), ints({0}), ints({1}), false}),
      ErrorCode::kInvalidInput, "one or two values");
  check_error(t.lower("aten::max_pool2d",
                      {t.in({1, 1, 3, 8, 8}), ints({2}), ints({}), ints({0}), ints({1}), false}),
              ErrorCode::kInvalidInput, "3-D [C, H, W] or 4-D");
  check_error(
      t.lower("aten::avg_pool2d", {x, ints({2}), ints({2}), ints({0}), false, true, i64(0)}),
      ErrorCode::kInvalidInput, "divisor_override must not be zero");
  check_error(t.lower("aten::adaptive_avg_pool2d", {t.in({2, 3, 4, 4}, DType::kI64), ints({1})}),
              ErrorCode::kUnsupported, "floating-point");
  // 3-D unpooling is not an op infernoc knows.
  auto out = t.lower("aten::max_unpool3d", {t.in({1, 1, 4, 4, 4}), ints({2})});
  REQUIRE(!out);
  CHECK(out.status().code() == ErrorCode::kUnsupported);
  CHECK(out.status().message().find("aten::max_unpool3d (node 'node' at model.py:7)") !=
        std::string::npos);
}

TEST_CASE("aten cat and constant padding", "[frontend][aten]") {
  G t;
  const ValueId a = t.in({2, 3, 4}), b = t.in({2, 1, 4}, DType::kF16), e = t.in({0});
  // Promoted to f32; the legacy empty 1-D input is skipped; dims normalized.
  auto out = t.lower("aten::cat", {std::vector<ValueId>{a, e, b}, i64(-2)});
  REQUIRE(out.has_value());
  const ir::Node& cat = t.node_of(out->front());
  CHECK(cat.op == OpKind::kCat);
  CHECK(cat.attrs.get_int("dim") == 1);
  CHECK(cat.inputs.size() == 2);
  CHECK(t.g.type(out->front()).to_string() == "f32[2,4,4]");
  // One input: itself.
  out = t.lower("aten::concat", {std::vector<ValueId>{a}, i64(0)});
  REQUIRE(out.has_value());
  CHECK(out->front() == a);
  // More inputs than the op takes: joined in groups.
  out = t.lower("aten::cat", {std::vector<ValueId>(40, a), i64(0)});
  REQUIRE(out.has_value());
  CHECK(t.g.type(out->front()).to_string() == "f32[80,3,4]");
  check_error(t.lower("aten::cat", {std::vector<ValueId>{a, t.in({3, 3, 4})}, i64(1)}),
              ErrorCode::kInvalidInput, "sizes except in dim 1");
  check_error(t.lower("aten::cat", {std::vector<ValueId>{a}, i64(3)}), ErrorCode::kInvalidInput,
              "out of range");

  // constant_pad_nd: pairs from the last dim; the value in x's dtype.
  out = t.lower("aten::constant_pad_nd", {a, ints({1, 2, -1, 0}), 0.5});
  REQUIRE(out.has_value());
  const ir::Node& pad = t.node_of(out->front());
  CHECK(pad.op == OpKind::kConstantPad);
  CHECK(pad.attrs.get_ints("before") == ir::IntList{0, -1, 1});
  CHECK(pad.attrs.get_ints("after") == ir::IntList{0, 0, 2});
  CHECK(t.g.type(out->front()).to_string() == "f32[2,2,7]");
  CHECK(t.g.value(pad.inputs[1]).constant->get(0) == 0.5);
  out = t.lower("aten::pad", {b, ints({1, 1}), std::string("constant"), kNone});
  REQUIRE(out.has_value());
  CHECK(t.g.type(out->front()).to_string() == "f16[2,1,6]");
  CHECK(t.g.value(t.node_of(out->front()).inputs[1]).constant->get(0) == 0);
  check_error(t.lower("aten::pad", {a, ints({1, 1}), std::string("reflect"), kNone}),
              ErrorCode::kUnsupported, "padding mode 'reflect'");
  check_error(t.lower("aten::constant_pad_nd", {a, ints({1, 1, 1}), 0.0}), ErrorCode::kInvalidInput,
              "before/after pairs");
  check_error(t.lower("aten::constant_pad_nd", {a, ints({0, 0, 0, 0, 0, 0, 1, 1}), 0.0}),
              ErrorCode::kInvalidInput, "before/after pairs");
  check_error(t.lower("aten::constant_pad_nd", {a, ints({-3, -2}), 0.0}), ErrorCode::kInvalidInput,
              "negative");
}

TEST_CASE("aten upsampling entries", "[frontend][aten]") {
  G t;
  const ValueId x = t.in({2, 3, 5, 6});
  // .vec with scale factors: the size is floor(in * scale), and the factors are kept.
  AtenCall call{"aten::upsample_nearest2d",
                "vec",
                {x, kNone, std::vector<double>{2.0, 1.5}},
                {},
                "node",
                {"model.py", 7}};
  auto out = lower_aten_call(t.g, call);
  REQUIRE(out.has_value());
  const ir::Node& nearest = t.node_of(out->front());
  CHECK(nearest.op == OpKind::kUpsampleNearest2d);
  CHECK(t.g.type(out->front()).to_string() == "f32[2,3,10,9]");
  CHECK(nearest.attrs.get_float("scale_h") == 2.0);
  CHECK(nearest.attrs.get_float("scale_w") == 1.5);
  // .vec with a size; and the sizes form with scales_h/scales_w.
  call = {"aten::upsample_bilinear2d", "vec", {x, ints({7, 8}), true, kNone}, {}, "node", {}};
  out = lower_aten_call(t.g, call);
  REQUIRE(out.has_value());
  CHECK(t.node_of(out->front()).attrs.get_bool("align_corners"));
  CHECK(t.node_of(out->front()).attrs.get_float("scale_h") == 0.0);
  call = {"aten::upsample_bilinear2d",
          "default",
          {x, ints({10, 12}), false, 2.0, kNone},
          {},
          "node",
          {}};
  out = lower_aten_call(t.g, call);
  REQUIRE(out.has_value());
  CHECK(t.node_of(out->front()).attrs.get_float("scale_h") == 2.0);
  CHECK(t.node_of(out->front()).attrs.get_float("scale_w") == 0.0);
  call = {"aten::upsample_nearest2d",
          "vec",
          {x, ints({7, 8}), std::vector<double>{2.0, 2.0}},
          {},
          "node",
          {}};
  check_error(lower_aten_call(t.g, call), ErrorCode::kInvalidInput, "exactly one");
  call = {"aten::upsample_nearest2d",
          "vec",
          {x, kNone, std::vector<double>{-1.0, 2.0}},
          {},
          "node",
          {}};
  check_error(lower_aten_call(t.g, call), ErrorCode::kInvalidInput, "not positive");
}

}  // namespace
}  // namespace inferno::frontend
