// Generated pooling code on a GPU (kernels/pool.cuh through codegen/emit_pool.cpp) against the
// reference interpreter: max pooling (padding, dilation, ceil_mode) and average pooling
// (count_include_pad both ways, ceil_mode, divisor_override) in f32, f16, bf16 and f64, adaptive
// pooling to sizes that divide the input and sizes that do not, a NaN that must win a max, and
// nearest and bilinear upsampling (scale factors, align_corners); the same pools channels-last;
// and the joins (cat, constant_pad), which must copy bit for bit on every dtype.
// Part of test_gpu_codegen (label gpu); prints "SKIPPED: no CUDA device" without one.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "compiled_model.h"
#include "ir/builder.h"
#include "reference/interpreter.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using ir::DType;
using ir::IntList;
using ir::OpKind;

ir::Attributes max_pool(IntList k, IntList s, IntList p, IntList d, bool ceil_mode) {
  ir::Attributes a;
  a.set("kernel", k);
  a.set("stride", s);
  a.set("padding", p);
  a.set("dilation", d);
  a.set("ceil_mode", ceil_mode);
  return a;
}

ir::Attributes avg_pool(IntList k, IntList s, IntList p, bool ceil_mode, bool include,
                        int64_t divisor) {
  ir::Attributes a;
  a.set("kernel", k);
  a.set("stride", s);
  a.set("padding", p);
  a.set("ceil_mode", ceil_mode);
  a.set("count_include_pad", include);
  a.set("divisor_override", divisor);
  return a;
}

ir::Attributes adaptive(IntList size) {
  ir::Attributes a;
  a.set("output_size", size);
  return a;
}

// Averages sum at most 12 terms in float (double for f64); the result is rounded to the dtype.
double rtol_for(DType dtype) {
  switch (dtype) {
    case DType::kF16:
      return 1e-3;
    case DType::kBF16:
      return 1.6e-2;
    case DType::kF64:
      return 1e-12;
    default:
      return 2e-6;
  }
}

/// Adds to `outs` the pools of x every layout is tested with, in `layout`.
void add_pools(ir::Graph& g, ir::ValueId x, const std::string& layout,
               std::vector<ir::ValueId>& outs) {
  auto add = [&](OpKind op, ir::Attributes a, const std::string& name) {
    a.set("layout", layout);
    auto v = ir::build_value(g, op, {x}, std::move(a), name);
    INFO(name << ": " << (v ? "" : v.status().to_string()));
    REQUIRE(v.has_value());
    outs.push_back(*v);
  };
  add(OpKind::kMaxPool2d, max_pool({3, 3}, {2, 2}, {1, 1}, {1, 1}, false), "max");
  add(OpKind::kMaxPool2d, max_pool({2, 3}, {2, 3}, {1, 1}, {2, 1}, true), "max_dilated_ceil");
  add(OpKind::kAvgPool2d, avg_pool({3, 3}, {2, 2}, {1, 1}, true, true, 0), "avg_ceil_include");
  add(OpKind::kAvgPool2d, avg_pool({3, 2}, {2, 3}, {1, 1}, true, false, 0), "avg_ceil_exclude");
  add(OpKind::kAvgPool2d, avg_pool({2, 2}, {1, 1}, {0, 1}, false, true, 3), "avg_divisor");
  add(OpKind::kAdaptiveAvgPool2d, adaptive({3, 5}), "adaptive_avg_divides");
  add(OpKind::kAdaptiveAvgPool2d, adaptive({4, 7}), "adaptive_avg");
  add(OpKind::kAdaptiveMaxPool2d, adaptive({5, 3}), "adaptive_max");
}

/// Compiles `g` (outputs set), runs it on `in` and compares every output with the reference.
void check_against_reference(const ir::Graph& g, const ir::Tensor& in) {
  test::CompiledModel model(g);
  const std::vector<ir::Tensor> actual = model.run({in});
  auto expected = reference::evaluate(g, {in});
  REQUIRE(expected.has_value());
  for (size_t j = 0; j < g.outputs().size(); ++j) {
    const ir::ValueId out = g.outputs()[j];
    INFO("output %" << g.name(out) << " " << g.type(out).to_string());
    CHECK(test::compare_close(actual[j], (*expected)[j], rtol_for(in.type.dtype), 1e-6) == "");
  }
}

