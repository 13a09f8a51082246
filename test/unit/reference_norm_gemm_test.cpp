// norm_gemm in the reference interpreter: bit-identical to the layer_norm or rms_norm node
// followed by the gemm it replaces (the norm's result rounded to the dtype in between), for every
// floating dtype, with and without addends and an activation; and verify's allowance for it,
// which accepts the GEMV's float arithmetic (float statistics, the normalized rows rounded, a
// float sum in another order) and still names one wrong element.
#include <cmath>
#include <string>
#include <vector>

#include "ir/builder.h"
#include "ir/parser.h"
#include "reference/interpreter.h"
#include "reference/node_check.h"
#include "support/catch.h"
#include "support/half.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using ir::Attributes;
using ir::DType;
using ir::OpKind;
using ir::Tensor;
using ir::TensorType;
using ir::ValueId;

Attributes gemm_attrs(const std::string& activation, double alpha, double beta) {
  Attributes a;
  a.set("trans_b", true);
  a.set("alpha", alpha);
  a.set("beta", beta);
  a.set("activation", activation);
  return a;
}

ValueId build(ir::Graph& g, OpKind op, std::vector<ValueId> inputs, Attributes attrs) {
  Expected<ValueId> v = ir::build_value(g, op, std::move(inputs), std::move(attrs), "v");
  INFO((v ? std::string() : v.status().to_string()));
  REQUIRE(v.has_value());
  return *v;
}

Tensor eval(const ir::Graph& graph, const std::vector<Tensor>& inputs) {
  Expected<std::vector<Tensor>> out = reference::evaluate(graph, inputs);
  INFO((out ? std::string() : out.status().to_string()));
  REQUIRE(out.has_value());
  return std::move((*out)[0]);
}

// x, w, gamma, beta, bias, residual, with x's rows around 3 (the norm's shift matters).
std::vector<Tensor> inputs(DType dtype, uint64_t seed) {
  std::vector<Tensor> in = {test::random_tensor({dtype, {2, 1, 64}}, seed),
                            test::random_tensor({dtype, {16, 64}}, seed + 1),
                            test::random_tensor({dtype, {64}}, seed + 2),
                            test::random_tensor({dtype, {64}}, seed + 3),
                            test::random_tensor({dtype, {16}}, seed + 4),
                            test::random_tensor({dtype, {2, 1, 16}}, seed + 5)};
  for (int64_t i = 0; i < in[0].numel(); ++i) in[0].set(i, 3 + in[0].get(i));
  return in;
}

}  // namespace

TEST_CASE("norm_gemm is bit-identical to the norm followed by the gemm") {
  for (const DType dtype : {DType::kF32, DType::kF16, DType::kBF16, DType::kF64}) {
    for (const bool rms : {false, true}) {
      for (const bool epilogue : {false, true}) {
        INFO(ir::dtype_name(dtype)
             << (rms ? " rms_norm" : " layer_norm") << (epilogue ? " with addends and gelu" : ""));
        const std::vector<Tensor> in = inputs(dtype, 40);
        const Attributes attrs =
            epilogue ? gemm_attrs("gelu", 0.5, 2.0) : gemm_attrs("none", 1.0, 1.0);
        Attributes norm_attrs;
        norm_attrs.set("normalized_dims", int64_t{1});
        norm_attrs.set("eps", 1e-5);

        ir::Graph unfused;
        std::vector<ValueId> u;
        for (const Tensor& t : in) u.push_back(unfused.add_input("in", t.type));
        std::vector<ValueId> norm_in = {u[0], u[2]};
        if (!rms) norm_in.push_back(u[3]);
        const ValueId h =
            build(unfused, rms ? OpKind::kRmsNorm : OpKind::kLayerNorm, norm_in, norm_attrs);
        std::vector<ValueId> gemm_in = {h, u[1]};
        if (epilogue) gemm_in.insert(gemm_in.end(), {u[4], u[5]});
        unfused.set_outputs({build(unfused, OpKind::kGemm, gemm_in, attrs)});

        ir::Graph fused;
        std::vector<ValueId> f;
        for (const Tensor& t : in) f.push_back(fused.add_input("in", t.type));
        std::vector<ValueId> fused_in = {f[0], f[1], f[2]};
        if (!rms) fused_in.push_back(f[3]);
        if (epilogue) fused_in.insert(fused_in.end(), {f[4], f[5]});
        Attributes fused_attrs = attrs;
        fused_attrs.set("norm", std::string(rms ? "rms_norm" : "layer_norm"));
        fused_attrs.set("eps", 1e-5);
        fused.set_outputs({build(fused, OpKind::kNormGemm, fused_in, fused_attrs)});

        const Tensor want = eval(unfused, in), got = eval(fused, in);
        CHECK(got.type == want.type);
        CHECK(got.data == want.data);
      }
    }
  }
}

