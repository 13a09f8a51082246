// Attention reading q, k and v through views and writing through one (codegen/views.h), on a GPU
// against the reference interpreter: GPT-2's layer as the optimizer leaves it (one q/k/v buffer
// sliced in three, each reshaped to heads and permuted to [B, H, S, D]; the output permuted back
// and merged into the graph output, which the attention then writes directly) in f32 (the FMA
// kernel, causal) and f16 (the tensor-core kernel, 16-byte loads from the shared buffer, its
// output reshaped into an arena value and q's slice also a graph output, so q is read from that
// copy); and one kv head expanded over four query heads (stride 0) from slices of a graph input.
// Part of test_gpu_codegen (label gpu), and alone as "gpu: attention reads q/k/v through views
// and writes its output through one". Without a device it still checks the graph on the
// reference and the generated code's launches and copies, then prints "SKIPPED: no CUDA device".
//
// Tolerance: torch.testing's for the dtype, the absolute part at least rtol * max |v| (the
// tensor-core kernel rounds the softmax weights to f16 for P @ V, as op_table_gpu_test.cpp
// says), and for f32 16 D float roundings of a score's terms (|q_i k_i| < 4) on top, times max
// |v|: the kernel sums q . k in float, the reference in double.
#include <algorithm>
#include <cmath>
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

// One GPT-2 attention layer over %<p>x: [2, 40, 192] -> q, k, v [2, 4, 40, 16] -> [80, 64].
std::string gpt2_layer(const std::string& p, const std::string& dt, const std::string& attrs) {
  std::string text = "  %" + p + "qkv: " + dt + "[2,40,192] = neg(%" + p + "x)\n";
  const char* names[] = {"q", "k", "v"};
  for (int i = 0; i < 3; ++i) {
    const std::string n = p + names[i], lo = std::to_string(64 * i);
    const std::string hi = std::to_string(64 * i + 64);
    text += "  %" + n + "s: " + dt + "[2,40,64] = slice(%" + p + "qkv) {starts=[0, 0, " + lo +
            "], ends=[2, 40, " + hi + "], steps=[1, 1, 1]}\n";
    text += "  %" + n + "r: " + dt + "[2,40,4,16] = reshape(%" + n + "s) {shape=[2, 40, 4, 16]}\n";
    text += "  %" + n + ": " + dt + "[2,4,40,16] = permute(%" + n + "r) {dims=[0, 2, 1, 3]}\n";
  }
  text += "  %" + p + "a: " + dt + "[2,4,40,16] = attention(%" + p + "q, %" + p + "k, %" + p +
          "v) {" + attrs + "}\n";
  text += "  %" + p + "ap: " + dt + "[2,40,4,16] = permute(%" + p + "a) {dims=[0, 2, 1, 3]}\n";
  text += "  %" + p + "y: " + dt + "[80,64] = reshape(%" + p + "ap) {shape=[80, 64]}\n";
  return text;
}

std::string views_graph() {
  return "graph(%x: f32[2,40,192], %hx: f16[2,40,192], %kv: f32[2,24,64], %qg: f32[2,4,40,32]) "
         "{\n" +
         gpt2_layer("", "f32", "causal=true, kv_groups=1, mask=\"none\", scale=0.25") +
         gpt2_layer("h", "f16", "causal=false, kv_groups=1, mask=\"none\", scale=0.25") +
         R"(  %hz: f16[80,64] = neg(%hy)
  %gks: f32[2,24,32] = slice(%kv) {starts=[0, 0, 0], ends=[2, 24, 32], steps=[1, 1, 1]}
  %gvs: f32[2,24,32] = slice(%kv) {starts=[0, 0, 32], ends=[2, 24, 64], steps=[1, 1, 1]}
  %gkr: f32[2,1,24,32] = reshape(%gks) {shape=[2, 1, 24, 32]}
  %gvr: f32[2,1,24,32] = reshape(%gvs) {shape=[2, 1, 24, 32]}
  %gk: f32[2,4,24,32] = expand(%gkr) {shape=[2, 4, 24, 32]}
  %gv: f32[2,4,24,32] = expand(%gvr) {shape=[2, 4, 24, 32]}
  %g: f32[2,4,40,32] = attention(%qg, %gk, %gv) {causal=false, kv_groups=1, mask="none", scale=0.125}
  return %y, %hz, %hqs, %g
})";
}

int occurrences(const std::string& text, const std::string& needle) {
  int count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++count;
  return count;
}

}  // namespace

TEST_CASE("gpu: attention reads q/k/v through views and writes its output through one",
          "[gpu][codegen][attention_views]") {
  auto parsed = ir::parse_graph(views_graph());
  INFO((parsed ? "" : parsed.status().to_string()));
  REQUIRE(parsed.has_value());
  const ir::Graph& graph = *parsed;
  std::vector<ir::Tensor> inputs;
  for (size_t i = 0; i < graph.inputs().size(); ++i)
    inputs.push_back(test::random_tensor(graph.type(graph.inputs()[i]), 11 + i));
  auto expected = reference::evaluate(graph, inputs);
  REQUIRE(expected.has_value());
  auto check_source = [](const std::string& cu) {
    CHECK(occurrences(cu, "kernels::attention<") == 3);
    // The one copy left: %hqs, a graph output (the f16 layer's q is then read from it).
    CHECK(occurrences(cu, "kernels::strided_copy<") == 1);
    // 24 layout nodes before the attentions, less %hqs and its reshape (an alias of that copy).
    CHECK(occurrences(cu, "that its readers read in place: nothing to copy") == 22);
    CHECK(occurrences(cu, "(a view: the same bytes as %hqs)") == 1);
    CHECK(occurrences(cu, "(written in this layout by the producer of %") == 2);
  };
  if (!test::has_cuda_device()) {  // the graph and its code still checked, then a skip
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
  const char* names[] = {"y (f32, causal)", "hz (f16)", "hqs (f16 slice)", "g (expanded kv)"};
  for (size_t i = 0; i < got.size(); ++i) {
    const ir::DType dtype = graph.type(graph.outputs()[i]).dtype;
    const test::Tolerance base = test::default_tolerance(dtype);
    const double v_max = 2.0;  // random_tensor's values are in [-2, 2)
    double atol = std::max(base.atol, base.rtol * v_max);
    if (dtype == ir::DType::kF32) atol += 16 * 32 * 0x1p-24 * v_max;
    const std::string mismatch = test::compare_close(got[i], (*expected)[i], base.rtol, atol);
    INFO(names[i] << ": " << mismatch);
    CHECK(mismatch.empty());
  }
}

}  // namespace inferno
