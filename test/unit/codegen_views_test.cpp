// Layout nodes as views (codegen/views.h): attention reads q, k and v through slice / reshape /
// permute / expand chains from the buffer behind them and writes its output in the layout of the
// permute reading it, so those nodes launch no copy kernel and get no buffer; the source buffer
// lives (and stays out of in-place reuse) until the attention runs. What cannot be a view, or is
// also read by another consumer, stays a copy.
#include <string>

#include "codegen/codegen.h"
#include "codegen/memory_plan.h"
#include "codegen/views.h"
#include "codegen_test_helpers.h"
#include "ir/parser.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using test::parse;

using test::generate_cu;
using test::has;
using test::plan_text;

}  // namespace

TEST_CASE("reshape_strides splits and merges dims only where the strides allow", "[codegen]") {
  using codegen::reshape_strides;
  // Contiguous: any reshape.
  CHECK(reshape_strides({2, 3, 4}, {12, 4, 1}, {6, 4}) == std::vector<int64_t>{4, 1});
  CHECK(reshape_strides({2, 12}, {12, 1}, {2, 3, 4}) == std::vector<int64_t>{12, 4, 1});
  // A row of a [*, 48] buffer (stride 48) split into heads of 8.
  CHECK(reshape_strides({1, 8, 16}, {384, 48, 1}, {1, 8, 2, 8}) ==
        std::vector<int64_t>{384, 48, 8, 1});
  // A permuted [B, S, H, E] -> [B, H, S, E] cannot merge S and H back into one dim...
  CHECK_FALSE(reshape_strides({1, 2, 8, 8}, {128, 8, 16, 1}, {1, 16, 8}).has_value());
  // ...but merging the contiguous last two dims of a transposed view works.
  CHECK(reshape_strides({4, 3, 8}, {8, 32, 1}, {4, 24}) == std::nullopt);
  CHECK(reshape_strides({3, 4, 8}, {32, 8, 1}, {3, 32}) == std::vector<int64_t>{32, 1});
  // Size-1 dims come and go anywhere; a broadcast (stride 0) dim splits.
  CHECK(reshape_strides({4, 1, 8}, {8, 99, 1}, {1, 4, 8}).has_value());
  CHECK(reshape_strides({6, 8}, {0, 1}, {2, 3, 8}) == std::vector<int64_t>{0, 0, 1});
  CHECK_FALSE(reshape_strides({0, 8}, {8, 1}, {8, 0}).has_value());
}

TEST_CASE("attention reads a fused q/k/v buffer in place and writes the permuted output",
          "[codegen]") {
  const ir::Graph graph = parse(test::gpt2_attention_layer());
  const codegen::ViewPlan views = codegen::plan_views(graph);
  using codegen::LayoutLowering;
  for (int32_t n = 1; n <= 9; ++n)
    CHECK(views.lowering[static_cast<size_t>(n)] == LayoutLowering::kVirtual);
  CHECK(views.lowering[11] == LayoutLowering::kWrittenByProducer);
  CHECK(views.lowering[12] == LayoutLowering::kAlias);

  const std::string cu = generate_cu(graph);
  CHECK_FALSE(has(cu, "strided_copy"));
  CHECK(has(cu, "/* q */ v_qkv, /* k */ (v_qkv + 16), /* v */ (v_qkv + 32), /* out */ v_ap,"));
  // q[b, h, s, e] is qkv[b, s, h * 8 + e]; out[b, h, s, e] goes to ap[b, s, h, e].
  CHECK(has(cu, "/* q_layout */ inferno::kernels::AttentionLayout{384, 8, 48}"));
  CHECK(has(cu, "/* k_layout */ inferno::kernels::AttentionLayout{384, 8, 48}"));
  CHECK(has(cu, "/* v_layout */ inferno::kernels::AttentionLayout{384, 8, 48}"));
  CHECK(has(cu, "/* out_layout */ inferno::kernels::AttentionLayout{128, 8, 16}"));
  CHECK(has(cu, "// (a view of %qr that its readers read in place: nothing to copy)"));
  CHECK(has(cu, "// (written in this layout by the producer of %a: nothing to copy)"));

  // Two buffers: qkv, live until the attention (node 10), and a (= ap = y), until neg.
  const std::string plan = plan_text(graph);
  CHECK(has(plan, "arena: 2 buffers"));
  CHECK(has(plan, "nodes 0..10, %qkv\n"));
  CHECK(has(plan, "nodes 10..13, %a\n"));
}

