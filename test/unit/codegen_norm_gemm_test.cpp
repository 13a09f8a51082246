// norm_gemm's lowering (emit_gemm.cpp, emit_gemv.h): one GEMV launch that normalizes x's rows
// itself (gemv_nk_norm), with the norm's parameters, eps and K as literals; what the GEMV cannot
// run is refused (fuse-norm-gemv never makes it), not run unfused.
#include "codegen/kernel_cost.h"
#include "codegen_test_helpers.h"
#include "ir/parser.h"
#include "support/catch.h"

namespace inferno {
namespace {

using test::has;

ir::Graph parse(const std::string& text) {
  Expected<ir::Graph> graph = ir::parse_graph(text);
  INFO((graph ? std::string() : graph.status().to_string()));
  REQUIRE(graph.has_value());
  return std::move(graph).value();
}

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("norm_gemm is one GEMV launch that normalizes x's rows itself", "[codegen]") {
  SECTION("rms_norm, f16, one row, a residual") {
    const std::string cu = test::generate_cu(parse(R"(
graph(%x: f16[1,1,64], %w: f16[96,64], %g: f16[64], %r: f16[1,1,96]) {
  %y: f16[1,1,96] = norm_gemm(%x, %w, %g, %r, %r) {activation="none", alpha=1.0, beta=0.0, eps=1e-06, norm="rms_norm", trans_b=true}
  return %y
})"));
    CHECK(has(cu,
              "__global__ void __launch_bounds__(inferno::kernels::kGemvNkThreads) "
              "k0_gemv_nk_rms_norm_f16_1x64x96(const __half* x, const __half* w, const "
              "__half* norm_weight, const __half* row, __half* out) {"));
    CHECK(has(cu,
              "inferno::kernels::gemv_nk_norm<__half, 1, inferno::kernels::gemv_pack<__half>"
              "(64), inferno::kernels::gemv_nk_lanes<__half>(64), 64, true, "
              "inferno::kernels::gemv_nk_norm_unroll<__half>(96, 64)>(x, w, 96, "
              "norm_weight, nullptr, 9.99999997e-07f, out, epilogue, "));
    // With one row the residual is a row vector: the bias slot takes it.
    CHECK(has(cu, "rms_norm(%x, %g, eps = 1e-06) @ %w^T + %r[n]"));
    CHECK(count(cu, "MODEL_LAUNCH(") == 1 + count(cu, "#define MODEL_LAUNCH("));
    CHECK(count(cu, "MODEL_CHECK_") == count(cu, "#define MODEL_CHECK_"));
    CHECK_FALSE(has(cu, "kernels::rms_norm<"));
    CHECK_FALSE(has(cu, "run_gemm("));
    // Caller buffers read in packs are checked; the norm weight too.
    CHECK(has(cu, "bad_alignment(\"%y\", \"%x\", 16"));
    CHECK(has(cu, "bad_alignment(\"%y\", \"%g\", 16"));
  }
  SECTION("layer_norm, f32, 4 rows, a bias and gelu") {
    const std::string cu = test::generate_cu(parse(R"(
graph(%x: f32[4,32], %w: f32[8,32], %g: f32[32], %be: f32[32], %b: f32[8]) {
  %y: f32[4,8] = norm_gemm(%x, %w, %g, %be, %b) {activation="gelu", alpha=1.0, beta=1.0, eps=1e-05, norm="layer_norm", trans_b=true}
  return %y
})"));
    CHECK(has(cu,
              "k0_gemv_nk_layer_norm_f32_4x32x8(const float* x, const float* w, const float* "
              "norm_weight, const float* norm_bias, const float* row, float* out)"));
    CHECK(has(
        cu,
        ", 32, false, inferno::kernels::gemv_nk_norm_unroll<float>(8, 32)>(x, w, 8, norm_weight, "
        "norm_bias, 9.99999975e-06f, out, "));
    CHECK(has(cu, "GemvEpilogue<float> epilogue{1.0f, row, 1.0f, nullptr, 1.0f};"));
  }
}

TEST_CASE("a norm_gemm the GEMV cannot run is refused, not run unfused", "[codegen]") {
  // Nine rows; a [K, N] weight; f64.
  for (const char* text : {R"(
graph(%x: f32[9,8], %w: f32[4,8], %g: f32[8]) {
  %y: f32[9,4] = norm_gemm(%x, %w, %g) {activation="none", alpha=1.0, beta=1.0, eps=1e-06, norm="rms_norm", trans_b=true}
  return %y
})",
                           R"(
graph(%x: f32[1,8], %w: f32[8,4], %g: f32[8]) {
  %y: f32[1,4] = norm_gemm(%x, %w, %g) {activation="none", alpha=1.0, beta=1.0, eps=1e-06, norm="rms_norm", trans_b=false}
  return %y
})",
                           R"(
graph(%x: f64[1,8], %w: f64[4,8], %g: f64[8]) {
  %y: f64[1,4] = norm_gemm(%x, %w, %g) {activation="none", alpha=1.0, beta=1.0, eps=1e-06, norm="rms_norm", trans_b=true}
  return %y
})"}) {
    INFO(text);
    const auto generated = codegen::generate(parse(text), test::fixed_codegen_options());
    REQUIRE_FALSE(generated.has_value());
    CHECK(generated.status().code() == ErrorCode::kUnsupported);
    CHECK(has(generated.status().message(), "a norm folded into a product the GEMV does not run"));
  }
}

TEST_CASE("norm_gemm's profile-plan cost is the norm's and the product's", "[codegen]") {
  // 2 rows of K = 32, N = 8: layer_norm 7 FLOPs an element of x (statistics 5, weight and bias),
  // the product 2 M N K, a bias addend 1 an output.
  const ir::Graph graph = parse(R"(
graph(%x: f32[2,32], %w: f32[8,32], %g: f32[32], %be: f32[32], %b: f32[8]) {
  %y: f32[2,8] = norm_gemm(%x, %w, %g, %be, %b) {activation="none", alpha=1.0, beta=1.0, eps=1e-05, norm="layer_norm", trans_b=true}
  return %y
})");
  const codegen::NodeWork work = codegen::node_work(graph, graph.nodes()[0]);
  CHECK(work.flops == 2 * 32 * 7 + 2 * 2 * 8 * 32 + 2 * 8);
  CHECK(work.bytes_read == 4 * (2 * 32 + 8 * 32 + 32 + 32 + 8));
  CHECK(work.bytes_written == 4 * 2 * 8);
}

}  // namespace inferno
