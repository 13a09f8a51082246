// The memory plan on hand-written graphs: first-fit reuse of freed ranges, 256-byte alignment,
// reshape aliasing, graph outputs written in place or copied, scratch, peak vs unshared bytes,
// outputs written over their inputs (in place), and describe_memory_plan's text.
#include <string>

#include "codegen/codegen.h"
#include "codegen/memory_plan.h"
#include "ir/parser.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using test::parse;

using codegen::StorageKind;

const codegen::Storage& storage(const ir::Graph& graph, const codegen::MemoryPlan& plan,
                                const std::string& name) {
  const ir::ValueId v = graph.find_value(name);
  REQUIRE(v != ir::kNoValue);
  return plan.of(v);
}

// First-fit reuse alone: the tests of placement turn writing over inputs off.
codegen::MemoryPlanOptions no_in_place() {
  codegen::MemoryPlanOptions options;
  options.in_place = false;
  return options;
}

int64_t offset(const ir::Graph& graph, const codegen::MemoryPlan& plan, const std::string& name) {
  const codegen::Storage& s = storage(graph, plan, name);
  REQUIRE(s.kind == StorageKind::kArena);
  return plan.buffers.at(static_cast<size_t>(s.index)).offset;
}

}  // namespace

TEST_CASE("a chain reuses the ranges its dead values free", "[codegen]") {
  // f32[8,8] is 256 bytes: a and b are live together, c reuses a's range, d is the output.
  const ir::Graph graph = parse(R"(graph(%x: f32[8,8]) {
  %a: f32[8,8] = relu(%x)
  %b: f32[8,8] = neg(%a)
  %c: f32[8,8] = abs(%b)
  %d: f32[8,8] = exp(%c)
  return %d
})");
  const codegen::MemoryPlan plan = codegen::plan_memory(graph, no_in_place());
  CHECK(offset(graph, plan, "a") == 0);
  CHECK(offset(graph, plan, "b") == 256);
  CHECK(offset(graph, plan, "c") == 0);
  CHECK(storage(graph, plan, "d").kind == StorageKind::kOutput);
  CHECK(storage(graph, plan, "x").kind == StorageKind::kInput);
  CHECK(plan.planned_bytes == 512);
  CHECK(plan.unshared_bytes == 768);
  CHECK(plan.arena_bytes == 512);
  CHECK(codegen::memory_plan_to_string(graph, plan) ==
        "arena: 3 buffers, peak 512 bytes (unshared 768), workspace 0 at 512, total 512\n"
        "buffer 0: [0, 256) 256 bytes, nodes 0..1, %a\n"
        "buffer 1: [256, 512) 256 bytes, nodes 1..2, %b\n"
        "buffer 2: [0, 256) 256 bytes, nodes 2..3, %c\n"
        "output 0 %d: written by node 3\n");
}

TEST_CASE("offsets are 256-byte aligned and a value outlives its last reader's node", "[codegen]") {
  // 12-byte values; a is read by the last node, so nothing may take its range before then.
  const ir::Graph graph = parse(R"(graph(%x: f32[3]) {
  %a: f32[3] = relu(%x)
  %b: f32[3] = neg(%x)
  %c: f32[3] = add(%b, %b)
  %d: f32[3] = add(%a, %c)
  return %d
})");
  const codegen::MemoryPlan plan = codegen::plan_memory(graph, no_in_place());
  CHECK(offset(graph, plan, "a") == 0);
  CHECK(offset(graph, plan, "b") == 256);
  CHECK(offset(graph, plan, "c") == 512);  // b is still read by c's own node
  for (const codegen::ArenaBuffer& b : plan.buffers) CHECK(b.offset % 256 == 0);
  CHECK(plan.planned_bytes == 768);
}

TEST_CASE("a gap between live buffers is reused when the value fits", "[codegen]") {
  // a (1 KiB) and b (256) live; a dies; c (512) fits into a's old range below b.
  const ir::Graph graph = parse(R"(graph(%x: f32[256], %y: f32[64]) {
  %a: f32[256] = relu(%x)
  %b: f32[64] = neg(%y)
  %s: f32[] = sum(%a) {dims=[], keepdim=false}
  %c: f32[128] = expand(%s) {shape=[128]}
  %e: f32[128] = exp(%c)
  %f: f32[64] = add(%b, %b)
  return %e, %f
})");
  const codegen::MemoryPlan plan = codegen::plan_memory(graph);
  CHECK(offset(graph, plan, "a") == 0);
  CHECK(offset(graph, plan, "b") == 1024);
  CHECK(offset(graph, plan, "s") == 1280);
  CHECK(offset(graph, plan, "c") == 0);
  CHECK(plan.planned_bytes == 1536);
}

