// conv2d's fused epilogue and its nhwc layout in the reference interpreter (the contract in
// ops.def): out = activation(conv(x * gate, w) + bias + residual), rounded once. The expected
// values come from a plain f64 conv2d of the gated input (the plain conv is checked against its
// naive definition in reference_conv_test.cpp; the gate's products of f32/f16/bf16 values are exact
// in double), plus the bias and residual, through the op x dtype table's independent definition
// of each activation, rounded once to the dtype. The nhwc layout is checked against the nchw
// result of the same data permuted: bit for bit.
#include <array>
#include <string>
#include <vector>

#include "ir/builder.h"
#include "reference/interpreter.h"
#include "support/catch.h"
#include "support/op_table.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using ir::DType;
using ir::Shape;
using ir::Tensor;
using ir::TensorType;

ir::Attributes conv_attrs(ir::IntList stride, ir::IntList padding, int64_t groups,
                          const std::string& activation, bool residual, bool gate,
                          const std::string& layout) {
  ir::Attributes a;
  a.set("stride", std::move(stride));
  a.set("padding", std::move(padding));
  a.set("dilation", ir::IntList{1, 1});
  a.set("groups", groups);
  a.set("activation", activation);
  a.set("residual", residual);
  a.set("gate", gate);
  a.set("layout", layout);
  return a;
}

/// One conv2d node over `inputs` (graph inputs), evaluated on the reference.
Tensor run_conv(const std::vector<Tensor>& inputs, const ir::Attributes& attrs) {
  ir::Graph g;
  std::vector<ir::ValueId> ids;
  for (const Tensor& t : inputs) ids.push_back(g.add_input("in", t.type));
  Expected<ir::ValueId> out = ir::build_value(g, ir::OpKind::kConv2d, ids, attrs, "out");
  INFO((out ? std::string() : out.status().to_string()));
  REQUIRE(out.has_value());
  g.set_outputs({*out});
  Expected<std::vector<Tensor>> got = reference::evaluate(g, inputs);
  INFO((got ? std::string() : got.status().to_string()));
  REQUIRE(got.has_value());
  return (*got)[0];
}

Tensor to_f64(const Tensor& t) {
  Tensor y = Tensor::zeros({DType::kF64, t.type.shape});
  for (int64_t i = 0; i < t.numel(); ++i) y.set(i, t.get(i));
  return y;
}

/// `t` with its 4 dims permuted: result dim d is t's dim dims[d].
Tensor permute4(const Tensor& t, std::array<int, 4> dims) {
  const Shape& s = t.type.shape;
  Shape out_shape(4);
  for (int d = 0; d < 4; ++d) out_shape[d] = s[dims[d]];
  Tensor y = Tensor::zeros({t.type.dtype, out_shape});
  std::array<int64_t, 4> idx{};
  for (int64_t i = 0; i < y.numel(); ++i) {
    int64_t rest = i;
    for (int d = 3; d >= 0; --d) {
      idx[dims[d]] = rest % out_shape[d];
      rest /= out_shape[d];
    }
    y.set(i, t.get(((idx[0] * s[1] + idx[1]) * s[2] + idx[2]) * s[3] + idx[3]));
  }
  return y;
}

