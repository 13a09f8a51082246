// Generated code on a GPU: small IR graphs with every GEMM epilogue route of codegen/emit_gemm.h
// (trans_b, batches, cuBLASLt bias and relu epilogues, a separate C matrix, broadcast addends,
// alpha and beta, the in-place kernel's relu/gelu/gelu_tanh and addend) in f32, f16, bf16 and
// f64, and of the GEMV kernel for M <= 8 (codegen/emit_gemv.h); fused_elementwise nodes with
// broadcasts, scalar literals, casts and f16/bf16 steps; outputs written over their inputs; and the
// -O0 forms linear, addmm and matmul; norm_gemm (a norm fused into the GEMV). Each graph is
// compiled with codegen and nvcc (compiled_model.h), run through the runtime on random inputs, and
// compared with the reference interpreter at torch.testing's default tolerances for the dtype; the
// few looser ones say why. Also: `x @ W` then ReLU is one kernel launch.
//
// Label gpu: `ctest -L gpu -R codegen` (nvcc, the runtime and a CUDA device; each graph is one
// nvcc run). Without a device it prints "SKIPPED: no CUDA device" and ctest counts a skip.
#include <algorithm>
#include <array>
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
using ir::OpKind;

#define REQUIRE_GPU()                           \
  do {                                          \
    if (!test::has_cuda_device()) {             \
      std::printf("SKIPPED: no CUDA device\n"); \
      return;                                   \
    }                                           \
  } while (0)

using test::default_tolerance;
using test::Tolerance;

// Half a unit in the last place of `dtype` at magnitude `magnitude`: the most one rounding to
// the dtype changes a value of that size.
double half_ulp(DType dtype, double magnitude) {
  const int mantissa_bits = dtype == DType::kF16    ? 10
                            : dtype == DType::kBF16 ? 7
                            : dtype == DType::kF32  ? 23
                                                    : 52;
  return std::ldexp(1.0, std::ilogb(std::max(magnitude, 1e-30)) - mantissa_bits - 1);
}

// A 16-bit GEMM result may round to the other neighbour than the reference's does (fp32 sums
// against double ones), and gelu carries that ulp of its input into its output times |gelu'|,
// at most 1.13; the output's own rounding is within rtol. gelu is neither about 0 nor about x
// (where rtol covers it) only for inputs in [-4, 3], where an ulp is at most the one at 4.
Tolerance gelu_tolerance(DType dtype) {
  Tolerance t = default_tolerance(dtype);
  if (dtype == DType::kF16 || dtype == DType::kBF16) t.atol = 1.13 * 2 * half_ulp(dtype, 4.0);
  return t;
}

// "arena + 512": where run() in `cu` puts the value whose pointer is `pointer`.
std::string arena_offset(const std::string& cu, const std::string& pointer) {
  const size_t at = cu.find("* const " + pointer + " = reinterpret_cast<");
  REQUIRE(at != std::string::npos);
  const size_t begin = cu.find("(arena + ", at);
  REQUIRE(begin < cu.find('\n', at));
  return cu.substr(begin + 1, cu.find(')', begin) - begin - 1);
}

double max_abs(const ir::Tensor& t) {
  double m = 0;
  for (int64_t i = 0; i < t.numel(); ++i) m = std::max(m, std::fabs(t.get(i)));
  return m;
}

ir::Attributes attrs(std::initializer_list<std::pair<std::string, ir::AttrValue>> entries) {
  ir::Attributes a;
  for (const auto& [name, value] : entries) a.set(name, value);
  return a;
}

