// The canonical gemm in the reference interpreter: every combination of trans_b, batch
// broadcasting, alpha/beta/c/d and activation against an index-by-index computation written
// here; bit-exactness against the unfused graphs it replaces (linear/matmul/addmm, then relu or
// gelu); and beta == 0 ignoring c entirely, as PyTorch's addmm does.
#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "ir/builder.h"
#include "reference/interpreter.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using ir::Attributes;
using ir::DType;
using ir::OpKind;
using ir::Shape;
using ir::Tensor;
using ir::TensorType;
using ir::ValueId;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Attributes gemm_attrs(bool trans_b, double alpha, double beta, const std::string& activation) {
  Attributes a;
  a.set("trans_b", trans_b);
  a.set("alpha", alpha);
  a.set("beta", beta);
  a.set("activation", activation);
  return a;
}

/// Evaluates `graph` on `inputs`; its one output.
Tensor eval(const ir::Graph& graph, const std::vector<Tensor>& inputs) {
  Expected<std::vector<Tensor>> out = reference::evaluate(graph, inputs);
  INFO((out ? std::string() : out.status().to_string()));
  REQUIRE(out.has_value());
  return std::move((*out)[0]);
}

bool bit_equal(const Tensor& x, const Tensor& y) { return x.type == y.type && x.data == y.data; }

/// The one-node graph gemm(inputs...) {attrs}.
Tensor run_gemm(const std::vector<Tensor>& inputs, const Attributes& attrs) {
  ir::Graph g;
  std::vector<ValueId> ids;
  for (const Tensor& t : inputs) ids.push_back(g.add_input("in", t.type));
  Expected<ValueId> out = ir::build_value(g, OpKind::kGemm, ids, attrs, "out");
  INFO((out ? std::string() : out.status().to_string()));
  REQUIRE(out.has_value());
  g.set_outputs({*out});
  return eval(g, inputs);
}

/// Row-major offset into a tensor of shape `from` of the element that broadcasting `from` to
/// `to` places at multi-index `index` (of `to`).
int64_t broadcast_offset(const Shape& from, const Shape& to, const std::vector<int64_t>& index) {
  int64_t offset = 0;
  const size_t lead = to.size() - from.size();
  for (size_t d = 0; d < from.size(); ++d)
    offset = offset * from[d] + (from[d] == 1 ? 0 : index[lead + d]);
  return offset;
}

/// `v` rounded to `dtype`, as a store and a load do.
double round_to(DType dtype, double v) {
  Tensor t = Tensor::zeros({dtype, {}});
  t.set(0, v);
  return t.get(0);
}

double activate(const std::string& activation, double v) {
  if (activation == "relu") return v < 0 ? 0.0 : v;
  // The constants as ops.def spells them: 1/sqrt(2) and sqrt(2/pi), rounded to double once.
  if (activation == "gelu") return 0.5 * v * (1.0 + std::erf(v * 0.70710678118654752440));
  if (activation == "gelu_tanh") {
    return 0.5 * v * (1.0 + std::tanh(0.79788456080286535588 * (v + 0.044715 * v * v * v)));
  }
  return v;
}

/// gemm spelled out one output element at a time, from its documented definition.
Tensor naive_gemm(const Tensor& a, const Tensor& b, const Tensor* c, const Tensor* d, bool trans_b,
                  double alpha, double beta, const std::string& activation, const TensorType& out) {
  const Shape& sa = a.type.shape;
  const Shape& sb = b.type.shape;
  const int64_t m_size = sa[sa.size() - 2], k_size = sa.back();
  const int64_t n_size = out.shape.back();
  const Shape batch(out.shape.begin(), out.shape.end() - 2);
  Shape a_full = batch, b_full = batch;
  a_full.insert(a_full.end(), {m_size, k_size});
  b_full.insert(b_full.end(), {trans_b ? n_size : k_size, trans_b ? k_size : n_size});
  Tensor y = Tensor::zeros(out);
  for (int64_t i = 0; i < y.numel(); ++i) {
    std::vector<int64_t> index(out.shape.size());  // multi-index of i in the output
    for (int64_t rest = i, dim = out.rank() - 1; dim >= 0; --dim) {
      index[dim] = rest % out.shape[dim];
      rest /= out.shape[dim];
    }
    const int64_t m = index[index.size() - 2], n = index.back();
    std::vector<int64_t> a_index(index.begin(), index.end() - 2), b_index = a_index;
    a_index.insert(a_index.end(), {m, 0});
    b_index.insert(b_index.end(), {trans_b ? n : 0, trans_b ? 0 : n});
    double acc = 0;
    for (int64_t k = 0; k < k_size; ++k) {
      a_index.back() = k;
      b_index[b_index.size() - (trans_b ? 1 : 2)] = k;
      acc += a.get(broadcast_offset(sa, a_full, a_index)) *
             b.get(broadcast_offset(sb, b_full, b_index));
    }
    double v = alpha * acc;
    if (c != nullptr && beta != 0)
      v += beta * c->get(broadcast_offset(c->type.shape, out.shape, index));
    if (d != nullptr) v += d->get(broadcast_offset(d->type.shape, out.shape, index));
    y.set(i, activate(activation, round_to(out.dtype, v)));
  }
  return y;
}