TEST_CASE("reshape aliases its input's bytes and extends their life", "[codegen]") {
  const ir::Graph graph = parse(R"(graph(%x: f32[4,8], %y: f32[32]) {
  %a: f32[4,8] = relu(%x)
  %r: f32[32] = reshape(%a) {shape=[32]}
  %b: f32[32] = neg(%y)
  %c: f32[32] = exp(%b)
  %d: f32[32] = add(%r, %c)
  return %d
})");
  const codegen::MemoryPlan plan = codegen::plan_memory(graph, no_in_place());
  const codegen::Storage r =
      storage(graph, plan, "r");  // a copy: g++ 13 warns about the temporary name
  CHECK(r.kind == StorageKind::kArena);
  CHECK(r.root == graph.find_value("a"));
  CHECK(r.index == storage(graph, plan, "a").index);
  // a lives (as r) until d: b and c cannot take its range.
  CHECK(offset(graph, plan, "a") == 0);
  CHECK(offset(graph, plan, "b") == 256);
  CHECK(offset(graph, plan, "c") == 512);
  CHECK(plan.buffers.size() == 3);  // the reshape has no buffer of its own
}

TEST_CASE("graph outputs: written in place, or copied when no node can write them", "[codegen]") {
  const ir::Graph graph = parse(R"(graph(%x: f32[4], %y: f32[2,2]) {
  %k: f32[4] = constant [1, 2, 3, 4]
  %a: f32[4] = relu(%x)
  %ra: f32[2,2] = reshape(%a) {shape=[2, 2]}
  %n: f32[2,2] = neg(%y)
  %rn: f32[4] = reshape(%n) {shape=[4]}
  %m: f32[2,2] = mul(%n, %n)
  %rx: f32[2,2] = reshape(%x) {shape=[2, 2]}
  %rk: f32[2,2] = reshape(%k) {shape=[2, 2]}
  return %ra, %rn, %x, %k, %rx, %rk, %m, %m, %n
})");
  const codegen::MemoryPlan plan = codegen::plan_memory(graph);
  // a's only reader is its reshape, an output: relu writes output 0 directly.
  CHECK(storage(graph, plan, "a").kind == StorageKind::kOutput);
  CHECK(storage(graph, plan, "a").index == 0);
  CHECK(storage(graph, plan, "ra").kind == StorageKind::kOutput);
  // n is also read by mul: it is written into output 1 (as %rn) and read from there.
  CHECK(storage(graph, plan, "n").kind == StorageKind::kOutput);
  CHECK(storage(graph, plan, "n").index == 1);
  // Inputs, constants, their reshapes, a repeated output and a second output of n's bytes: copies.
  std::vector<std::pair<int32_t, std::string>> copies;
  for (const codegen::OutputCopy& c : plan.output_copies)
    copies.emplace_back(c.output, graph.name(c.value));
  CHECK(copies == std::vector<std::pair<int32_t, std::string>>{
                      {2, "x"}, {3, "k"}, {4, "rx"}, {5, "rk"}, {7, "m"}, {8, "n"}});
  CHECK(storage(graph, plan, "rx").kind == StorageKind::kInput);
  CHECK(storage(graph, plan, "rk").kind == StorageKind::kConstant);
  CHECK(storage(graph, plan, "m").kind == StorageKind::kOutput);
  CHECK(storage(graph, plan, "m").index == 6);
  CHECK(plan.buffers.empty());
  const std::string text = codegen::memory_plan_to_string(graph, plan);
  CHECK(text.find("output 1 %rn: written by node 2 (as %n)\n") != std::string::npos);
  CHECK(text.find("output 4 %rx: copy of input 0\n") != std::string::npos);
  CHECK(text.find("output 5 %rk: copy of constant %k\n") != std::string::npos);
  CHECK(text.find("output 7 %m: copy of output 6\n") != std::string::npos);
}

TEST_CASE("an intermediate copied into an output lives until the copies", "[codegen]") {
  const ir::Graph graph = parse(R"(graph(%x: f32[4]) {
  %a: f32[4] = relu(%x)
  %b: f32[4] = neg(%a)
  %c: f32[4] = exp(%b)
  return %a, %a, %c
})");
  const codegen::MemoryPlan plan = codegen::plan_memory(graph);
  CHECK(storage(graph, plan, "a").kind == StorageKind::kOutput);
  REQUIRE(storage(graph, plan, "b").kind == StorageKind::kArena);
  REQUIRE(plan.output_copies.size() == 1);
  CHECK(plan.output_copies[0].output == 1);
}

