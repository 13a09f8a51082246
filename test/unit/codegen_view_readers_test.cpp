// Elementwise ops, fused_elementwise, cat and index_copy's source read their inputs through views
// (codegen/views.h): a slice or permute that only they read launches no copy, and their kernels
// index the view's source with the view's strides, from its offset. A layout node that another
// consumer also reads stays a copy; an input read through a view is never written over in place.
// The index expressions below are worked out by hand from the shapes, not taken from the code.
#include <string>

#include "codegen/codegen.h"
#include "codegen/emit_grid_kernel.h"
#include "codegen/views.h"
#include "codegen_test_helpers.h"
#include "ir/parser.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using codegen::LayoutLowering;
using test::parse;

using test::count_occurrences;
using test::generate_cu;
using test::has;
using test::plan_text;

LayoutLowering lowering_of(const ir::Graph& graph, const codegen::ViewPlan& views,
                           const std::string& value) {
  return views.lowering.at(
      static_cast<size_t>(views.producer.at(static_cast<size_t>(graph.find_value(value)))));
}

// Llama's rotary embedding of q, as the optimizer leaves it: q sliced from a fused projection
// [1, S=4, 64], split into 2 heads of 16 and permuted to [1, 2, 4, 16]; rotate_half slices its
// halves, negates one and concatenates them; one fused kernel multiplies and adds.
const char* kRotary = R"ir(graph(%x: f32[1,4,64], %cos: f32[1,1,4,16], %sin: f32[1,1,4,16]) {
  %qkv: f32[1,4,64] = relu(%x)
  %qs: f32[1,4,32] = slice(%qkv) {starts=[0, 0, 0], ends=[1, 4, 32], steps=[1, 1, 1]}
  %qr: f32[1,4,2,16] = reshape(%qs) {shape=[1, 4, 2, 16]}
  %q: f32[1,2,4,16] = permute(%qr) {dims=[0, 2, 1, 3]}
  %x1: f32[1,2,4,8] = slice(%q) {starts=[0, 0, 0, 0], ends=[1, 2, 4, 8], steps=[1, 1, 1, 1]}
  %x2: f32[1,2,4,8] = slice(%q) {starts=[0, 0, 0, 8], ends=[1, 2, 4, 16], steps=[1, 1, 1, 1]}
  %n: f32[1,2,4,8] = neg(%x2)
  %rot: f32[1,2,4,16] = cat(%n, %x1) {dim=3}
  %y: f32[1,2,4,16] = fused_elementwise(%q, %cos, %rot, %sin) {expr="mul($0, $1); mul($2, $3); add(#0, #1)"}
  return %y
})ir";

}  // namespace

TEST_CASE("elementwise ops and cat read the rotary embedding's slices and permute in place",
          "[codegen]") {
  const ir::Graph graph = parse(kRotary);
  const codegen::ViewPlan views = codegen::plan_views(graph);
  for (const char* v : {"qs", "qr", "q", "x1", "x2"})
    CHECK(lowering_of(graph, views, v) == LayoutLowering::kVirtual);

  const std::string cu = generate_cu(graph);
  CHECK_FALSE(has(cu, "strided_copy"));
  // q[0, h, s, d] is qkv[s * 64 + h * 16 + d]; x2 = q[..., 8:] starts at qkv + 8. Over x2's
  // [1, 2, 4, 8]: h = i / 32, s = i / 8 % 4, d = i % 8.
  CHECK(has(cu, "in0[i / 32 * 16 + i / 8 % 4 * 64 + i % 8];  // %x2"));
  CHECK(has(cu, ", /* in0 */ (v_qkv + 8), /* out */ v_n);"));
  // cat: x1's element e = (o * 8 + j - 8) * 1 + c of [1, 2, 4, 8], from qkv itself.
  const std::string e = "((o * 8 + j - 8) * 1 + c)";
  CHECK(has(cu, "else if (j < 16) out[i] = in1[" + e + " / 32 * 16 + " + e + " / 8 % 4 * 64 + " +
                    e + " % 8];"));
  CHECK(has(cu, "if (j < 8) out[i] = in0[(o * 8 + j - 0) * 1 + c];"));  // n: its own buffer
  CHECK(has(cu, ", /* in0 */ v_n, /* in1 */ v_qkv, /* out */ v_rot);"));
  // The fused kernel over [1, 2, 4, 16]: q with h = i / 64, s = i / 16 % 4, d = i % 16; cos and
  // sin broadcast over the heads; rot contiguous.
  CHECK(has(cu, "in0[i / 64 * 16 + i / 16 % 4 * 64 + i % 16];  // %q"));
  CHECK(has(cu, "in1[i % 64];  // %cos"));
  CHECK(has(cu, "in2[i];  // %rot"));
  CHECK(has(cu, ", /* in0 */ v_qkv, /* in1 */ v_cos, /* in2 */ v_rot, /* in3 */ v_sin, "));

  // qkv's bytes live until the fused kernel (node 8), its last reader through q.
  CHECK(has(plan_text(graph), "nodes 0..8, %qkv\n"));
}