struct Shapes {
  Shape a, b, out;  ///< b as [..., K, N]; transposed for trans_b
};

TEST_CASE("gemm matches the definition for every combination of its options") {
  const std::vector<Shapes> shapes = {
      {{2, 3}, {3, 4}, {2, 4}},
      {{2, 1, 2, 3}, {3, 3, 4}, {2, 3, 2, 4}},  // both batch dims broadcast
      {{2, 3}, {5, 3, 4}, {5, 2, 4}},           // a is shared by every batch of b
      {{1, 5}, {5, 1}, {1, 1}},
      {{2, 0}, {0, 3}, {2, 3}},  // K = 0: the sum is 0
  };
  int cases = 0;
  for (DType dtype : {DType::kF32, DType::kF16, DType::kF64}) {
    for (const Shapes& s : shapes) {
      for (bool trans_b : {false, true}) {
        for (int addends = 0; addends <= 3; ++addends) {  // none, c, c + d, c with beta = 0 and d
          for (double alpha : {1.0, -0.5}) {
            for (const char* activation : {"none", "relu", "gelu", "gelu_tanh"}) {
              INFO(ir::dtype_name(dtype)
                   << " a" << ir::shape_to_string(s.a) << " b" << ir::shape_to_string(s.b)
                   << " trans_b " << trans_b << " addends " << addends << " alpha " << alpha << " "
                   << activation);
              Shape b_shape = s.b;
              if (trans_b) std::swap(b_shape[b_shape.size() - 1], b_shape[b_shape.size() - 2]);
              const TensorType out{dtype, s.out};
              std::vector<Tensor> inputs = {test::random_tensor({dtype, s.a}, 1),
                                            test::random_tensor({dtype, b_shape}, 2)};
              const double beta = addends == 3 ? 0.0 : 0.75;
              if (addends >= 1)
                inputs.push_back(test::random_tensor({dtype, {s.out.back()}}, 3));  // a bias row
              if (addends >= 2) inputs.push_back(test::random_tensor(out, 4));      // a residual
              const Tensor got = run_gemm(inputs, gemm_attrs(trans_b, alpha, beta, activation));
              const Tensor expected = naive_gemm(
                  inputs[0], inputs[1], addends >= 1 ? &inputs[2] : nullptr,
                  addends >= 2 ? &inputs[3] : nullptr, trans_b, alpha, beta, activation, out);
              CHECK(test::compare_close(got, expected, 0, 0) == "");
              ++cases;
            }
          }
        }
      }
    }
  }
  CHECK(cases == 3 * 5 * 2 * 4 * 2 * 4);
}

TEST_CASE("gemm on integers sums exactly and applies relu exactly") {
  const Tensor a = test::random_tensor({DType::kI32, {3, 4}}, 5),
               b = test::random_tensor({DType::kI32, {4, 2}}, 6);
  const Tensor c = test::random_tensor({DType::kI32, {2}}, 7);
  const Tensor got = run_gemm({a, b, c}, gemm_attrs(false, 1.0, 1.0, "relu"));
  for (int64_t m = 0; m < 3; ++m) {
    for (int64_t n = 0; n < 2; ++n) {
      int64_t acc = static_cast<int64_t>(c.get(n));
      for (int64_t k = 0; k < 4; ++k)
        acc += static_cast<int64_t>(a.get(m * 4 + k)) * static_cast<int64_t>(b.get(k * 2 + n));
      CHECK(got.get(m * 2 + n) == static_cast<double>(std::max<int64_t>(acc, 0)));
    }
  }
}

/// Random inputs of `types`, with seeds from `seed` on.
std::vector<Tensor> random_inputs(const std::vector<TensorType>& types, uint64_t seed) {
  std::vector<Tensor> out;
  for (const TensorType& t : types) out.push_back(test::random_tensor(t, seed++));
  return out;
}

ValueId build(ir::Graph& g, OpKind op, std::vector<ValueId> inputs, Attributes attrs = {}) {
  Expected<ValueId> v = ir::build_value(g, op, std::move(inputs), std::move(attrs), "v");
  INFO((v ? std::string() : v.status().to_string()));
  REQUIRE(v.has_value());
  return *v;
}

