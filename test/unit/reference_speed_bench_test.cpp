// Timings of the reference interpreter on GPT-2-small-sized nodes, for `infernoc verify` on real
// models: the LM head (a [128, 768] x [50257, 768] linear) in f16 and f32, the rounding allowance
// of that product as an f16 gemm, one layer's attention and a layer_norm. Hidden ([.bench]): never
// in CI, run by hand with `test_reference "[.bench]"`; INFERNO_BENCH_COLUMNS overrides the 50257
// output columns (to time the old kernels on a slice and scale up).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "ir/builder.h"
#include "reference/interpreter.h"
#include "reference/rounding_allowance.h"
#include "support/catch.h"

namespace inferno {
namespace {

using ir::DType;
using ir::Tensor;
using ir::TensorType;

int64_t bench_columns() {
  const char* text = std::getenv("INFERNO_BENCH_COLUMNS");
  return text != nullptr ? std::atoll(text) : 50257;
}

Tensor random_tensor(TensorType type, double scale, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-scale, scale);
  Tensor t = Tensor::zeros(std::move(type));
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, dist(rng));
  return t;
}

/// A one-node graph of `op` on inputs of `inputs`' types.
struct OneNode {
  ir::Graph graph;
  std::vector<Tensor> inputs;
};

OneNode one_node(ir::OpKind op, std::vector<Tensor> inputs, const ir::Attributes& attrs) {
  OneNode n;
  std::vector<ir::ValueId> ids;
  for (const Tensor& t : inputs) ids.push_back(n.graph.add_input("in", t.type));
  Expected<ir::ValueId> out = ir::build_value(n.graph, op, ids, attrs, "out");
  REQUIRE(out.has_value());
  n.graph.set_outputs({*out});
  n.inputs = std::move(inputs);
  return n;
}

std::vector<const Tensor*> pointers(const std::vector<Tensor>& tensors) {
  std::vector<const Tensor*> p;
  for (const Tensor& t : tensors) p.push_back(&t);
  return p;
}

template <typename Fn>
double seconds(Fn fn) {
  const auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

Tensor evaluate_one(const OneNode& n) {
  auto result = reference::evaluate_node(n.graph, n.graph.nodes()[0], pointers(n.inputs));
  REQUIRE(result.has_value());
  return std::move(result->front());
}

}  // namespace

TEST_CASE("reference speed on GPT-2-small-sized nodes", "[.bench]") {
  const int64_t columns = bench_columns();
  for (const DType dtype : {DType::kF16, DType::kF32}) {
    OneNode head = one_node(ir::OpKind::kLinear,
                            {random_tensor({dtype, {1, 128, 768}}, 1, 1),
                             random_tensor({dtype, {columns, 768}}, 0.1, 2)},
                            {});
    const double t = seconds([&] { evaluate_one(head); });
    std::printf("linear %s [128,768] x [%lld,768]: %.2f s\n",
                std::string(ir::dtype_name(dtype)).c_str(), static_cast<long long>(columns), t);
  }
  {
    ir::Attributes attrs;
    attrs.set("trans_b", true);
    attrs.set("alpha", 1.0);
    attrs.set("beta", 1.0);
    attrs.set("activation", std::string("none"));
    OneNode head = one_node(ir::OpKind::kGemm,
                            {random_tensor({DType::kF16, {128, 768}}, 1, 3),
                             random_tensor({DType::kF16, {columns, 768}}, 0.1, 4)},
                            attrs);
    const Tensor expected = evaluate_one(head);
    const double t = seconds([&] {
      reference::rounding_allowance(head.graph, head.graph.nodes()[0], pointers(head.inputs),
                                    expected, {});
    });
    std::printf("allowance of f16 gemm [128,768] x [%lld,768]^T: %.2f s\n",
                static_cast<long long>(columns), t);
  }
  {
    ir::Attributes attrs;
    attrs.set("scale", 0.125);
    attrs.set("causal", true);
    attrs.set("mask", std::string("none"));
    attrs.set("kv_groups", int64_t{1});
    OneNode layer = one_node(ir::OpKind::kAttention,
                             {random_tensor({DType::kF16, {1, 12, 128, 64}}, 1, 5),
                              random_tensor({DType::kF16, {1, 12, 128, 64}}, 1, 6),
                              random_tensor({DType::kF16, {1, 12, 128, 64}}, 1, 7)},
                             attrs);
    const Tensor expected = evaluate_one(layer);
    const double t = seconds([&] { evaluate_one(layer); });
    const double a = seconds([&] {
      reference::rounding_allowance(layer.graph, layer.graph.nodes()[0], pointers(layer.inputs),
                                    expected, {});
    });
    std::printf("attention f16 [1,12,128,64]: %.2f s, its allowance %.2f s\n", t, a);
  }
  {
    ir::Attributes attrs;
    attrs.set("normalized_dims", int64_t{1});
    attrs.set("eps", 1e-5);
    OneNode norm = one_node(
        ir::OpKind::kLayerNorm,
        {random_tensor({DType::kF16, {1, 128, 768}}, 1, 8),
         random_tensor({DType::kF16, {768}}, 1, 9), random_tensor({DType::kF16, {768}}, 1, 10)},
        attrs);
    std::printf("layer_norm f16 [1,128,768]: %.3f s\n", seconds([&] { evaluate_one(norm); }));
  }
}

}  // namespace inferno