TEST_CASE("rotary reads q's slice, heads and permute in place, cos and sin broadcast",
          "[codegen]") {
  // kRotary after recognize-rotary: one rotary node over q, no neg, cat or fused kernel.
  const ir::Graph graph =
      parse(R"ir(graph(%x: f32[1,4,64], %cos: f32[1,1,4,16], %sin: f32[1,1,4,16]) {
  %qkv: f32[1,4,64] = relu(%x)
  %qs: f32[1,4,32] = slice(%qkv) {starts=[0, 0, 32], ends=[1, 4, 64], steps=[1, 1, 1]}
  %qr: f32[1,4,2,16] = reshape(%qs) {shape=[1, 4, 2, 16]}
  %q: f32[1,2,4,16] = permute(%qr) {dims=[0, 2, 1, 3]}
  %y: f32[1,2,4,16] = rotary(%q, %cos, %sin) {rotary_dim=16}
  return %y
})ir");
  const codegen::ViewPlan views = codegen::plan_views(graph);
  for (const char* v : {"qs", "qr", "q"})
    CHECK(lowering_of(graph, views, v) == LayoutLowering::kVirtual);
  const std::string cu = generate_cu(graph);
  CHECK_FALSE(has(cu, "strided_copy"));
  // q[0, h, s, d] is qkv[32 + s * 64 + h * 16 + d]: over q's [1, 2, 4, 16], h = e / 64,
  // s = e / 16 % 4, d = e % 16; the partner of d < 8 is d + 8, of d >= 8 d - 8; cos and sin
  // [1, 1, 4, 16] repeat over the 2 heads (64 elements each).
  CHECK(has(cu, "const int e = i, j = e % 16;"));
  CHECK(has(cu,
            "j < 8 ? -x[(e + 8) / 64 * 16 + (e + 8) / 16 % 4 * 64 + (e + 8) % 16] : "
            "x[(e - 8) / 64 * 16 + (e - 8) / 16 % 4 * 64 + (e - 8) % 16];"));
  CHECK(has(cu,
            "x[(e) / 64 * 16 + (e) / 16 % 4 * 64 + (e) % 16] * cosine[(t) % 64] + "
            "partner * sine[(t) % 64];"));
  CHECK(has(cu, ", /* x */ (v_qkv + 32), /* cosine */ v_cos, /* sine */ v_sin, /* out */ v_y);"));
  // qkv's bytes live until the rotary (node 4), which reads them through q.
  CHECK(has(plan_text(graph), "nodes 0..4, %qkv\n"));
}