// The rewrites epilogue fusion performs: an unfused GEMM-family node followed by its activation,
// and the gemm that replaces both. Low-precision dtypes and a long K make rounding visible.
TEST_CASE("gemm with an activation is bit-identical to the unfused graph") {
  for (DType dtype : {DType::kF32, DType::kF16, DType::kBF16, DType::kF64}) {
    INFO(ir::dtype_name(dtype));
    const std::vector<Tensor> in =
        random_inputs({{dtype, {2, 3, 64}}, {dtype, {16, 64}}, {dtype, {16}}}, 10);
    {  // linear -> relu == gemm(x, w, b) {trans_b, relu}
      ir::Graph unfused, fused;
      const ValueId x = unfused.add_input("x", in[0].type), w = unfused.add_input("w", in[1].type),
                    b = unfused.add_input("b", in[2].type);
      unfused.set_outputs(
          {build(unfused, OpKind::kRelu, {build(unfused, OpKind::kLinear, {x, w, b})})});
      fused.set_outputs({build(fused, OpKind::kGemm,
                               {fused.add_input("x", in[0].type), fused.add_input("w", in[1].type),
                                fused.add_input("b", in[2].type)},
                               gemm_attrs(true, 1.0, 1.0, "relu"))});
      const Tensor want = eval(unfused, in), got = eval(fused, in);
      CHECK(bit_equal(got, want));
      bool clipped = false;  // relu had something to do
      for (int64_t i = 0; i < got.numel(); ++i) clipped |= got.get(i) == 0;
      CHECK(clipped);
    }
    {  // matmul(x, w^T) -> gelu and addmm -> gelu(tanh) == gemm {gelu / gelu_tanh}
      const Tensor a = test::random_tensor({dtype, {5, 64}}, 20),
                   b = test::random_tensor({dtype, {64, 7}}, 21);
      const Tensor bias = test::random_tensor({dtype, {7}}, 22);
      ir::Graph mm, mm_fused, addmm, addmm_fused;
      mm.set_outputs({build(
          mm, OpKind::kGelu,
          {build(mm, OpKind::kMatMul, {mm.add_input("a", a.type), mm.add_input("b", b.type)})})});
      mm_fused.set_outputs(
          {build(mm_fused, OpKind::kGemm,
                 {mm_fused.add_input("a", a.type), mm_fused.add_input("b", b.type)},
                 gemm_attrs(false, 1.0, 1.0, "gelu"))});
      CHECK(bit_equal(eval(mm_fused, {a, b}), eval(mm, {a, b})));
      Attributes scales;
      scales.set("alpha", 0.5);
      scales.set("beta", 2.0);
      const ValueId am = build(addmm, OpKind::kAddMM,
                               {addmm.add_input("bias", bias.type), addmm.add_input("a", a.type),
                                addmm.add_input("b", b.type)},
                               scales);
      addmm.set_outputs({build(addmm, OpKind::kGeluTanh, {am})});
      addmm_fused.set_outputs(
          {build(addmm_fused, OpKind::kGemm,
                 {addmm_fused.add_input("a", a.type), addmm_fused.add_input("b", b.type),
                  addmm_fused.add_input("bias", bias.type)},
                 gemm_attrs(false, 0.5, 2.0, "gelu_tanh"))});
      CHECK(bit_equal(eval(addmm_fused, {a, b, bias}), eval(addmm, {bias, a, b})));
    }
  }
}

TEST_CASE("gemm with beta == 0 ignores c entirely, NaN and inf included") {
  const Tensor a = test::random_tensor({DType::kF32, {3, 4}}, 30),
               b = test::random_tensor({DType::kF32, {4, 2}}, 31);
  Tensor c = Tensor::zeros({DType::kF32, {3, 2}});
  for (int64_t i = 0; i < c.numel(); ++i)
    c.set(i, i % 2 ? kNaN : std::numeric_limits<double>::infinity());
  const Tensor d = test::random_tensor({DType::kF32, {2}}, 32);
  const Tensor without_c = run_gemm({a, b}, gemm_attrs(false, 1.0, 0.0, "none"));
  CHECK(bit_equal(run_gemm({a, b, c}, gemm_attrs(false, 1.0, 0.0, "none")), without_c));
  // ... while d is still added (as c with beta 1 would be), and a non-zero beta lets NaN through.
  CHECK(bit_equal(run_gemm({a, b, c, d}, gemm_attrs(false, 1.0, 0.0, "none")),
                  run_gemm({a, b, d}, gemm_attrs(false, 1.0, 1.0, "none"))));
  const Tensor with_c = run_gemm({a, b, c}, gemm_attrs(false, 1.0, 1e-30, "none"));
  CHECK(std::isnan(with_c.get(1)));
  CHECK(std::isinf(with_c.get(0)));
}

TEST_CASE("gemm keeps the sign of a zero result when there are no addends") {
  // 0 * -1 = -0: adding absent addends as 0.0 would give +0.
  const Tensor a = Tensor::zeros({DType::kF32, {1, 2}}),
               b = test::random_tensor({DType::kF32, {2, 1}}, 40);
  const Tensor got = run_gemm({a, b}, gemm_attrs(false, -1.0, 1.0, "none"));
  CHECK(got.get(0) == 0.0);
  CHECK(std::signbit(got.get(0)));
}

}  // namespace
}  // namespace inferno