// A graph under construction with its random inputs, and what to check of each output.
class Case {
 public:
  ir::ValueId input(const std::string& name, DType dtype, ir::Shape shape) {
    const ir::TensorType type{dtype, std::move(shape)};
    inputs_.push_back(test::random_tensor(type, ++seed_));
    return graph_.add_input(name, type);
  }
  ir::ValueId constant(const std::string& name, DType dtype, ir::Shape shape) {
    return graph_.add_constant(name, test::random_tensor({dtype, std::move(shape)}, ++seed_));
  }
  ir::ValueId node(OpKind op, std::vector<ir::ValueId> in, ir::Attributes a,
                   const std::string& name) {
    auto v = ir::build_value(graph_, op, std::move(in), std::move(a), name);
    INFO(name << ": " << (v ? "" : v.status().to_string()));
    REQUIRE(v.has_value());
    return *v;
  }
  ir::ValueId gemm(const std::string& name, std::vector<ir::ValueId> in, bool trans_b, double alpha,
                   double beta, const std::string& activation) {
    return node(
        OpKind::kGemm, std::move(in),
        attrs({{"trans_b", trans_b}, {"alpha", alpha}, {"beta", beta}, {"activation", activation}}),
        name);
  }
  ir::ValueId fused(const std::string& name, std::vector<ir::ValueId> in, const std::string& expr) {
    return node(OpKind::kFusedElementwise, std::move(in), attrs({{"expr", expr}}), name);
  }
  /// Checks `v` at its dtype's default tolerance, or at `tolerance` (loosened by a rounding at the
  /// magnitude of output `partial`, when given).
  void output(ir::ValueId v) { output(v, default_tolerance(graph_.type(v).dtype)); }
  void output(ir::ValueId v, Tolerance tolerance, ir::ValueId partial = ir::kNoValue) {
    outputs_.push_back(v);
    checks_.push_back({tolerance, partial});
  }

  /// Compiles, runs and compares every output; returns the generated model.cu.
  std::string check() {
    graph_.set_outputs(outputs_);
    test::CompiledModel model(graph_);
    const std::vector<ir::Tensor> actual = model.run(inputs_);
    auto expected = reference::evaluate(graph_, inputs_);
    INFO((expected ? "" : expected.status().to_string()));
    REQUIRE(expected.has_value());
    for (size_t j = 0; j < outputs_.size(); ++j) {
      Tolerance t = checks_[j].tolerance;
      if (checks_[j].partial != ir::kNoValue) {
        // The in-place kernel adds an addend to the GEMM's stored result, rounded to the dtype:
        // one rounding more than the reference's (as in PyTorch's unfused gemm, then add), of a
        // partial sum as large as output `partial`.
        const auto at = std::find(outputs_.begin(), outputs_.end(), checks_[j].partial);
        REQUIRE(at != outputs_.end());
        const double partial = max_abs((*expected)[static_cast<size_t>(at - outputs_.begin())]);
        t.atol = std::max(t.atol, half_ulp(graph_.type(outputs_[j]).dtype, partial));
      }
      INFO("output %" << graph_.name(outputs_[j]) << " " << graph_.type(outputs_[j]).to_string()
                      << ", rtol " << t.rtol << ", atol " << t.atol);
      CHECK(test::compare_close(actual[j], (*expected)[j], t.rtol, t.atol) == "");
    }
    return model.cuda_source();
  }

  ir::Graph& graph() { return graph_; }
  const std::vector<ir::Tensor>& inputs() const { return inputs_; }

 private:
  struct Check {
    Tolerance tolerance;
    ir::ValueId partial;  // a graph output the tolerance is derived from, or kNoValue
  };
  ir::Graph graph_;
  std::vector<ir::Tensor> inputs_;
  std::vector<ir::ValueId> outputs_;
  std::vector<Check> checks_;
  uint64_t seed_ = 100;
};

}  // namespace

