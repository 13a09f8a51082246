// The transformer pattern passes on the transformer fixtures, in every form the fixture has
// (TorchScript traced by torch 1.13, torch.export plain and core-ATen): attention, rms_norm,
// rotary and the parallel gemm fusion fire, the default pipeline stays idempotent, and the
// optimized graph gives the loaded graph's outputs on the fixture's inputs (fp32 tolerance: the
// fused ops round once). The outputs against PyTorch are integration_fixtures_test's.
#include <filesystem>
#include <string>
#include <vector>

#include "integration_helpers.h"
#include "ir/printer.h"
#include "passes/pipeline.h"
#include "passes_helpers.h"
#include "support/catch.h"

namespace inferno {
namespace {

struct Expected {
  std::string model;
  int attention, gemm, rms_norm, rotary;
};

int count(const ir::Graph& graph, ir::OpKind op) {
  int n = 0;
  for (const ir::Node& node : graph.nodes()) n += node.op == op ? 1 : 0;
  return n;
}

TEST_CASE("transformer fixtures: the patterns fire in every form, idempotent, outputs kept") {
  // gpt2: its written-out causal attention (tril buffer, where) and gelu_new; llama: GQA
  // attention via repeat_kv, two RMSNorms, the rotary embedding of q and k (no neg left), q/k/v
  // and gate/up fused (7 gemms -> 4); encoder: nn.MultiheadAttention (SDPA in the .pt2 forms, the
  // fast path in TorchScript); sdpa: five scaled_dot_product_attention variants, whose core-ATen
  // form is the math decomposition.
  const std::vector<Expected> table = {{"transformer_gpt2", 1, 5, 0, 0},
                                       {"transformer_llama", 1, 4, 2, 2},
                                       {"transformer_encoder", 3, 10, 0, 0},
                                       {"transformer_sdpa", 5, 0, 0, 0}};
  for (const Expected& want : table) {
    const std::vector<ir::Tensor> inputs = test::read_fixture_tensors(want.model, "input");
    for (const std::string& form : test::fixture_forms()) {
      if (!std::filesystem::exists(test::fixture_path(want.model + "/" + form))) continue;
      INFO(want.model << "/" << form);
      const ir::Graph loaded = test::load_fixture(want.model, form);
      ir::Graph graph = test::load_fixture(want.model, form);
      REQUIRE(passes::run_default_pipeline(graph, {}).is_ok());
      const std::string once = ir::print_graph(graph);
      REQUIRE(passes::run_default_pipeline(graph, {}).is_ok());
      CHECK(ir::print_graph(graph) == once);
      CHECK(count(graph, ir::OpKind::kAttention) == want.attention);
      CHECK(count(graph, ir::OpKind::kSoftmax) == 0);
      CHECK(count(graph, ir::OpKind::kGemm) == want.gemm);
      CHECK(count(graph, ir::OpKind::kRmsNorm) == want.rms_norm);
      CHECK(count(graph, ir::OpKind::kRotary) == want.rotary);
      CHECK(count(graph, ir::OpKind::kNeg) == 0);
      test::check_same_outputs(loaded, graph, inputs, test::kFp32);
    }
  }
}

/// `n` deterministic constant elements in [-1, 1).
std::string elements(int n, int seed) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    out += (i == 0 ? "" : ", ") + std::to_string(((i * 37 + seed * 11) % 16 - 8) / 8.0);
  }
  return out;
}

TEST_CASE("default pipeline on a BERT attention block: one fused q/k/v gemm, one attention") {
  std::string text = "graph(%x: f32[2,5,8], %mask: f32[2,1,1,5]) {\n";
  for (const char* p : {"q", "k", "v"}) {
    const int seed = p[0];
    text += std::string("  %w") + p + ": f32[8,8] = constant [" + elements(64, seed) + "]\n";
    text += std::string("  %b") + p + ": f32[8] = constant [" + elements(8, seed + 1) + "]\n";
  }
  text += R"(  %root: f32[] = constant [2.0]
  %q0: f32[2,5,8] = linear(%x, %wq, %bq)
  %k0: f32[2,5,8] = linear(%x, %wk, %bk)
  %v0: f32[2,5,8] = linear(%x, %wv, %bv)
  %q1: f32[2,5,2,4] = reshape(%q0) {shape=[2, 5, 2, 4]}
  %k1: f32[2,5,2,4] = reshape(%k0) {shape=[2, 5, 2, 4]}
  %v1: f32[2,5,2,4] = reshape(%v0) {shape=[2, 5, 2, 4]}
  %q: f32[2,2,5,4] = permute(%q1) {dims=[0, 2, 1, 3]}
  %k: f32[2,2,5,4] = permute(%k1) {dims=[0, 2, 1, 3]}
  %v: f32[2,2,5,4] = permute(%v1) {dims=[0, 2, 1, 3]}
  %kt: f32[2,2,4,5] = transpose(%k) {dim0=2, dim1=3}
  %s: f32[2,2,5,5] = matmul(%q, %kt)
  %sd: f32[2,2,5,5] = div(%s, %root)
  %z: f32[2,2,5,5] = add(%sd, %mask)
  %p: f32[2,2,5,5] = softmax(%z) {dim=3}
  %o: f32[2,2,5,4] = matmul(%p, %v)
  return %o
})";
  const ir::Graph loaded = test::parse(text);
  ir::Graph graph = test::parse(text);
  REQUIRE(passes::run_default_pipeline(graph, {}).is_ok());
  const std::string once = ir::print_graph(graph);
  INFO(once);
  REQUIRE(passes::run_default_pipeline(graph, {}).is_ok());
  CHECK(ir::print_graph(graph) == once);
  CHECK(count(graph, ir::OpKind::kAttention) == 1);
  CHECK(count(graph, ir::OpKind::kGemm) == 1);
  CHECK(count(graph, ir::OpKind::kSlice) == 3);
  CHECK(count(graph, ir::OpKind::kSoftmax) == 0);
  for (uint64_t seed : {3, 4}) {
    std::vector<ir::Tensor> inputs;
    for (ir::ValueId v : loaded.inputs())
      inputs.push_back(test::random_tensor(loaded.type(v), seed * 10 + v));
    test::check_same_outputs(loaded, graph, inputs, test::kFp32);
  }
}

}  // namespace
}  // namespace inferno