TEST_CASE("a buffer attention reads through views is not overwritten before it runs", "[codegen]") {
  // Without the views' reads, exp (node 10) would be qkv's last reader and write over it.
  const ir::Graph graph = parse(test::gpt2_attention_layer(
      "  %w: f32[1,8,48] = exp(%qkv)\n", "  %s: f32[1,8,48] = neg(%w)\n", ", %s"));
  const std::string plan = plan_text(graph);
  CHECK(has(plan, "nodes 0..11, %qkv\n"));
  CHECK_FALSE(has(plan, "(in place of %qkv)"));
  CHECK(has(plan, "nodes 10..15, %w\n"));
}

TEST_CASE("a layout node another consumer reads stays a copy, the views stop there", "[codegen]") {
  SECTION("q is also read by sum: its permute is copied, its slice and reshape too") {
    const ir::Graph graph = parse(test::gpt2_attention_layer(
        "", "  %nq: f32[] = sum(%q) {dims=[], keepdim=false}\n", ", %nq"));
    const std::string cu = generate_cu(graph);
    CHECK(has(cu, "/* q */ v_q, /* k */ (v_qkv + 16), /* v */ (v_qkv + 32),"));
    CHECK(has(cu, "/* q_layout */ inferno::kernels::AttentionLayout{128, 64, 8}"));
    CHECK(has(cu, "strided_copy<float>(/* in */ v_qkv,"));  // qs from the buffer's start
    CHECK(has(cu, "// (a view: the same bytes as %qs)"));
    CHECK(has(cu, "strided_copy<float>(/* in */ v_qr,"));  // the permute
  }
  SECTION("the slice of q is also an output: attention reads q from it") {
    const ir::Graph graph = parse(test::gpt2_attention_layer("", "", ", %qs"));
    const std::string cu = generate_cu(graph);
    CHECK(has(cu, "/* q */ v_qr, /* k */ (v_qkv + 16),"));  // qr: a reshape of qs, its bytes
    CHECK(has(cu, "/* q_layout */ inferno::kernels::AttentionLayout{128, 8, 16}"));
    CHECK(has(cu, "strided_copy<float>(/* in */ v_qkv,"));  // qs, into the caller's output
    CHECK_FALSE(has(cu, "strided_copy<float>(/* in */ v_qr,"));
  }
  SECTION("the attention output has a second reader: written contiguously, the permute copies") {
    // (neg reads y, which no strides can give: merging a's h and e dims after the permute.)
    const ir::Graph graph =
        parse(test::gpt2_attention_layer("", "  %na: f32[1,2,8,8] = neg(%a)\n", ", %na"));
    const std::string cu = generate_cu(graph);
    CHECK(has(cu, "/* out */ v_a,"));
    CHECK(has(cu, "/* out_layout */ inferno::kernels::AttentionLayout{128, 64, 8}"));
    CHECK(has(cu, "strided_copy<float>(/* in */ v_a,"));
  }
  SECTION("a permute that moves the head dim's elements apart (k as [B, H, D, S]) is copied") {
    const ir::Graph graph = parse(R"(graph(%x: f32[1,2,8,8]) {
  %kt: f32[1,2,8,8] = permute(%x) {dims=[0, 1, 3, 2]}
  %a: f32[1,2,8,8] = attention(%x, %kt, %x) {causal=false, kv_groups=1, mask="none", scale=0.25}
  return %a
})");
    const std::string cu = generate_cu(graph);
    CHECK(has(cu, "strided_copy<float>(/* in */ v_x,"));
    CHECK(has(cu, "/* q */ v_x, /* k */ v_kt, /* v */ v_x,"));
  }
}

