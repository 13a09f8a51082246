// Launch groups (codegen/launch_groups.h): independent neighbouring grid kernels go out as one
// launch, each member's body a device function of its own element index; a member that reads or
// writes what another writes, or a node that launches something else, ends the group.
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
using test::plan_text;

}  // namespace

TEST_CASE("independent neighbours share one launch", "[codegen]") {
  const std::string cu = generate_cu(parse(R"(graph(%x: f32[4,8], %y: f32[16]) {
  %a: f32[4,8] = relu(%x)
  %b: f32[16] = neg(%y)
  return %a, %b
})"));
  CHECK(count_occurrences(cu, "MODEL_LAUNCH(") == 1);
  // Each member: its own kernel's loop over its own blocks, compiled apart.
  CHECK(has(cu,
            "static __device__ __noinline__ void k0_relu_f32_4x8(unsigned block, "
            "unsigned blocks, const float* in0, float* out) {"));
  CHECK(has(cu, "for (int i = block * 256 + threadIdx.x; i < 32; i += blocks * 256) {"));
  // Block 0 computes %a, block 1 %b.
  CHECK(has(cu, "const unsigned b = blockIdx.x;"));
  CHECK(has(cu, "if (b < 1u) k0_relu_f32_4x8(b - 0u, 1u, m0_in0, m0_out);"));
  CHECK(has(cu, "else if (b < 2u) k1_neg_f32_16(b - 1u, 1u, m1_in0, m1_out);"));
  CHECK(has(cu,
            "MODEL_LAUNCH(k1_launch_group, 2, 256, \"%b\", /* m0_in0 */ v_x, /* m0_out */ v_a, "
            "/* m1_in0 */ v_y, /* m1_out */ v_b);"));
  // One profile step for the group, with both nodes' work (32 + 16 elements read and written).
  CHECK(has(cu, "\"launch group\""));
  CHECK(has(cu, "\"one launch: relu_f32_4x8 + neg_f32_16\""));
  CHECK(has(cu, "192u, 192u}"));
}

TEST_CASE("a member that reads another's output ends the group", "[codegen]") {
  const std::string cu = generate_cu(parse(R"(graph(%x: f32[32]) {
  %a: f32[32] = relu(%x)
  %b: f32[32] = neg(%a)
  return %b
})"));
  CHECK(count_occurrences(cu, "MODEL_LAUNCH(") == 2);
  CHECK_FALSE(has(cu, "launch_group"));
}

TEST_CASE("a member written over what another reads ends the group", "[codegen]") {
  // %b is written in place over %t, which %a reads too: run at once, %a could read %b's values.
  const ir::Graph graph = parse(R"(graph(%x: f32[64]) {
  %t: f32[64] = relu(%x)
  %a: f32[64] = neg(%t)
  %b: f32[64] = exp(%t)
  %c: f32[64] = add(%a, %b)
  return %c
})");
  REQUIRE(has(plan_text(graph), "%b (in place of %t)"));
  const std::string cu = generate_cu(graph);
  CHECK(count_occurrences(cu, "MODEL_LAUNCH(") == 4);
  CHECK_FALSE(has(cu, "launch_group"));
}