TEST_CASE("gpu: every gemm epilogue route matches the reference, in every floating dtype",
          "[gpu][codegen]") {
  REQUIRE_GPU();
  constexpr int64_t M = 20, K = 24, N = 36,
                    B = 3;  // K = 24: fp32 sums stay within the default tolerances
  for (const DType dtype : {DType::kF32, DType::kF16, DType::kBF16, DType::kF64}) {
    INFO(ir::dtype_name(dtype));
    Case c;
    const ir::ValueId x = c.input("x", dtype, {M, K}), r = c.input("r", dtype, {M, N});
    const ir::ValueId col = c.input("col", dtype, {M, 1}), xb = c.input("xb", dtype, {B, M, K});
    const ir::ValueId rb = c.input("rb", dtype, {B, M, N});
    const ir::ValueId w = c.constant("w", dtype, {K, N}), wt = c.constant("wt", dtype, {N, K});
    const ir::ValueId wb = c.constant("wb", dtype, {B, K, N}),
                      bias = c.constant("bias", dtype, {N});
    const ir::ValueId s = c.constant("s", dtype, {});
    c.output(c.gemm("plain", {x, w}, false, 1.0, 1.0, "none"));
    c.output(c.gemm("trans_b_bias_relu", {x, wt, bias}, true, 1.0, 1.0, "relu"));
    c.output(c.gemm("bias", {x, w, bias}, false, 1.0, 1.0, "none"));
    c.output(c.gemm("separate_c_alpha_beta", {x, w, r}, false, 0.5, -1.25, "none"));
    const ir::ValueId partial = c.gemm("separate_c", {x, w, r}, false, 1.0, 1.0, "none");
    c.output(partial);
    c.output(c.gemm("copied_c_gelu_tanh", {x, w, col}, false, 1.0, 2.0, "gelu_tanh"),
             gelu_tolerance(dtype));
    c.output(c.gemm("bias_residual_gelu", {x, wt, bias, r}, true, 1.0, 1.0, "gelu"),
             gelu_tolerance(dtype));
    c.output(c.gemm("kernel_addend_relu", {x, w, col, r}, false, 1.0, -0.75, "relu"),
             default_tolerance(dtype), partial);
    c.output(c.gemm("batched_residual_relu", {xb, wb, rb}, false, 1.0, 1.0, "relu"));
    c.output(c.gemm("batched_left_broadcast_bias", {x, wb, bias}, false, 1.0, 1.0, "none"));
    c.output(c.gemm("folded_batch_bias_gelu", {xb, wt, bias}, true, 1.5, 1.0, "gelu"),
             gelu_tolerance(dtype));
    c.output(c.gemm("scalar_c_relu", {x, w, s}, false, 2.0, 1.0, "relu"));
    c.output(c.gemm("residual_over_batches", {xb, wb, r}, false, 1.0, 0.5, "none"));
    // C read from an arena buffer that dies at the GEMM: the output takes its bytes (C == D).
    const ir::ValueId dying = c.node(OpKind::kAbs, {r}, {}, "dying");
    const ir::ValueId over = c.gemm("over_its_c", {x, w, dying}, false, 1.0, -1.0, "gelu_tanh");
    c.output(c.node(OpKind::kNeg, {over}, {}, "after_over_its_c"), gelu_tolerance(dtype));
    const std::string cu = c.check();
    if (dtype != DType::kF64) {
      CHECK(cu.find("CUBLASLT_EPILOGUE_RELU_BIAS") != std::string::npos);
      CHECK(cu.find("(C matrix)") != std::string::npos);
    }
    CHECK(arena_offset(cu, "v_over_its_c") == arena_offset(cu, "v_dying"));
    CHECK(cu.find("v_w, v_x, v_dying, v_over_its_c, workspace") != std::string::npos);
  }
}

TEST_CASE("gpu: a long reduction over K (split-K territory) matches the reference",
          "[gpu][codegen]") {
  REQUIRE_GPU();
  Case c;
  constexpr int64_t K = 1024;
  const ir::ValueId x = c.input("x", DType::kF32, {16, K});
  const ir::ValueId w = c.constant("w", DType::kF32, {16, K}),
                    bias = c.constant("bias", DType::kF32, {16});
  // fp32 sums of 1024 products (|a b| <= 4, mean 1): each addition rounds by up to 2^-24 of a
  // partial sum of about sqrt(K) * 1.15 = 37, and those errors add like a random walk:
  // sqrt(K) * 37 * 6e-8 = 7e-5 typically. 5e-4 leaves room for the tail, not for a wrong sum.
  c.output(c.gemm("long_k", {x, w, bias}, true, 1.0, 1.0, "relu"), {1.3e-6, 5e-4});
  c.check();
}