TEST_CASE("a layout node that a non-reader also reads stays a copy for every reader", "[codegen]") {
  const ir::Graph graph = parse(R"(graph(%x: f32[8,4]) {
  %a: f32[8,4] = relu(%x)
  %t: f32[4,8] = permute(%a) {dims=[1, 0]}
  %b: f32[4,8] = neg(%t)
  %s: f32[] = sum(%t) {dims=[], keepdim=false}
  return %b, %s
})");
  const codegen::ViewPlan views = codegen::plan_views(graph);
  CHECK(lowering_of(graph, views, "t") == LayoutLowering::kMaterialized);
  const std::string cu = generate_cu(graph);
  CHECK(has(cu, "strided_copy<float>(/* in */ v_a, /* out */ v_t,"));
  CHECK(has(cu, "in0[i];  // %t"));

  SECTION("read by elementwise ops alone, it is a view of a") {
    const ir::Graph only = parse(R"(graph(%x: f32[8,4]) {
  %a: f32[8,4] = relu(%x)
  %t: f32[4,8] = permute(%a) {dims=[1, 0]}
  %b: f32[4,8] = neg(%t)
  %c: f32[4,8] = exp(%t)
  return %b, %c
})");
    CHECK(lowering_of(only, codegen::plan_views(only), "t") == LayoutLowering::kVirtual);
    const std::string only_cu = generate_cu(only);
    CHECK_FALSE(has(only_cu, "strided_copy"));
    CHECK(has(only_cu, "in0[i / 8 + i % 8 * 4];  // %t"));  // t[r, c] = a[c * 4 + r]
  }
  SECTION("a graph output is never a view") {
    const ir::Graph output = parse(R"(graph(%x: f32[8,4]) {
  %a: f32[8,4] = relu(%x)
  %t: f32[4,8] = permute(%a) {dims=[1, 0]}
  %b: f32[4,8] = neg(%t)
  return %b, %t
})");
    CHECK(lowering_of(output, codegen::plan_views(output), "t") == LayoutLowering::kMaterialized);
  }
}

TEST_CASE("an input read through a view is not written over in place", "[codegen]") {
  // neg is a's last reader and has a's size: through a permute its output would overwrite
  // elements of a that other threads still read; through a reshape (a's bytes in order) it may.
  const ir::Graph permuted = parse(R"(graph(%x: f32[8,8]) {
  %a: f32[8,8] = relu(%x)
  %t: f32[8,8] = permute(%a) {dims=[1, 0]}
  %b: f32[8,8] = neg(%t)
  %c: f32[8,8] = exp(%b)
  return %c
})");
  CHECK(lowering_of(permuted, codegen::plan_views(permuted), "t") == LayoutLowering::kVirtual);
  CHECK_FALSE(has(plan_text(permuted), "(in place of %a)"));

  const ir::Graph reshaped = parse(R"(graph(%x: f32[8,8]) {
  %a: f32[8,8] = relu(%x)
  %t: f32[64] = reshape(%a) {shape=[64]}
  %b: f32[64] = neg(%t)
  %c: f32[64] = exp(%b)
  return %c
})");
  CHECK(lowering_of(reshaped, codegen::plan_views(reshaped), "t") == LayoutLowering::kAlias);
  CHECK(has(plan_text(reshaped), "%b (in place of %a)"));
}

TEST_CASE("index_copy writes a permuted slice of a projection into the KV cache", "[codegen]") {
  // Two new tokens' k for 2 heads of 4, from k = permute(reshape(kv[..., 8:16])): k[0, h, s, d]
  // is kv[s * 16 + 8 + h * 4 + d]. The source [1, 2, 2, 4] coalesces to [2, 2, 4] with strides
  // [4, 16, 1] from kv + 8.
  const std::string body = R"(
  %kv: f32[1,2,16] = relu(%x)
  %ks: f32[1,2,8] = slice(%kv) {starts=[0, 0, 8], ends=[1, 2, 16], steps=[1, 1, 1]}
  %kr: f32[1,2,2,4] = reshape(%ks) {shape=[1, 2, 2, 4]}
  %k: f32[1,2,2,4] = permute(%kr) {dims=[0, 2, 1, 3]}
  %new: f32[1,2,8,4] = index_copy(%cache, %pos, %k) {dim=2}
)";
  SECTION("in place over the state: one thread per source element") {
    const ir::Graph graph =
        parse("graph(%x: f32[1,2,16], %pos: i64[2]) {\n  state %cache: f32[1,2,8,4] = zeros" +
              body + "  return %kv updates %new\n}");
    const std::string cu = generate_cu(graph);
    CHECK_FALSE(has(cu, "strided_copy<float>"));
    CHECK(has(cu, "= source[i / 8 * 4 + i / 4 % 2 * 16 + i % 4];"));
    CHECK(has(cu, "/* source */ (v_kv + 8),"));
  }
  SECTION("into a new buffer: the source row each output element takes") {
    const ir::Graph graph = parse("graph(%x: f32[1,2,16], %pos: i64[2], %cache: f32[1,2,8,4]) {" +
                                  body + "  return %new\n}");
    const std::string cu = generate_cu(graph);
    CHECK_FALSE(has(cu, "strided_copy<float>"));
    const std::string e = "((o * 2 + p) * 4 + c)";
    CHECK(has(cu, "value = source[" + e + " / 8 * 4 + " + e + " / 4 % 2 * 16 + " + e + " % 4];"));
  }
}