TEST_CASE("an expanded kv head (stride 0) and a graph input are read as views", "[codegen]") {
  // One kv head broadcast over 4 query heads by expand: head stride 0, no copy.
  const ir::Graph graph = parse(R"(graph(%q: f32[2,4,8,16], %kv: f32[2,8,32]) {
  %ks: f32[2,8,16] = slice(%kv) {starts=[0, 0, 0], ends=[2, 8, 16], steps=[1, 1, 1]}
  %vs: f32[2,8,16] = slice(%kv) {starts=[0, 0, 16], ends=[2, 8, 32], steps=[1, 1, 1]}
  %kr: f32[2,1,8,16] = reshape(%ks) {shape=[2, 1, 8, 16]}
  %vr: f32[2,1,8,16] = reshape(%vs) {shape=[2, 1, 8, 16]}
  %k: f32[2,4,8,16] = expand(%kr) {shape=[2, 4, 8, 16]}
  %v: f32[2,4,8,16] = expand(%vr) {shape=[2, 4, 8, 16]}
  %a: f32[2,4,8,16] = attention(%q, %k, %v) {causal=false, kv_groups=1, mask="none", scale=0.25}
  return %a
})");
  const std::string cu = generate_cu(graph);
  CHECK_FALSE(has(cu, "strided_copy"));
  CHECK(has(cu, "/* q */ v_q, /* k */ v_kv, /* v */ (v_kv + 16), /* out */ v_a,"));
  CHECK(has(cu, "/* k_layout */ inferno::kernels::AttentionLayout{256, 0, 32}"));
  CHECK(has(cu, "/* out_layout */ inferno::kernels::AttentionLayout{512, 128, 16}"));
  CHECK(has(plan_text(graph), "arena: 0 buffers"));
}

TEST_CASE("attention writes a graph output's bytes in the permuted layout", "[codegen]") {
  // The merged output is returned: attention writes the caller's buffer directly.
  const ir::Graph graph = parse(R"(graph(%q: f32[1,2,8,8]) {
  %a: f32[1,2,8,8] = attention(%q, %q, %q) {causal=false, kv_groups=1, mask="none", scale=0.25}
  %ap: f32[1,8,2,8] = permute(%a) {dims=[0, 2, 1, 3]}
  %y: f32[8,16] = reshape(%ap) {shape=[8, 16]}
  return %y
})");
  const std::string cu = generate_cu(graph);
  CHECK_FALSE(has(cu, "strided_copy"));
  CHECK(has(cu, "/* out */ v_ap,"));
  CHECK(has(cu, "/* out_layout */ inferno::kernels::AttentionLayout{128, 8, 16}"));
  const std::string plan = plan_text(graph);
  CHECK(has(plan, "arena: 0 buffers"));
  CHECK(has(plan, "output 0 %y: written by node 0 (as %a)"));
}

TEST_CASE("the memory plan makes a node its options call an alias share its input's group",
          "[codegen]") {
  const ir::Graph graph = parse(R"(graph(%x: f32[8,8]) {
  %a: f32[8,8] = relu(%x)
  %t: f32[8,8] = permute(%a) {dims=[1, 0]}
  %b: f32[8,8] = neg(%a)
  %c: f32[8,8] = exp(%b)
  %d: f32[8,8] = add(%c, %t)
  return %d
})");
  codegen::MemoryPlanOptions options;
  options.aliases_input = {false, true, false, false, false};
  const codegen::MemoryPlan plan = codegen::plan_memory(graph, options);
  const codegen::Storage& t = plan.of(graph.find_value("t"));
  CHECK(t.root == graph.find_value("a"));
  CHECK(t.index == plan.of(graph.find_value("a")).index);
  // a's bytes are read through t by node 4: b cannot take them over at node 2 (neg's input dies
  // there only when t's read is forgotten), and they live until node 4.
  const codegen::ArenaBuffer& a = plan.buffers.at(static_cast<size_t>(t.index));
  CHECK(a.last_node == 4);
  CHECK(plan.buffers.at(static_cast<size_t>(plan.of(graph.find_value("b")).index)).in_place_of ==
        ir::kNoValue);
  CHECK(plan.buffers.size() == 3);  // a, b, c (d is the output)
}

}  // namespace inferno