TEST_CASE("gpu: decode-shaped gemms (M <= 8) through the GEMV kernel match the reference",
          "[gpu][codegen]") {
  REQUIRE_GPU();
  // K = 24 as above; N = 36 (a multiple of 4, not of 8: 8-byte packs of f16) and 37 (one
  // element a load); the epilogue routes of codegen/emit_gemv.h, on both weight layouts.
  constexpr int64_t K = 24, N = 36;
  for (const DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
    for (const int64_t m : {int64_t{1}, int64_t{3}, int64_t{8}}) {
      INFO(ir::dtype_name(dtype) << ", M " << m);
      Case c;
      const ir::ValueId x = c.input("x", dtype, {m, K}), r = c.input("r", dtype, {m, N});
      const ir::ValueId row = c.input("row", dtype, {N});
      const ir::ValueId w = c.constant("w", dtype, {K, N}), wt = c.constant("wt", dtype, {N, K});
      const ir::ValueId w_odd = c.constant("w_odd", dtype, {K, N + 1}),
                        wt_odd = c.constant("wt_odd", dtype, {N + 1, K});
      const ir::ValueId bias = c.constant("bias", dtype, {N});
      c.output(c.gemm("plain", {x, w}, false, 1.0, 1.0, "none"));
      c.output(c.gemm("plain_nk", {x, wt}, true, 1.0, 1.0, "none"));
      c.output(c.gemm("odd_n", {x, w_odd}, false, 1.0, 1.0, "relu"));
      c.output(c.gemm("odd_n_nk", {x, wt_odd}, true, 1.0, 1.0, "relu"));
      c.output(c.gemm("bias_gelu", {x, w, bias}, false, 1.0, 1.0, "gelu"), gelu_tolerance(dtype));
      c.output(c.gemm("nk_bias_residual_gelu_tanh", {x, wt, bias, r}, true, 0.5, 1.0, "gelu_tanh"),
               gelu_tolerance(dtype));
      c.output(c.gemm("scaled_row_and_residual", {x, w, row, r}, false, 2.0, -0.75, "none"));
      c.output(c.gemm("scaled_residual", {x, wt, r}, true, 1.0, 1.5, "relu"));
      // The output written over a residual that dies at the GEMM.
      const ir::ValueId dying = c.node(OpKind::kAbs, {r}, {}, "dying");
      const ir::ValueId over = c.gemm("over_its_residual", {x, w, dying}, false, 1.0, -1.0, "relu");
      c.output(c.node(OpKind::kNeg, {over}, {}, "after_over_its_residual"));
      const std::string cu = c.check();
      CHECK(cu.find("run_gemm(") == std::string::npos);
      CHECK(cu.find("_gemv_kn_") != std::string::npos);
      CHECK(cu.find("_gemv_nk_") != std::string::npos);
    }
  }
}

TEST_CASE("gpu: a long GEMV reduction over K matches the reference", "[gpu][codegen]") {
  REQUIRE_GPU();
  Case c;
  constexpr int64_t K = 1024;
  const ir::ValueId x = c.input("x", DType::kF32, {2, K});
  const ir::ValueId w = c.constant("w", DType::kF32, {1000, K}),
                    wkn = c.constant("wkn", DType::kF32, {K, 1000}),
                    bias = c.constant("bias", DType::kF32, {1000});
  // The tolerance of the cuBLASLt long_k case above: f32 sums of 1024 products.
  c.output(c.gemm("long_k_nk", {x, w, bias}, true, 1.0, 1.0, "relu"), {1.3e-6, 5e-4});
  c.output(c.gemm("long_k_kn", {x, wkn, bias}, false, 1.0, 1.0, "relu"), {1.3e-6, 5e-4});
  CHECK(c.check().find("_gemv_") != std::string::npos);
}