TEST_CASE("a layer's K and V cache writes go out in one launch", "[codegen]") {
  // k and v are slices of one projection [1, 2, 16]: k = kv[..., 0:8], v = kv[..., 8:16], each
  // viewed as [1, 2 heads, 2 tokens, 4] (the permute's strides [4, 16, 1] over [2, 2, 4]).
  const std::string views = R"(
  %kv: f32[1,2,16] = relu(%x)
  %ks: f32[1,2,8] = slice(%kv) {starts=[0, 0, 0], ends=[1, 2, 8], steps=[1, 1, 1]}
  %kr: f32[1,2,2,4] = reshape(%ks) {shape=[1, 2, 2, 4]}
  %k: f32[1,2,2,4] = permute(%kr) {dims=[0, 2, 1, 3]}
  %vs: f32[1,2,8] = slice(%kv) {starts=[0, 0, 8], ends=[1, 2, 16], steps=[1, 1, 1]}
  %vr: f32[1,2,2,4] = reshape(%vs) {shape=[1, 2, 2, 4]}
  %v: f32[1,2,2,4] = permute(%vr) {dims=[0, 2, 1, 3]}
)";
  const std::string states =
      "graph(%x: f32[1,2,16], %pos: i64[2], %pos2: i64[2]) {\n"
      "  state %kc: f32[1,2,8,4] = zeros\n  state %vc: f32[1,2,8,4] = zeros";
  SECTION("one launch group: the V write's elements follow the K write's") {
    const std::string cu = generate_cu(parse(states + views + R"(
  %nk: f32[1,2,8,4] = index_copy(%kc, %pos, %k) {dim=2}
  %nv: f32[1,2,8,4] = index_copy(%vc, %pos, %v) {dim=2}
  return %kv updates %nk, %nv
})"));
    CHECK(count_occurrences(cu, "MODEL_LAUNCH(") == 2);  // relu, then both writes
    CHECK(has(cu, "MODEL_LAUNCH(k8_launch_group, "));
    CHECK(has(cu, "MODEL_LAUNCH(k8_launch_group, 2, 256, "));  // a block for each write
    CHECK(has(cu,
              "if (b < 1u) k7_index_copy_f32_1x2x8x4(b - 0u, 1u, m0_in, m0_index, "
              "m0_source, m0_out);"));
    CHECK(has(cu,
              "else if (b < 2u) k8_index_copy_f32_1x2x8x4(b - 1u, 1u, m1_in, m1_index, "
              "m1_source, m1_out);"));
    CHECK(has(cu, "out[(o * 8 + r) * 4 + c] = source[i / 8 * 4 + i / 4 % 2 * 16 + i % 4];"));
    CHECK(has(cu, "/* m1_source */ (v_kv + 8),"));
  }
  SECTION("different indexes: one launch group too (each member reads its own index)") {
    const std::string cu = generate_cu(parse(states + views + R"(
  %nk: f32[1,2,8,4] = index_copy(%kc, %pos, %k) {dim=2}
  %nv: f32[1,2,8,4] = index_copy(%vc, %pos2, %v) {dim=2}
  return %kv updates %nk, %nv
})"));
    CHECK(count_occurrences(cu, "MODEL_LAUNCH(") == 2);  // relu, then both writes
    CHECK(has(cu, "MODEL_LAUNCH(k8_launch_group, "));
  }
}

TEST_CASE("a view's offsets past an int's range are computed in int64", "[codegen]") {
  using codegen::loop_offset_expression;
  using codegen::StridedView;
  // 16 output elements (an int loop index) from two rows 2^31 elements apart.
  const StridedView far{{2, 8}, {int64_t{1} << 31, 1}};
  CHECK(loop_offset_expression(far, 16) ==
        "static_cast<int64_t>(i) / 8 * 2147483648 + static_cast<int64_t>(i) % 8");
  const StridedView near{{2, 8}, {1024, 1}};
  CHECK(loop_offset_expression(near, 16) == "i / 8 * 1024 + i % 8");
}

}  // namespace inferno