TEST_CASE("conv2d epilogue: bias, residual, gate and each activation") {
  const std::vector<std::string> activations = {
      "none", "relu", "relu6", "silu", "hardswish", "hardsigmoid", "sigmoid", "gelu", "gelu_tanh"};
  const Shape xs = {2, 4, 6, 5}, ws = {6, 2, 3, 3};  // groups 2, stride 1, padding 1
  uint64_t seed = 100;
  for (const std::string& activation : activations) {
    for (const DType dtype : {DType::kF32, DType::kF64, DType::kF16, DType::kBF16}) {
      for (const bool residual : {false, true}) {
        for (const bool gate : {false, true}) {
          INFO(activation << " " << ir::dtype_name(dtype) << " residual " << residual << " gate "
                          << gate);
          // Scaled up so that every activation sees both its flat and its curved parts.
          Tensor x = test::random_tensor({dtype, xs}, seed += 5);
          const Tensor w = test::random_tensor({dtype, ws}, seed + 1);
          const Tensor b = test::random_tensor({dtype, {6}}, seed + 2);
          const Tensor r = test::random_tensor({dtype, {2, 6, 6, 5}}, seed + 3);
          const Tensor g = test::random_tensor({dtype, {2, 4, 1, 1}}, seed + 4);
          for (int64_t i = 0; i < x.numel(); ++i) x.set(i, x.get(i) * 4);
          std::vector<Tensor> inputs = {x, w, b};
          if (residual) inputs.push_back(r);
          if (gate) inputs.push_back(g);
          const Tensor got = run_conv(
              inputs, conv_attrs({1, 1}, {1, 1, 1, 1}, 2, activation, residual, gate, "nchw"));
          // The expected value: a plain f64 conv of the gated input, then the epilogue.
          Tensor gated = to_f64(x);
          for (int64_t i = 0; i < gated.numel(); ++i) {
            if (gate) gated.set(i, gated.get(i) * g.get(i / 30));  // (n, c) = i / (6 * 5)
          }
          const Tensor plain =
              run_conv({gated, to_f64(w)},
                       conv_attrs({1, 1}, {1, 1, 1, 1}, 2, "none", false, false, "nchw"));
          const test::OpRow* row =
              activation == "none" ? nullptr : test::find_row(*ir::parse_op_name(activation));
          REQUIRE((activation == "none" || row != nullptr));
          Tensor expected = Tensor::zeros(got.type);
          for (int64_t i = 0; i < expected.numel(); ++i) {
            double v = plain.get(i) + b.get((i / 30) % 6);
            if (residual) v += r.get(i);
            expected.set(i, row != nullptr ? row->definition(&v) : v);
          }
          // The definitions differ from the ops.def expressions in the last bits of a double,
          // which can move a rounding tie: one ulp of the dtype.
          const double rtol = dtype == DType::kF16    ? 1e-3
                              : dtype == DType::kBF16 ? 8e-3
                              : dtype == DType::kF32  ? 2.4e-7
                                                      : 1e-12;
          const std::string mismatch = test::compare_close(got, expected, rtol, 1e-12);
          INFO(mismatch);
          CHECK(mismatch.empty());
        }
      }
    }
  }
}

TEST_CASE("conv2d nhwc is nchw with permuted tensors, bit for bit") {
  struct Case {
    Shape x, w;  ///< nchw / oihw
    ir::IntList stride, padding;
    int64_t groups;
  };
  const std::vector<Case> cases = {
      {{2, 3, 7, 6}, {4, 3, 3, 3}, {1, 1}, {1, 1, 1, 1}, 1},
      {{1, 4, 9, 8}, {6, 2, 3, 2}, {2, 1}, {0, 1, 2, 0}, 2},  // grouped, strided, asymmetric
      {{1, 6, 5, 5}, {6, 1, 3, 3}, {1, 1}, {1, 1, 1, 1}, 6},  // depthwise
      {{2, 5, 4, 4}, {3, 5, 1, 1}, {1, 1}, {0, 0, 0, 0}, 1},  // 1x1
  };
  uint64_t seed = 900;
  for (const Case& c : cases) {
    for (const DType dtype : {DType::kF32, DType::kF16}) {
      INFO("x " << ir::shape_to_string(c.x) << " w " << ir::shape_to_string(c.w) << " "
                << ir::dtype_name(dtype));
      const int64_t n = c.x[0], o = c.w[0];
      const Tensor x = test::random_tensor({dtype, c.x}, seed += 5);
      const Tensor w = test::random_tensor({dtype, c.w}, seed + 1);
      const Tensor b = test::random_tensor({dtype, {o}}, seed + 2);
      const Tensor g = test::random_tensor({dtype, {n, c.x[1], 1, 1}}, seed + 3);
      const Tensor plain = run_conv(
          {x, w, b}, conv_attrs(c.stride, c.padding, c.groups, "none", false, false, "nchw"));
      const Tensor r = test::random_tensor(plain.type, seed + 4);
      const Tensor nchw = run_conv({x, w, b, r, g}, conv_attrs(c.stride, c.padding, c.groups,
                                                               "hardswish", true, true, "nchw"));
      const std::array<int, 4> to_nhwc = {0, 2, 3, 1};
      const Tensor nhwc =
          run_conv({permute4(x, to_nhwc), permute4(w, to_nhwc), b, permute4(r, to_nhwc),
                    permute4(g, to_nhwc)},
                   conv_attrs(c.stride, c.padding, c.groups, "hardswish", true, true, "nhwc"));
      const Tensor want = permute4(nchw, to_nhwc);
      REQUIRE(nhwc.type == want.type);
      const std::string mismatch = test::compare_close(nhwc, want, 0, 0);
      INFO(mismatch);
      CHECK(mismatch.empty());
    }
  }
}

}  // namespace
}  // namespace inferno