TEST_CASE("gpu: a norm fused into the GEMV (norm_gemm) matches the reference", "[gpu][codegen]") {
  REQUIRE_GPU();
  // layer_norm (weight and bias) with a bias addend and gelu_tanh, and rms_norm with a bias and a
  // scaled residual; K = 64 (packs of 8 f16 or bf16), N = 36; M = 1, 3 and 8: gemv_nk_norm.
  // Tolerance: a normalized element (|x_hat w + b| < 8 here) may round to the other neighbour
  // than the reference's (f32 statistics against double ones): 2 half-ulps at 8 for each of the K
  // terms, times |w| <= 1 (a hard bound), on top of the output's own.
  constexpr int64_t K = 64, N = 36;
  for (const DType dtype : {DType::kF32, DType::kF16, DType::kBF16}) {
    for (const int64_t m : {int64_t{1}, int64_t{3}, int64_t{8}}) {
      INFO(ir::dtype_name(dtype) << ", M " << m);
      Case c;
      const ir::ValueId x = c.input("x", dtype, {m, K}), r = c.input("r", dtype, {m, N});
      const ir::ValueId gamma = c.constant("gamma", dtype, {K}),
                        beta = c.constant("beta", dtype, {K});
      const ir::ValueId wt = c.constant("wt", dtype, {N, K}), bias = c.constant("bias", dtype, {N});
      auto norm_gemm = [&](const std::string& name, std::vector<ir::ValueId> in,
                           const std::string& norm, double alpha, const std::string& activation) {
        return c.node(OpKind::kNormGemm, std::move(in),
                      attrs({{"trans_b", true},
                             {"alpha", alpha},
                             {"beta", 1.0},
                             {"activation", activation},
                             {"norm", norm},
                             {"eps", 1e-5}}),
                      name);
      };
      const double flips = static_cast<double>(K) * 2 * half_ulp(dtype, 8.0);
      Tolerance layer = gelu_tolerance(dtype), rms = default_tolerance(dtype);
      layer.atol += 1.13 * flips;
      rms.atol += 0.5 * flips;
      c.output(norm_gemm("layer_norm_gelu_tanh", {x, wt, gamma, beta, bias}, "layer_norm", 1.0,
                         "gelu_tanh"),
               layer);
      c.output(norm_gemm("rms_norm_residual", {x, wt, gamma, bias, r}, "rms_norm", 0.5, "none"),
               rms);
      const std::string cu = c.check();
      CHECK(cu.find("run_gemm(") == std::string::npos);
      CHECK(cu.find("_gemv_nk_layer_norm_") != std::string::npos);
      CHECK(cu.find("_gemv_nk_rms_norm_") != std::string::npos);
    }
  }
}