namespace inferno {
namespace {

// Llama's k for one new token: sliced from the projection, rotated, written into the KV cache
// state at %pos by an index_copy that is the state's only reader.
std::string rotary_into_cache(const std::string& extra_body, const std::string& extra_out) {
  return R"ir(graph(%x: f32[1,1,64], %cos: f32[1,1,1,16], %sin: f32[1,1,1,16], %pos: i64[1]) {
  state %cache: f32[1,2,8,16] = zeros
  %kv: f32[1,1,64] = relu(%x)
  %ks: f32[1,1,32] = slice(%kv) {starts=[0, 0, 32], ends=[1, 1, 64], steps=[1, 1, 1]}
  %kr: f32[1,1,2,16] = reshape(%ks) {shape=[1, 1, 2, 16]}
  %k: f32[1,2,1,16] = permute(%kr) {dims=[0, 2, 1, 3]}
  %ke: f32[1,2,1,16] = rotary(%k, %cos, %sin) {rotary_dim=16}
  %new: f32[1,2,8,16] = index_copy(%cache, %pos, %ke) {dim=2}
)ir" + extra_body +
         "  return %kv" + extra_out + " updates %new\n}";
}

}  // namespace

TEST_CASE("rotary writes k's new rows straight into the KV cache state", "[codegen]") {
  const std::string cu = generate_cu(parse(rotary_into_cache("", "")));
  // The rotary kernel takes the index and the state: element e of k [1, 2, 1, 16] is (o, p, c) =
  // (e / 16, e / 16 % 1, e % 16) around dim 2 and lands in row pos[p] of head o.
  CHECK(has(cu, "const int64_t c = e % 16, p = (e / 16) % 1, o = e / 16;"));
  CHECK(has(cu, "if (r < 0 || r >= 8) continue;  // never out of bounds"));
  CHECK(has(cu, "const int64_t at = (o * 8 + r) * 16 + c;"));
  CHECK(has(cu, "out[at] = value;"));
  CHECK(has(cu, "/* index */ v_pos, /* out */ v_new);"));
  // The index_copy launches nothing.
  CHECK(has(cu, "// (its rows written in place by the rotary kernel of %ke)"));
  CHECK_FALSE(has(cu, "index_copy_f32"));
}

TEST_CASE("rotary keeps its own buffer when the cache write cannot take its rows", "[codegen]") {
  // Another reader of the rotated k, a graph output of it, an index computed after the rotary, a
  // state also read elsewhere (the index_copy is not in place): the rotary writes its own output
  // and the index_copy copies it.
  const std::string other_reader = generate_cu(
      parse(rotary_into_cache("  %twice: f32[1,2,1,16] = add(%ke, %ke)\n", ", %twice")));
  const std::string output = generate_cu(parse(rotary_into_cache("", ", %ke")));
  const std::string old_read = generate_cu(
      parse(rotary_into_cache("  %old: f32[1,2,8,16] = add(%cache, %new)\n", ", %old")));
  const std::string late_index = generate_cu(parse(
      R"ir(graph(%x: f32[1,1,64], %cos: f32[1,1,1,16], %sin: f32[1,1,1,16], %at: i64[1]) {
  state %cache: f32[1,2,8,16] = zeros
  %kv: f32[1,1,64] = relu(%x)
  %ks: f32[1,1,32] = slice(%kv) {starts=[0, 0, 32], ends=[1, 1, 64], steps=[1, 1, 1]}
  %kr: f32[1,1,2,16] = reshape(%ks) {shape=[1, 1, 2, 16]}
  %k: f32[1,2,1,16] = permute(%kr) {dims=[0, 2, 1, 3]}
  %ke: f32[1,2,1,16] = rotary(%k, %cos, %sin) {rotary_dim=16}
  %pos: i64[1] = abs(%at)
  %new: f32[1,2,8,16] = index_copy(%cache, %pos, %ke) {dim=2}
  return %kv updates %new
})ir"));
  for (const std::string* cu : {&other_reader, &output, &old_read, &late_index}) {
    CHECK(has(*cu, "out[i] = value;"));
    CHECK(has(*cu, "index_copy_f32"));
    CHECK_FALSE(has(*cu, "written in place by the rotary kernel"));
  }
}

}  // namespace inferno
