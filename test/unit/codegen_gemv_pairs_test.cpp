// A gated MLP's elementwise step in its GEMV's epilogue (codegen/gemv_pairs.h): the pattern that
// takes it, the code it writes (the fused node's body as the pair functor, the GEMV writing the
// node's output), and the near misses that keep the two kernels. The kernel itself is checked on
// the GPU (test/gpu/kernels_gemv_pairs_test.cu), bit for bit against the unfused pair.
#include <string>

#include "codegen/codegen.h"
#include "codegen_test_helpers.h"
#include "ir/parser.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using test::count_occurrences;
using test::generate_cu;
using test::has;
using test::parse;

// One token's MLP: y = x @ [W_gate; W_up]^T, silu(y[..., :64]) * y[..., 64:], then the down
// projection. `rows` is M, `tail` replaces the product's second half slice, `extra` adds nodes.
std::string mlp(int rows, const std::string& second_half = "starts=[0, 64], ends=[1, 128]",
                const std::string& extra = "", const std::string& outputs = "%down") {
  const std::string m = std::to_string(rows);
  std::string text = "graph(%x: f16[" + m + ",32], %w: f16[128,32], %wd: f16[32,64]) {\n";
  text += "  %y: f16[" + m +
          ",128] = gemm(%x, %w) {activation=\"none\", alpha=1.0, beta=1.0, trans_b=true}\n";
  text += "  %gate: f16[" + m + ",64] = slice(%y) {starts=[0, 0], ends=[" + m +
          ", 64], steps=[1, 1]}\n";
  std::string second = second_half;
  second.replace(second.find("[1,"), 3, "[" + m + ",");
  text += "  %up: f16[" + m + ",64] = slice(%y) {" + second + ", steps=[1, 1]}\n";
  text += "  %act: f16[" + m +
          ",64] = fused_elementwise(%gate, %up) {expr=\"silu($0); mul(#0, $1)\"}\n";
  text += "  %down: f16[" + m +
          ",32] = gemm(%act, %wd) {activation=\"none\", alpha=1.0, beta=1.0, trans_b=true}\n";
  return text + extra + "  return " + outputs + "\n}";
}

}  // namespace

TEST_CASE("a gated MLP's step runs in its GEMV's epilogue", "[codegen]") {
  const std::string cu = generate_cu(parse(mlp(1)));
  CHECK(has(cu, "k0_gemv_nk_f16_1x32x128_pairs("));
  CHECK(has(cu, "// (computed by the GEMV of %y in its epilogue, codegen/gemv_pairs.h)"));
  // The node's body on the two halves, rounded after each step as its own kernel would.
  CHECK(has(cu, "const auto pair = [](__half first, __half second) {"));
  CHECK(has(cu, "const float x0 = __half2float(first);  // %gate"));
  CHECK(has(cu, "const float x1 = __half2float(second);  // %up"));
  CHECK(has(cu, "const float s1 = __half2float(__float2half_rn(s0 * x1));  // #1 = mul(#0, $1)"));
  CHECK(has(cu, "return __float2half_rn(s1);"));
  CHECK(has(cu, "(x, w, 128, 32, out, epilogue, [](float a) { return a; }, {}, pair);"));
  // The GEMV writes %act; nothing else launches for it.
  CHECK(has(cu, "/* out */ v_act);"));
  CHECK(count_occurrences(cu, "MODEL_LAUNCH(") == 2);
  CHECK_FALSE(has(cu, "fused_silu_mul"));
}

TEST_CASE("the halves may reach the step in either order", "[codegen]") {
  std::string text = mlp(2);
  text.replace(text.find("fused_elementwise(%gate, %up) {expr=\"silu($0); mul(#0, $1)\"}"),
               std::string("fused_elementwise(%gate, %up) {expr=\"silu($0); mul(#0, $1)\"}").size(),
               "fused_elementwise(%up, %gate) {expr=\"silu($1); mul(#0, $0)\"}");
  const std::string cu = generate_cu(parse(text));
  CHECK(has(cu, "k0_gemv_nk_f16_2x32x128_pairs("));
  CHECK(has(cu, "const float x0 = __half2float(second);  // %up"));
  CHECK(has(cu, "const float x1 = __half2float(first);  // %gate"));
}

TEST_CASE("gemv_pairs off keeps the product and the step's own kernel", "[codegen]") {
  codegen::CodegenOptions options = test::fixed_codegen_options();
  options.gemv_pairs = false;
  auto generated = codegen::generate(parse(mlp(1)), options);
  REQUIRE(generated.has_value());
  CHECK_FALSE(has(generated->cuda_source, "_pairs("));
  CHECK(has(generated->cuda_source, "fused_silu_mul"));
}

TEST_CASE("near misses keep the product and the step's own kernel", "[codegen]") {
  const auto unpaired = [](const std::string& text) {
    const std::string cu = generate_cu(parse(text));
    CHECK_FALSE(has(cu, "_pairs("));
    CHECK(has(cu, "fused_silu_mul"));
  };
  SECTION("too many rows for the GEMV (cuBLASLt)") { unpaired(mlp(16)); }
  SECTION("slices that are not the halves") {
    // [0, 64) and [60, 124): still 64 wide, not the second half.
    unpaired(mlp(1, "starts=[0, 60], ends=[1, 124]"));
  }
  SECTION("another reader of the product") {
    unpaired(mlp(1, "starts=[0, 64], ends=[1, 128]", "  %twice: f16[1,128] = add(%y, %y)\n",
                 "%down, %twice"));
  }
  SECTION("a half that is also a graph output") {
    unpaired(mlp(1, "starts=[0, 64], ends=[1, 128]", "", "%down, %up"));
  }
}

}  // namespace inferno