TEST_CASE(
    "gpu: fused elementwise nodes match the reference: broadcasts, literals, casts, f16/bf16 steps",
    "[gpu][codegen]") {
  REQUIRE_GPU();
  Case c;
  const ir::ValueId x = c.input("x", DType::kF32, {4, 6, 8}),
                    row = c.input("row", DType::kF32, {8});
  const ir::ValueId col = c.input("col", DType::kF32, {6, 1}), s = c.constant("s", DType::kF32, {});
  const ir::ValueId h = c.input("h", DType::kF16, {4, 6, 8}),
                    hrow = c.input("hrow", DType::kF16, {8});
  const ir::ValueId brow = c.input("brow", DType::kBF16, {8}),
                    d = c.input("d", DType::kF64, {4, 6, 8});
  const ir::ValueId drow = c.constant("drow", DType::kF64, {8});
  const ir::ValueId a0 = c.input("a0", DType::kF32, {}), a1 = c.input("a1", DType::kF32, {});
  c.output(c.fused("silu", {x}, "sigmoid($0); mul($0, #0)"));
  c.output(c.fused("broadcasts", {x, row, s, col},
                   "add($0, $1); mul(#0, $2); gelu_tanh(#1); sub(#2, $3)"));
  c.output(
      c.fused("f16_steps", {h, hrow, col}, "mul($0, $1); exp(#0); cast[f32](#1); div(#2, $2)"));
  c.output(c.fused("bf16_steps", {x, brow}, "cast[bf16]($0); tanh(#0); add(#1, $1); gelu(#2)"));
  c.output(
      c.fused("to_int_and_bool", {x, row}, "mul($0, $1); cast[i32](#0); abs(#1); cast[bool](#2)"));
  c.output(c.fused("int_back_to_float", {x, col}, "cast[i64]($0); cast[f32](#0); add(#1, $1)"));
  c.output(c.fused("f64", {d, drow}, "exp($0); add(#0, $1); silu(#1)"));
  c.output(c.fused("scalars", {a0, a1}, "mul($0, $1); neg(#0)"));
  // A chain of outputs over inputs: relu's buffer is reused by each following node in place.
  const ir::ValueId relu = c.node(OpKind::kRelu, {x}, {}, "relu");
  const ir::ValueId over = c.fused("over_relu", {relu, row}, "mul($0, $1); sigmoid(#0)");
  const ir::ValueId again = c.node(OpKind::kNeg, {over}, {}, "again");
  c.output(c.fused("last", {again, x}, "add($0, $1); abs(#0)"));
  const std::string cu = c.check();
  CHECK(arena_offset(cu, "v_over_relu") == arena_offset(cu, "v_relu"));
  CHECK(arena_offset(cu, "v_again") == arena_offset(cu, "v_relu"));
}

TEST_CASE("gpu: linear, addmm and matmul (the -O0 forms) match the reference", "[gpu][codegen]") {
  REQUIRE_GPU();
  for (const DType dtype : {DType::kF32, DType::kF16}) {
    INFO(ir::dtype_name(dtype));
    Case c;
    const ir::ValueId x3 = c.input("x3", dtype, {2, 5, 24}), b_in = c.input("b_in", dtype, {36});
    const ir::ValueId a = c.input("a", dtype, {20, 24}), cin = c.input("cin", dtype, {20, 36});
    const ir::ValueId v = c.input("v", dtype, {24}), ab = c.input("ab", dtype, {3, 20, 24});
    const ir::ValueId w = c.constant("w", dtype, {36, 24}), b = c.constant("b", dtype, {36});
    const ir::ValueId m = c.constant("m", dtype, {24, 36}),
                      mb = c.constant("mb", dtype, {3, 24, 36});
    c.output(c.node(OpKind::kLinear, {x3, w, b}, {}, "linear_epilogue_bias"));
    c.output(c.node(OpKind::kLinear, {x3, w, b_in}, {}, "linear_copied_bias"));
    c.output(c.node(OpKind::kAddMM, {cin, a, m}, attrs({{"alpha", 0.5}, {"beta", 3.0}}),
                    "addmm_separate_c"));
    c.output(
        c.node(OpKind::kAddMM, {b, a, m}, attrs({{"alpha", 1.0}, {"beta", 1.0}}), "addmm_bias"));
    c.output(c.node(OpKind::kMatMul, {v, m}, {}, "matmul_vector"));
    c.output(c.node(OpKind::kMatMul, {ab, m}, {}, "matmul_folded"));
    c.output(c.node(OpKind::kMatMul, {a, mb}, {}, "matmul_left_broadcast"));
    c.check();
  }
}

namespace {

// The nodes of one run captured into a CUDA graph, for GEMM + ReLU models of these shapes.
std::vector<std::string> gemm_relu_nodes(const std::vector<std::array<int64_t, 3>>& shapes,
                                         size_t* gemms) {
  Case c;
  std::vector<ir::ValueId> outputs;
  for (const auto& [m, k, n] : shapes) {
    const std::string tag = std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
    const ir::ValueId x = c.input("x" + tag, DType::kF32, {m, k});
    const ir::ValueId w = c.constant("w" + tag, DType::kF32, {k, n});
    const ir::ValueId b = c.constant("b" + tag, DType::kF32, {n});
    outputs.push_back(c.gemm("relu" + tag, {x, w}, false, 1.0, 1.0, "relu"));
    outputs.push_back(c.gemm("bias_relu" + tag, {x, w, b}, false, 1.0, 1.0, "relu"));
  }
  c.graph().set_outputs(outputs);
  *gemms = outputs.size();
  test::CompiledModel model(c.graph());
  return model.captured_nodes(c.inputs());
}

}  // namespace