TEST_CASE("a launch of another kind ends the group, views between members do not", "[codegen]") {
  const std::string cu = generate_cu(parse(R"(graph(%x: f32[2,8], %w: f32[8,8], %y: f32[16]) {
  %a: f32[2,8] = relu(%x)
  %v: f32[16] = reshape(%a) {shape=[16]}
  %b: f32[16] = neg(%y)
  %m: f32[2,8] = gemm(%x, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  %c: f32[16] = exp(%y)
  return %v, %b, %m, %c
})"));
  CHECK(has(cu, "if (b < 1u) k0_relu_f32_2x8(b - 0u, 1u, m0_in0, m0_out);"));
  CHECK(has(cu, "else if (b < 2u) k2_neg_f32_16(b - 1u, 1u, m1_in0, m1_out);"));
  CHECK(has(cu, "MODEL_LAUNCH(k2_launch_group, "));
  CHECK(has(cu, "MODEL_LAUNCH(k4_exp_f32_16, "));  // alone after the GEMM
}

TEST_CASE("a launch group takes at most eight members", "[codegen]") {
  std::string text = "graph(%x: f32[8]) {\n";
  std::string outputs;
  for (int k = 0; k < 10; ++k) {
    const std::string name = "%y" + std::to_string(k);
    text += "  " + name + ": f32[8] = " + (k % 2 == 0 ? "relu" : "neg") + "(%x)\n";
    outputs += (k == 0 ? "" : ", ") + name;
  }
  const std::string cu = generate_cu(parse(text + "  return " + outputs + "\n}"));
  CHECK(has(cu, "MODEL_LAUNCH(k7_launch_group, "));  // nodes 0..7
  CHECK(has(cu, "MODEL_LAUNCH(k9_launch_group, "));  // nodes 8 and 9
  CHECK(count_occurrences(cu, "MODEL_LAUNCH(") == 2);
}

TEST_CASE("a decode step's rotaries and cache writes are one launch", "[codegen]") {
  // Llama's layer for one token: q and k rotated out of the projection, k's rotary writing its
  // row into the K cache, v copied into the V cache at the same position.
  const std::string cu = generate_cu(
      parse(R"ir(graph(%x: f32[1,1,64], %cos: f32[1,1,1,16], %sin: f32[1,1,1,16], %pos: i64[1]) {
  state %kc: f32[1,1,8,16] = zeros
  state %vc: f32[1,1,8,16] = zeros
  %qkv: f32[1,1,64] = relu(%x)
  %qs: f32[1,1,32] = slice(%qkv) {starts=[0, 0, 0], ends=[1, 1, 32], steps=[1, 1, 1]}
  %qr: f32[1,1,2,16] = reshape(%qs) {shape=[1, 1, 2, 16]}
  %q: f32[1,2,1,16] = permute(%qr) {dims=[0, 2, 1, 3]}
  %ks: f32[1,1,16] = slice(%qkv) {starts=[0, 0, 32], ends=[1, 1, 48], steps=[1, 1, 1]}
  %kr: f32[1,1,1,16] = reshape(%ks) {shape=[1, 1, 1, 16]}
  %k: f32[1,1,1,16] = permute(%kr) {dims=[0, 2, 1, 3]}
  %vs: f32[1,1,16] = slice(%qkv) {starts=[0, 0, 48], ends=[1, 1, 64], steps=[1, 1, 1]}
  %vr: f32[1,1,1,16] = reshape(%vs) {shape=[1, 1, 1, 16]}
  %v: f32[1,1,1,16] = permute(%vr) {dims=[0, 2, 1, 3]}
  %qe: f32[1,2,1,16] = rotary(%q, %cos, %sin) {rotary_dim=16}
  %ke: f32[1,1,1,16] = rotary(%k, %cos, %sin) {rotary_dim=16}
  %nk: f32[1,1,8,16] = index_copy(%kc, %pos, %ke) {dim=2}
  %nv: f32[1,1,8,16] = index_copy(%vc, %pos, %v) {dim=2}
  %o: f32[1,2,1,16] = neg(%qe)
  return %o updates %nk, %nv
})ir"));
  // relu; q's rotary, k's (into the cache) and v's write, a block each; then neg.
  CHECK(count_occurrences(cu, "MODEL_LAUNCH(") == 3);
  CHECK(has(cu, "if (b < 1u) k10_rotary_f32_1x2x1x16(b - 0u, 1u, m0_x, "));
  CHECK(has(cu, "else if (b < 2u) k11_rotary_f32_1x1x1x16(b - 1u, 1u, m1_x, "));
  CHECK(has(cu, "else if (b < 3u) k13_index_copy_f32_1x1x8x16(b - 2u, 1u, m2_in, "));
  CHECK(has(cu, "// (its rows written in place by the rotary kernel of %ke)"));
  CHECK(has(cu, "MODEL_LAUNCH(k13_launch_group, "));
  CHECK(has(cu, "/* m1_index */ v_pos, /* m1_out */ v_nk,"));  // k's rows go to the cache
}

TEST_CASE("the node verify corrupts is launched alone", "[codegen]") {
  const ir::Graph graph = parse(R"(graph(%x: f32[16], %y: f32[16]) {
  %a: f32[16] = relu(%x)
  %b: f32[16] = neg(%y)
  return %a, %b
})");
  codegen::CodegenOptions options = test::fixed_codegen_options();
  options.corrupt_node = "a";
  auto generated = codegen::generate(graph, options);
  REQUIRE(generated.has_value());
  CHECK_FALSE(has(generated->cuda_source, "launch_group"));
  CHECK(count_occurrences(generated->cuda_source, "MODEL_LAUNCH(k0_relu_f32_16, ") == 1);
}

}  // namespace inferno