TEST_CASE("scratch lives during its node only, apart from the node's inputs and outputs",
          "[codegen]") {
  const ir::Graph graph = parse(R"(graph(%x: f32[64]) {
  %a: f32[64] = relu(%x)
  %b: f32[64] = neg(%a)
  %c: f32[64] = exp(%b)
  return %c
})");
  codegen::MemoryPlanOptions options = no_in_place();
  options.scratch_bytes = {0, 100, 0};
  options.workspace_bytes = 1000;
  const codegen::MemoryPlan plan = codegen::plan_memory(graph, options);
  REQUIRE(plan.scratch_buffer[1] >= 0);
  const codegen::ArenaBuffer& scratch =
      plan.buffers.at(static_cast<size_t>(plan.scratch_buffer[1]));
  CHECK(scratch.first_node == 1);
  CHECK(scratch.last_node == 1);
  CHECK(offset(graph, plan, "a") == 0);
  CHECK(offset(graph, plan, "b") == 256);
  CHECK(scratch.offset == 512);
  CHECK(plan.scratch_buffer[0] == -1);
  CHECK(plan.planned_bytes == 768);
  CHECK(plan.workspace_offset == 768);
  CHECK(plan.arena_bytes == 768 + 1024);  // the workspace is aligned too
}

TEST_CASE("an elementwise chain writes each value over the one it consumes", "[codegen]") {
  const ir::Graph graph = parse(R"(graph(%x: f32[8,8]) {
  %a: f32[8,8] = relu(%x)
  %b: f32[8,8] = neg(%a)
  %c: f32[8,8] = abs(%b)
  %d: f32[8,8] = exp(%c)
  return %d
})");
  const codegen::MemoryPlan plan = codegen::plan_memory(graph);
  CHECK(codegen::memory_plan_to_string(graph, plan) ==
        "arena: 3 buffers, peak 256 bytes (unshared 768), workspace 0 at 256, total 256\n"
        "buffer 0: [0, 256) 256 bytes, nodes 0..1, %a\n"
        "buffer 1: [0, 256) 256 bytes, nodes 1..2, %b (in place of %a)\n"
        "buffer 2: [0, 256) 256 bytes, nodes 2..3, %c (in place of %b)\n"
        "output 0 %d: written by node 3\n");
}

TEST_CASE("in place only over a dying, unbroadcast arena input of the same size", "[codegen]") {
  const ir::Graph graph = parse(R"(graph(%x: f32[8,8], %row: f32[8]) {
  %a: f32[8] = neg(%row)
  %b: f32[8,8] = add(%x, %a)
  %c: f32[8,8] = exp(%b)
  %h: f16[8,8] = cast(%c) {dtype=f16}
  %e: f32[8,8] = mul(%b, %c)
  %f: f32[8,8] = relu(%e)
  %g: f16[8,8] = neg(%h)
  %s: f32[] = sum(%f) {dims=[], keepdim=false}
  %t: f16[] = sum(%g) {dims=[], keepdim=false}
  return %s, %t
})");
  const codegen::MemoryPlan plan = codegen::plan_memory(graph);
  auto in_place_of = [&](const std::string& name) -> std::string {
    const codegen::Storage& s = storage(graph, plan, name);
    REQUIRE(s.kind == StorageKind::kArena);
    const ir::ValueId over = plan.buffers.at(static_cast<size_t>(s.index)).in_place_of;
    return over == ir::kNoValue ? "" : graph.name(over);
  };
  CHECK(in_place_of("b") == "");   // over neither a graph input (%x) nor a broadcast one (%a)
  CHECK(in_place_of("c") == "");   // %b is read again later
  CHECK(in_place_of("h") == "");   // f16 is not the size of %c's f32 (which also lives on)
  CHECK(in_place_of("e") == "b");  // the first dying input; %c dies here too
  CHECK(in_place_of("f") == "e");
  CHECK(in_place_of("g") == "h");
  CHECK(offset(graph, plan, "e") == offset(graph, plan, "b"));
  CHECK(offset(graph, plan, "c") != offset(graph, plan, "b"));
  // Turned off, every value has its own range while it lives.
  const codegen::MemoryPlan apart = codegen::plan_memory(graph, no_in_place());
  for (const codegen::ArenaBuffer& b : apart.buffers) CHECK(b.in_place_of == ir::kNoValue);
  CHECK(apart.planned_bytes > plan.planned_bytes);
}

TEST_CASE("no output over an input the node also reads another way, a constant or a kept value",
          "[codegen]") {
  const ir::Graph graph = parse(R"(graph(%x: f32[1,4], %y: f32[4]) {
  %k: f32[4] = constant [1, 2, 3, 4]
  %a: f32[1,4] = relu(%x)
  %r: f32[4] = reshape(%a) {shape=[4]}
  %b: f32[1,4] = add(%a, %r)
  %c: f32[4] = mul(%k, %y)
  %d: f32[4] = neg(%c)
  %e: f32[1,4] = sub(%b, %d)
  return %e, %d
})");
  const codegen::MemoryPlan plan = codegen::plan_memory(graph);
  // %a's bytes are also read as %r, which broadcasts: writing %b over them would race.
  CHECK(plan.buffers.at(static_cast<size_t>(storage(graph, plan, "b").index)).in_place_of ==
        ir::kNoValue);
  // The constant %k is no arena buffer; %d is a graph output, written where the caller wants it.
  CHECK(plan.buffers.at(static_cast<size_t>(storage(graph, plan, "c").index)).in_place_of ==
        ir::kNoValue);
  CHECK(storage(graph, plan, "d").kind == StorageKind::kOutput);
}

