// Elementwise ops, fused_elementwise, cat and index_copy reading their inputs through views
// (codegen/views.h), on a GPU against the reference interpreter: Llama's rotary embedding in f16
// (q sliced from a fused projection, split into heads and permuted; its halves sliced, one
// negated, concatenated, then one fused multiply-add, with cos and sin broadcast over the heads);
// silu(gate) * up from the two halves of a fused gate/up output; new k rows written by index_copy
// from a permuted slice; a strided slice (step 2) times a broadcast row; and a transpose read by
// neg whose output may not be written over the transposed buffer (4096 elements, many blocks: an
// in-place write would overwrite elements other threads still read). Part of test_gpu_codegen
// (label gpu). Without a device it still checks the generated code, then prints "SKIPPED: no
// CUDA device".
#include <cstdio>
#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "compiled_model.h"
#include "ir/parser.h"
#include "reference/interpreter.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno {
namespace {

const char* kGraph =
    R"ir(graph(%x: f16[1,4,64], %cos: f16[1,1,4,16], %sin: f16[1,1,4,16], %gu: f32[3,40], %kvx: f32[1,2,16], %cache: f32[1,2,8,4], %m: f32[64,64], %row: f32[32]) {
  %pos: i64[2] = constant [5, 2]
  %qkv: f16[1,4,64] = relu(%x)
  %qs: f16[1,4,32] = slice(%qkv) {starts=[0, 0, 0], ends=[1, 4, 32], steps=[1, 1, 1]}
  %qr: f16[1,4,2,16] = reshape(%qs) {shape=[1, 4, 2, 16]}
  %q: f16[1,2,4,16] = permute(%qr) {dims=[0, 2, 1, 3]}
  %x1: f16[1,2,4,8] = slice(%q) {starts=[0, 0, 0, 0], ends=[1, 2, 4, 8], steps=[1, 1, 1, 1]}
  %x2: f16[1,2,4,8] = slice(%q) {starts=[0, 0, 0, 8], ends=[1, 2, 4, 16], steps=[1, 1, 1, 1]}
  %n: f16[1,2,4,8] = neg(%x2)
  %rot: f16[1,2,4,16] = cat(%n, %x1) {dim=3}
  %y: f16[1,2,4,16] = fused_elementwise(%q, %cos, %rot, %sin) {expr="mul($0, $1); mul($2, $3); add(#0, #1)"}
  %g: f32[3,20] = slice(%gu) {starts=[0, 0], ends=[3, 20], steps=[1, 1]}
  %u: f32[3,20] = slice(%gu) {starts=[0, 20], ends=[3, 40], steps=[1, 1]}
  %h: f32[3,20] = fused_elementwise(%g, %u) {expr="silu($0); mul(#0, $1)"}
  %kv: f32[1,2,16] = relu(%kvx)
  %ks: f32[1,2,8] = slice(%kv) {starts=[0, 0, 8], ends=[1, 2, 16], steps=[1, 1, 1]}
  %kr: f32[1,2,2,4] = reshape(%ks) {shape=[1, 2, 2, 4]}
  %k: f32[1,2,2,4] = permute(%kr) {dims=[0, 2, 1, 3]}
  %new: f32[1,2,8,4] = index_copy(%cache, %pos, %k) {dim=2}
  %a: f32[64,64] = relu(%m)
  %t: f32[64,64] = permute(%a) {dims=[1, 0]}
  %b: f32[64,64] = neg(%t)
  %c: f32[64,64] = exp(%b)
  %ev: f32[64,32] = slice(%m) {starts=[0, 1], ends=[64, 64], steps=[1, 2]}
  %w: f32[64,32] = mul(%ev, %row)
  return %y, %h, %new, %c, %w
})ir";

int occurrences(const std::string& text, const std::string& needle) {
  int count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++count;
  return count;
}

}  // namespace

TEST_CASE("gpu: elementwise ops, cat and index_copy read slices and permutes in place",
          "[gpu][codegen]") {
  auto parsed = ir::parse_graph(kGraph);
  INFO((parsed ? "" : parsed.status().to_string()));
  REQUIRE(parsed.has_value());
  const ir::Graph& graph = *parsed;
  std::vector<ir::Tensor> inputs;
  for (size_t i = 0; i < graph.inputs().size(); ++i)
    inputs.push_back(test::random_tensor(graph.type(graph.inputs()[i]), 23 + i));
  auto expected = reference::evaluate(graph, inputs);
  REQUIRE(expected.has_value());
  auto check_source = [](const std::string& cu) {
    // Every slice, reshape and permute is read in place: no copy kernel at all.
    CHECK(occurrences(cu, "kernels::strided_copy<") == 0);
    CHECK(occurrences(cu, "that its readers read in place: nothing to copy") == 12);
  };
  if (!test::has_cuda_device()) {  // the code still checked, then a skip
    codegen::CodegenOptions options;
    options.source_model_hash = "0";
    options.cuda_version = "13.0";
    auto generated = codegen::generate(graph, options);
    INFO((generated ? "" : generated.status().to_string()));
    REQUIRE(generated.has_value());
    check_source(generated->cuda_source);
    std::printf("SKIPPED: no CUDA device\n");
    return;
  }

  test::CompiledModel model(graph);
  check_source(model.cuda_source());
  const std::vector<ir::Tensor> got = model.run(inputs);
  REQUIRE(got.size() == expected->size());
  const char* names[] = {"y (rotary, f16)", "h (silu * mul)", "new (index_copy)",
                         "c (exp(neg(transpose)))", "w (strided slice * row)"};
  for (size_t i = 0; i < got.size(); ++i) {
    const test::Tolerance tolerance = test::default_tolerance(graph.type(graph.outputs()[i]).dtype);
    const std::string mismatch =
        test::compare_close(got[i], (*expected)[i], tolerance.rtol, tolerance.atol);
    INFO(names[i] << ": " << mismatch);
    CHECK(mismatch.empty());
  }
}

}  // namespace inferno