namespace {

// The GEMV's arithmetic on one f16 layer_norm row of K = 1024: float statistics (shifted by x0,
// two passes), the normalized row rounded to f16, float products summed from the last k down.
Tensor gemv_like(const std::vector<Tensor>& in, int64_t k, int64_t n) {
  std::vector<float> xn(static_cast<size_t>(k));
  const auto x = [&](int64_t i) { return static_cast<float>(in[0].get(i)); };
  const float pivot = x(0);
  float sum = 0;
  for (int64_t i = 0; i < k; ++i) sum += x(i) - pivot;
  const float mean = sum / static_cast<float>(k);
  float squares = 0;
  for (int64_t i = 0; i < k; ++i) squares += (x(i) - pivot - mean) * (x(i) - pivot - mean);
  const float inv_std = 1.0f / std::sqrt(squares / static_cast<float>(k) + 1e-5f);
  for (int64_t i = 0; i < k; ++i) {
    const float r = (x(i) - pivot - mean) * inv_std * static_cast<float>(in[2].get(i)) +
                    static_cast<float>(in[3].get(i));
    xn[static_cast<size_t>(i)] = half_bits_to_float(float_to_half_bits(r));
  }
  Tensor y = Tensor::zeros({DType::kF16, {1, n}});
  for (int64_t c = 0; c < n; ++c) {
    float acc = 0;
    for (int64_t i = k; i-- > 0;)
      acc += xn[static_cast<size_t>(i)] * static_cast<float>(in[1].get(c * k + i));
    y.set(c, acc);
  }
  return y;
}

}  // namespace

TEST_CASE("verify accepts a norm_gemm computed as the GEMV does and names one bad element",
          "[reference]") {
  constexpr int64_t kK = 1024, kN = 64;
  const Expected<ir::Graph> graph = ir::parse_graph(R"(
graph(%x: f16[1,1024], %w: f16[64,1024], %g: f16[1024], %b: f16[1024]) {
  %y: f16[1,64] = norm_gemm(%x, %w, %g, %b) {activation="none", alpha=1.0, beta=1.0, eps=1e-05, norm="layer_norm", trans_b=true} loc("model.py":7)
  return %y
})");
  REQUIRE(graph.has_value());
  std::vector<Tensor> in;
  for (size_t i = 0; i < graph->inputs().size(); ++i)
    in.push_back(test::random_tensor(graph->type(graph->inputs()[i]), 60 + i));
  for (int64_t i = 0; i < kK; ++i) in[0].set(i, 100 + in[0].get(i));  // far from zero
  Tensor device = gemv_like(in, kK, kN);
  auto run = [&](const Tensor& out) {
    auto result = reference::check_nodes(*graph, in, [&](int32_t) { return &out; }, {});
    INFO((result ? "" : result.status().to_string()));
    REQUIRE(result.has_value());
    return *result;
  };
  const reference::NodeCheck accepted = run(device);
  INFO(reference::describe_check(*graph, accepted));
  CHECK_FALSE(accepted.mismatch.has_value());
  double scale = 0;
  for (int64_t i = 0; i < device.numel(); ++i) scale = std::max(scale, std::fabs(device.get(i)));
  device.set(17, device.get(17) + 0.25 * scale);  // the allowance is a hard bound: loose
  const reference::NodeCheck named = run(device);
  REQUIRE(named.mismatch.has_value());
  CHECK(reference::describe_check(*graph, named).find("%y") != std::string::npos);
}

}  // namespace inferno
