// rotary reading its inputs through views (codegen/views.h), on a GPU against the reference
// interpreter: Llama's decode step in f16 and bf16 (q and k sliced from one fused projection,
// split into heads and permuted; cos and sin [1, 1, S, D] broadcast over the heads), and Phi's
// partial rotary in f32 over a transposed x with cos and sin expanded from one row. The
// generated code copies nothing: every slice, reshape, permute and expand is read in place.
// Part of test_gpu_codegen (label gpu). Without a device it still checks the generated code,
// then prints "SKIPPED: no CUDA device".
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

// {T}: the dtype. q [1, 4, 3, 32] and k [1, 2, 3, 32] from a [1, 3, 192] projection (v last).
const char* kLlama = R"ir(graph(%x: {T}[1,3,192], %cos: {T}[1,1,3,32], %sin: {T}[1,1,3,32]) {
  %qkv: {T}[1,3,192] = relu(%x)
  %qs: {T}[1,3,128] = slice(%qkv) {starts=[0, 0, 0], ends=[1, 3, 128], steps=[1, 1, 1]}
  %ks: {T}[1,3,64] = slice(%qkv) {starts=[0, 0, 128], ends=[1, 3, 192], steps=[1, 1, 1]}
  %qr: {T}[1,3,4,32] = reshape(%qs) {shape=[1, 3, 4, 32]}
  %kr: {T}[1,3,2,32] = reshape(%ks) {shape=[1, 3, 2, 32]}
  %q: {T}[1,4,3,32] = permute(%qr) {dims=[0, 2, 1, 3]}
  %k: {T}[1,2,3,32] = permute(%kr) {dims=[0, 2, 1, 3]}
  %qe: {T}[1,4,3,32] = rotary(%q, %cos, %sin) {rotary_dim=32}
  %ke: {T}[1,2,3,32] = rotary(%k, %cos, %sin) {rotary_dim=32}
  return %qe, %ke
})ir";

// Phi's partial rotary: x^T [6, 40] rotating 24 of 40, cos and sin one row expanded to 6 rows.
const char* kPartial = R"ir(graph(%x: f32[40,6], %cos: f32[1,24], %sin: f32[1,24]) {
  %a: f32[40,6] = relu(%x)
  %t: f32[6,40] = permute(%a) {dims=[1, 0]}
  %c: f32[6,24] = expand(%cos) {shape=[6, 24]}
  %s: f32[6,24] = expand(%sin) {shape=[6, 24]}
  %y: f32[6,40] = rotary(%t, %c, %s) {rotary_dim=24}
  return %y
})ir";

std::string with_dtype(std::string text, const std::string& dtype) {
  for (size_t at = text.find("{T}"); at != std::string::npos; at = text.find("{T}", at))
    text.replace(at, 3, dtype);
  return text;
}

void check_against_reference(const std::string& text, int views_read_in_place) {
  auto parsed = ir::parse_graph(text);
  INFO((parsed ? "" : parsed.status().to_string()));
  REQUIRE(parsed.has_value());
  const ir::Graph& graph = *parsed;
  std::vector<ir::Tensor> inputs;
  for (size_t i = 0; i < graph.inputs().size(); ++i)
    inputs.push_back(test::random_tensor(graph.type(graph.inputs()[i]), 31 + i));
  auto expected = reference::evaluate(graph, inputs);
  REQUIRE(expected.has_value());
  auto check_source = [&](const std::string& cu) {
    CHECK(cu.find("kernels::strided_copy<") == std::string::npos);
    int in_place = 0;
    const std::string note = "that its readers read in place: nothing to copy";
    for (size_t at = cu.find(note); at != std::string::npos; at = cu.find(note, at + 1)) ++in_place;
    CHECK(in_place == views_read_in_place);
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
  for (size_t i = 0; i < got.size(); ++i) {
    const test::Tolerance tolerance = test::default_tolerance(graph.type(graph.outputs()[i]).dtype);
    const std::string mismatch =
        test::compare_close(got[i], (*expected)[i], tolerance.rtol, tolerance.atol);
    INFO("output " << i << ": " << mismatch);
    CHECK(mismatch.empty());
  }
}

}  // namespace

TEST_CASE("gpu: rotary reads q and k of a fused projection in place, f16", "[gpu][codegen]") {
  check_against_reference(with_dtype(kLlama, "f16"), 6);
}

TEST_CASE("gpu: rotary reads q and k of a fused projection in place, bf16", "[gpu][codegen]") {
  check_against_reference(with_dtype(kLlama, "bf16"), 6);
}

TEST_CASE("gpu: partial rotary over a transposed x with expanded cos and sin, f32",
          "[gpu][codegen]") {
  check_against_reference(kPartial, 3);
}

}  // namespace inferno