TEST_CASE("a GEMM writes its output over a dying full-shape addend, cuBLASLt's C", "[codegen]") {
  // The 4-row GEMMs here take the GEMV kernel (emit_gemv.h), which reads the addend at each
  // position before writing it, and needs no cuBLASLt workspace.
  codegen::CodegenOptions options;
  options.source_model_hash = "0";
  const std::string gemm = "{activation=\"none\", alpha=1.0, beta=1.0, trans_b=false}";
  auto plan_text = [&](const std::string& text) {
    auto described = codegen::describe_memory_plan(parse(text), options);
    INFO((described ? "" : described.status().to_string()));
    REQUIRE(described.has_value());
    return *described;
  };
  const std::string over = plan_text(R"(graph(%x: f32[4,8], %w: f32[8,8], %r: f32[4,8]) {
  %h: f32[4,8] = relu(%r)
  %y: f32[4,8] = gemm(%x, %w, %h) )" +
                                     gemm + R"(
  %s: f32[] = sum(%y) {dims=[], keepdim=false}
  return %s
})");
  CHECK(over ==
        "memory plan: 3 nodes\n"
        "node 0: %h = relu\n"
        "node 1: %y = gemm\n"
        "node 2: %s = sum\n"
        "arena: 2 buffers, peak 256 bytes (unshared 512), workspace 0 at 256, total 256\n"
        "buffer 0: [0, 128) 128 bytes, nodes 0..1, %h\n"
        "buffer 1: [0, 128) 128 bytes, nodes 1..2, %y (in place of %h)\n"
        "output 0 %s: written by node 2\n");
  // %h is also the left operand: the GEMM would overwrite what it still reads.
  const std::string read_twice = plan_text(R"(graph(%w: f32[8,8], %r: f32[8,8]) {
  %h: f32[8,8] = relu(%r)
  %y: f32[8,8] = gemm(%h, %w, %h) )" + gemm +
                                           R"(
  %s: f32[] = sum(%y) {dims=[], keepdim=false}
  return %s
})");
  CHECK(read_twice.find("in place") == std::string::npos);
  // A broadcast addend is copied into the output first: the output has its own bytes.
  const std::string broadcast = plan_text(R"(graph(%x: f32[4,8], %w: f32[8,8], %r: f32[4,1]) {
  %h: f32[4,1] = relu(%r)
  %y: f32[4,8] = gemm(%x, %w, %h) )" + gemm +
                                          R"(
  %s: f32[] = sum(%y) {dims=[], keepdim=false}
  return %s
})");
  CHECK(broadcast.find("in place") == std::string::npos);
}

namespace {

TEST_CASE("state: an update written over its state in place, the others copied at the end") {
  // %cache is read by its index_copy alone: the new rows go straight into the state's buffer.
  // %count is read twice: its update is computed in the arena and copied into the state last.
  const ir::Graph graph = parse(R"(graph(%ids: i64[1], %row: f32[1,64]) {
  state %cache: f32[4,64] = zeros
  state %count: f32[64] = zeros
  %new: f32[4,64] = index_copy(%cache, %ids, %row) {dim=0}
  %next: f32[64] = add(%count, %count)
  %sum: f32[4,64] = add(%new, %next)
  return %sum updates %new, %next
})");
  const auto text = codegen::describe_memory_plan(graph, {});
  INFO((text ? *text : text.status().to_string()));
  REQUIRE(text.has_value());
  CHECK(text->find("output 1 %new: state 0, written in place by node 0") != std::string::npos);
  CHECK(text->find("output 2 %next: copy of buffer") != std::string::npos);
}

TEST_CASE("state: a state that other nodes read is not written in place") {
  const ir::Graph graph = parse(R"(graph(%ids: i64[1], %row: f32[1,64]) {
  state %cache: f32[4,64] = zeros
  %new: f32[4,64] = index_copy(%cache, %ids, %row) {dim=0}
  %old: f32[4,64] = add(%cache, %new)
  return %old updates %new
})");
  const auto text = codegen::describe_memory_plan(graph, {});
  REQUIRE(text.has_value());
  CHECK(text->find("output 1 %new: copy of buffer") != std::string::npos);
}

}  // namespace
}  // namespace inferno
