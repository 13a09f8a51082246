// Attention steps (codegen/attention_step.h): a decode step's q and k rotaries and K and V cache
// writes are done by the attention kernel (kernels/attention.cuh, attention_step), so those nodes
// launch nothing; where the pattern does not hold (another reader of a cache, several query rows,
// the fusion turned off) the nodes keep their own kernels.
#include <string>
#include <tuple>

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

// A Llama layer's step for `rows` tokens (GQA 2: two query heads on one kv head), f16: q, k and
// v sliced out of one projection, q and k rotated, k and v written into the caches at %pos,
// attention over the caches with a bool mask. `extra` adds lines before the return, `outputs`
// names what it returns.
std::string layer(int rows, const std::string& extra = "", const std::string& outputs = "%o") {
  std::string ir =
      R"ir(graph(%x: f16[1,{R},64], %cos: f16[1,1,{R},16], %sin: f16[1,1,{R},16], %pos: i64[{R}], %m: bool[1,1,{R},8]) {
  state %kc: f16[1,1,8,16] = zeros
  state %vc: f16[1,1,8,16] = zeros
  %qkv: f16[1,{R},64] = relu(%x)
)ir";
  // q (2 heads), k and v (1 each): slices of the projection viewed as [1, heads, rows, 16].
  for (const auto& [name, begin, heads] : {std::tuple{"q", 0, 2}, {"k", 32, 1}, {"v", 48, 1}}) {
    const std::string n(name), h = std::to_string(heads), end = std::to_string(begin + 16 * heads);
    ir += "  %" + n + "s: f16[1,{R}," + std::to_string(16 * heads) +
          "] = slice(%qkv) {starts=[0, 0, " + std::to_string(begin) + "], ends=[1, {R}, " + end +
          "], steps=[1, 1, 1]}\n";
    ir += "  %" + n + "r: f16[1,{R}," + h + ",16] = reshape(%" + n + "s) {shape=[1, {R}, " + h +
          ", 16]}\n";
    ir += "  %" + n + ": f16[1," + h + ",{R},16] = permute(%" + n + "r) {dims=[0, 2, 1, 3]}\n";
  }
  ir += R"ir(  %qe: f16[1,2,{R},16] = rotary(%q, %cos, %sin) {rotary_dim=16}
  %ke: f16[1,1,{R},16] = rotary(%k, %cos, %sin) {rotary_dim=16}
  %nk: f16[1,1,8,16] = index_copy(%kc, %pos, %ke) {dim=2}
  %nv: f16[1,1,8,16] = index_copy(%vc, %pos, %v) {dim=2}
  %o: f16[1,2,{R},16] = attention(%qe, %nk, %nv, %m) {causal=false, kv_groups=2, mask="bool", scale=0.25}
)ir" + extra +
        "  return " + outputs + " updates %nk, %nv\n}";
  for (size_t at = ir.find("{R}"); at != std::string::npos; at = ir.find("{R}"))
    ir.replace(at, 3, std::to_string(rows));
  return ir;
}

}  // namespace

TEST_CASE("a decode step's rotaries and cache writes happen in its attention kernel", "[codegen]") {
  const std::string cu = generate_cu(parse(layer(1)));
  // relu, then the attention: the rotaries and index_copies launch nothing.
  CHECK(count_occurrences(cu, "MODEL_LAUNCH(") == 1);
  CHECK(count_occurrences(cu, "(done by the attention kernel of %o, codegen/attention_step.h)") ==
        4);
  CHECK_FALSE(has(cu, "rotary_f16"));
  CHECK_FALSE(has(cu, "index_copy_f16"));
  // q and the new rows read in place from the projection (k at 32, v at 48), the caches are
  // the states, the rotary's cosine and sine shared by both (16 dims each, one row).
  CHECK(has(cu,
            "inferno::kernels::attention_step<__half, 32>(/* q */ v_qkv, /* k_cache */ v_nk, "
            "/* v_cache */ v_nv, /* out */ v_o, "));
  CHECK(has(cu,
            "/* update */ inferno::kernels::AttentionDecodeUpdate<__half>{(v_qkv + 32), "
            "inferno::kernels::AttentionLayout{16, 16, 16}, (v_qkv + 48), "
            "inferno::kernels::AttentionLayout{16, 16, 16}, v_pos, v_cos, v_sin, 0, 16, 16}, "
            "stream, inferno::kernels::AttentionDecodeLaunch{dependent_launch})"));
  CHECK(has(cu,
            "\"attention_step<__half, 32> (decode, split keys, with the step's rotary and "
            "cache writes)\""));
}

TEST_CASE("the projection an attention step reads stays alive until it", "[codegen]") {
  // Planned as if the rotaries read it, %qkv's bytes would be free by the attention, and its
  // output (or %p, computed between) could take them.
  const std::string cu = generate_cu(parse(layer(1)));
  const std::string plan = test::plan_text(parse(layer(1)));
  REQUIRE(has(cu, "attention_step<"));
  // %qkv: live from node 0 to the attention (node 14), where the kernel reads it.
  CHECK(has(plan, "nodes 0..14, %qkv"));
}

TEST_CASE("a decode step keeps its own kernels where the attention cannot do them", "[codegen]") {
  SECTION("several query rows (the prompt)") {
    const std::string cu = generate_cu(parse(layer(2)));
    CHECK_FALSE(has(cu, "attention_step<"));
    CHECK(has(cu, "rotary_f16"));
  }
  SECTION("another reader of the updated cache") {
    const std::string cu =
        generate_cu(parse(layer(1, "  %kk: f16[1,1,8,16] = neg(%nk)\n", "%o, %kk")));
    CHECK_FALSE(has(cu, "attention_step<"));
    CHECK(has(cu, "inferno::kernels::attention<__half, 32>("));
  }
  SECTION("q's rotary read by another node") {
    const std::string cu =
        generate_cu(parse(layer(1, "  %qq: f16[1,2,1,16] = neg(%qe)\n", "%o, %qq")));
    // The cache writes still go into the attention; q's rotary keeps its kernel.
    CHECK(has(cu, "attention_step<"));
    CHECK(has(cu, "rotary_f16_1x2x1x16"));
    CHECK(has(cu, "/* q */ v_qe, "));
    CHECK(has(cu, "v_pos, v_cos, v_sin, 0, 0, 16}"));  // no rotary of q: it is rotated already
  }
  SECTION("turned off") {
    codegen::CodegenOptions options = test::fixed_codegen_options();
    options.attention_steps = false;
    auto generated = codegen::generate(parse(layer(1)), options);
    REQUIRE(generated.has_value());
    CHECK_FALSE(has(generated->cuda_source, "attention_step<"));
    CHECK(has(generated->cuda_source, "inferno::kernels::attention<__half, 32>("));
  }
}

}  // namespace inferno