TEST_CASE("gpu: pooling matches the reference, in every floating dtype", "[gpu][codegen]") {
  if (!test::has_cuda_device()) {
    std::printf("SKIPPED: no CUDA device\n");
    return;
  }
  for (const DType dtype : {DType::kF32, DType::kF16, DType::kBF16, DType::kF64}) {
    INFO(ir::dtype_name(dtype));
    ir::Graph g;
    const ir::TensorType type{dtype, {2, 3, 9, 10}};
    const ir::ValueId x = g.add_input("x", type);
    std::vector<ir::ValueId> outs;
    add_pools(g, x, "nchw", outs);
    for (const bool align : {false, true}) {
      ir::Attributes up = adaptive({17, 23});  // output_size, and the scales and corners:
      up.set("scale_h", align ? 0.0 : 1.9);
      up.set("scale_w", 0.0);
      auto nearest = ir::build_value(g, OpKind::kUpsampleNearest2d, {x}, up,
                                     align ? "nearest" : "nearest_scaled");
      up.set("align_corners", align);
      auto bilinear = ir::build_value(g, OpKind::kUpsampleBilinear2d, {x}, up,
                                      align ? "bilinear_corners" : "bilinear");
      REQUIRE(nearest.has_value());
      REQUIRE(bilinear.has_value());
      outs.push_back(*nearest);
      outs.push_back(*bilinear);
    }
    g.set_outputs(outs);
    ir::Tensor in = test::random_tensor(type, 17);
    in.set(25, NAN);  // plane 0, row 2, column 5
    check_against_reference(g, in);
  }
}

// Channels-last pooling (pool2d_nhwc): 16 channels take the 16-byte path in every dtype, 3 the
// element-wise one; the same windows as above.
TEST_CASE("gpu: NHWC pooling matches the reference, 16-byte and element-wise", "[gpu][codegen]") {
  if (!test::has_cuda_device()) {
    std::printf("SKIPPED: no CUDA device\n");
    return;
  }
  for (const DType dtype : {DType::kF32, DType::kF16, DType::kBF16, DType::kF64}) {
    for (const int64_t channels : {16, 3}) {
      INFO(ir::dtype_name(dtype) << ", " << channels << " channels");
      ir::Graph g;
      const ir::TensorType type{dtype, {2, 9, 10, channels}};
      const ir::ValueId x = g.add_input("x", type);
      std::vector<ir::ValueId> outs;
      add_pools(g, x, "nhwc", outs);
      g.set_outputs(outs);
      ir::Tensor in = test::random_tensor(type, 19);
      in.set(2 * 10 * channels + 5 * channels + 1, NAN);  // image 0, row 2, column 5, channel 1
      check_against_reference(g, in);
    }
  }
}

TEST_CASE("gpu: cat and constant_pad copy exactly, on every dtype", "[gpu][codegen]") {
  if (!test::has_cuda_device()) {
    std::printf("SKIPPED: no CUDA device\n");
    return;
  }
  for (const DType dtype : ir::kAllDTypes) {
    INFO(ir::dtype_name(dtype));
    ir::Graph g;
    const ir::ValueId x = g.add_input("x", {dtype, {2, 3, 4}});
    const ir::ValueId y = g.add_input("y", {dtype, {2, 2, 4}});
    const ir::ValueId fill = g.add_constant("fill", test::random_tensor({dtype, {}}, 3));
    ir::Attributes cat;
    cat.set("dim", int64_t{1});
    ir::Attributes pad;
    pad.set("before", IntList{1, -1, 2});
    pad.set("after", IntList{0, 1, -1});
    auto joined = ir::build_value(g, OpKind::kCat, {x, y, x}, cat, "joined");
    auto padded = ir::build_value(g, OpKind::kConstantPad, {x, fill}, pad, "padded");
    REQUIRE(joined.has_value());
    REQUIRE(padded.has_value());
    g.set_outputs({*joined, *padded});
    const std::vector<ir::Tensor> in = {test::random_tensor(g.type(x), 1),
                                        test::random_tensor(g.type(y), 2)};
    test::CompiledModel model(g);
    const std::vector<ir::Tensor> actual = model.run(in);
    auto expected = reference::evaluate(g, in);
    REQUIRE(expected.has_value());
    for (size_t j = 0; j < actual.size(); ++j) CHECK(actual[j].data == (*expected)[j].data);
  }
}

}  // namespace
}  // namespace inferno