TEST_CASE("gpu: x @ W then ReLU is one kernel launch with or without a bias", "[gpu][codegen]") {
  REQUIRE_GPU();
  size_t gemms = 0;
  // mm_relu's shape (8 rows: the GEMV kernel, ReLU fused), twice as many rows (cuBLASLt's ReLU
  // epilogue), and one with more output tiles than the GPU has SMs: no reason to split K.
  const std::vector<std::string> nodes =
      gemm_relu_nodes({{8, 16, 32}, {16, 16, 32}, {2048, 2048, 2048}}, &gemms);
  CHECK(nodes == std::vector<std::string>(gemms, "kernel"));
}

TEST_CASE(
    "gpu: a long K over few output tiles takes at most cuBLASLt's split-K reduction kernel more",
    "[gpu][codegen]") {
  REQUIRE_GPU();
  // kernels/gemm.cuh leaves split-K to the heuristic: measured much faster there than one kernel.
  size_t gemms = 0;
  const std::vector<std::string> nodes =
      gemm_relu_nodes({{128, 256, 512}, {512, 1024, 512}, {16, 8192, 16}, {64, 16384, 64}}, &gemms);
  INFO(nodes.size() << " nodes for " << gemms << " GEMMs");
  CHECK(nodes.size() >= gemms);
  CHECK(nodes.size() <= 2 * gemms);
  CHECK(std::count(nodes.begin(), nodes.end(), "kernel") ==
        static_cast<std::ptrdiff_t>(nodes.size()));
}

// Not a check: what one GEMM + ReLU run costs, replayed as a CUDA graph (run it by its tag).
TEST_CASE("gpu: time x @ W then ReLU", "[.][gpu_timing]") {
  REQUIRE_GPU();
  for (const auto& [m, k, n] : {std::array<int64_t, 3>{512, 1024, 512},
                                {16, 8192, 16},
                                {64, 16384, 64},
                                {4096, 4096, 4096}}) {
    Case c;
    const ir::ValueId x = c.input("x", DType::kF32, {m, k});
    const ir::ValueId w = c.constant("w", DType::kF32, {k, n});
    c.graph().set_outputs({c.gemm("y", {x, w}, false, 1.0, 1.0, "relu")});
    test::CompiledModel model(c.graph());
    std::printf("M %ld, K %ld, N %ld: %.1f us\n", static_cast<long>(m), static_cast<long>(k),
                static_cast<long>(n), model.replay_microseconds(c.inputs(), 200));
  }
}

}  // namespace inferno

namespace inferno {
namespace {

TEST_CASE("gpu: a model in parts, built as several objects at once, matches the reference",
          "[gpu][codegen]") {
  // 107 steps: run_steps() in parts of 48 (three), built as an object per part when the machine
  // has the CPUs (driver/nvcc_plan.h); a GEMM (its cuBLASLt plan made by the session, which is
  // the main object's) in the last part.
  Case c;
  ir::ValueId v = c.input("x", DType::kF32, {8, 64});
  for (int i = 0; i < 106; ++i)
    v = c.node(i % 2 ? OpKind::kNeg : OpKind::kTanh, {v}, {}, "v" + std::to_string(i));
  c.output(c.gemm("mm", {v, c.constant("w", DType::kF32, {64, 32})}, false, 1.0, 1.0, "none"));
  const std::string cu = c.check();
  CHECK(cu.find("#if MODEL_PART_HERE(2)") != std::string::npos);
}

}  // namespace
}  // namespace inferno
