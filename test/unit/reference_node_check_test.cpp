// Kernel-by-kernel verification (reference/node_check.h) on the reference itself: a "device" that
// is the interpreter with one node's output corrupted must be named at that node, with its source
// line, and only there; a difference inside the dtype's tolerance is no mismatch.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "ir/parser.h"
#include "reference/interpreter.h"
#include "reference/node_check.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using test::parse;

const char* const kGraph = R"(graph(%x: f32[2,3], %w: f32[3,4]) {
  %m: f32[2,4] = gemm(%x, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=false} loc("model.py":10)
  %r: f32[2,4] = relu(%m) loc("model.py":11)
  %s: f32[2,4] = mul(%r, %r) loc("model.py":12)
  return %s
})";

ir::Tensor tensor(const ir::TensorType& type, const std::vector<double>& values) {
  ir::Tensor t = ir::Tensor::zeros(type);
  for (size_t i = 0; i < values.size(); ++i) t.set(static_cast<int64_t>(i), values[i]);
  return t;
}

std::vector<ir::Tensor> inputs(const ir::Graph& graph) {
  return {tensor(graph.type(graph.inputs()[0]), {1, -2, 3, 0.5, 4, -1}),
          tensor(graph.type(graph.inputs()[1]), {1, 2, 3, 4, -1, 0, 1, 2, 0.5, 0.25, -3, 1})};
}

// Every node's output as a device would give it: the interpreter, node by node on its own
// results, with `corrupt` applied to node `bad`'s output before its readers see it.
std::vector<ir::Tensor> device_values(const ir::Graph& graph, const std::vector<ir::Tensor>& in,
                                      int32_t bad,
                                      const std::function<void(ir::Tensor&)>& corrupt) {
  std::vector<const ir::Tensor*> value_of(static_cast<size_t>(graph.num_values()), nullptr);
  for (size_t i = 0; i < in.size(); ++i) value_of[static_cast<size_t>(graph.inputs()[i])] = &in[i];
  std::vector<ir::Tensor> out(graph.nodes().size());
  for (size_t n = 0; n < graph.nodes().size(); ++n) {
    const ir::Node& node = graph.nodes()[n];
    std::vector<const ir::Tensor*> args;
    for (const ir::ValueId v : node.inputs) args.push_back(value_of[static_cast<size_t>(v)]);
    auto result = reference::evaluate_node(graph, node, args);
    REQUIRE(result.has_value());
    out[n] = std::move(result->front());
    if (static_cast<int32_t>(n) == bad) corrupt(out[n]);
    value_of[static_cast<size_t>(node.outputs[0])] = &out[n];
  }
  return out;
}

reference::NodeCheck check(const ir::Graph& graph, const std::vector<ir::Tensor>& device) {
  auto result = reference::check_nodes(graph, inputs(graph),
                                       [&](int32_t n) { return &device[static_cast<size_t>(n)]; });
  INFO((result ? "" : result.status().to_string()));
  REQUIRE(result.has_value());
  return *result;
}

}  // namespace

TEST_CASE("verify names the node whose output was corrupted, with its source line", "[reference]") {
  const ir::Graph graph = parse(kGraph);
  // relu's element [1, 2] off by 0.5: relu is named; mul, computed on the corrupted value by
  // the device and judged on the same input, is not.
  const auto device =
      device_values(graph, inputs(graph), 1, [](ir::Tensor& t) { t.set(6, t.get(6) + 0.5); });
  const reference::NodeCheck result = check(graph, device);
  REQUIRE(result.mismatch.has_value());
  CHECK(result.mismatch->node == 1);
  CHECK(result.mismatch->index == 6);
  CHECK(result.nodes_compared == 2);
  const std::string text = reference::describe_check(graph, result);
  CHECK(text.rfind("%r (relu) at model.py:11: element [1, 2] is ", 0) == 0);
  CHECK(text.find("(f32 tolerance: rtol 1.3e-06, atol 1e-05)") != std::string::npos);
}

TEST_CASE("verify accepts differences inside the dtype's tolerance", "[reference]") {
  const ir::Graph graph = parse(kGraph);
  // The GEMM off by 5e-6 absolute (under atol 1e-5): every value matches.
  const auto close = device_values(graph, inputs(graph), 0, [](ir::Tensor& t) {
    for (int64_t i = 0; i < t.numel(); ++i) t.set(i, t.get(i) + 5e-6);
  });
  const reference::NodeCheck result = check(graph, close);
  CHECK_FALSE(result.mismatch.has_value());
  CHECK(result.values_compared == 3 * 8);
  CHECK(reference::describe_check(graph, result) == "all 24 values match (3 nodes)");
  // A NaN where the reference has a number is a mismatch at the GEMM.
  const auto nan =
      device_values(graph, inputs(graph), 0, [](ir::Tensor& t) { t.set(0, std::nan("")); });
  const reference::NodeCheck bad = check(graph, nan);
  REQUIRE(bad.mismatch.has_value());
  CHECK(bad.mismatch->node == 0);
}

TEST_CASE("verify's tolerances are torch.testing's", "[reference]") {
  CHECK(reference::default_tolerance(ir::DType::kF32).rtol == 1.3e-6);
  CHECK(reference::default_tolerance(ir::DType::kF16).rtol == 1e-3);
  CHECK(reference::default_tolerance(ir::DType::kBF16).rtol == 1.6e-2);
  CHECK(reference::default_tolerance(ir::DType::kI64).atol == 0);
  // Unobserved nodes (views the device never materialized) are skipped, the reference's value
  // standing in for them.
  const ir::Graph graph = parse(kGraph);
  const auto device = device_values(graph, inputs(graph), -1, [](ir::Tensor&) {});
  auto result = reference::check_nodes(graph, inputs(graph), [&](int32_t n) {
    return n == 1 ? nullptr : &device[static_cast<size_t>(n)];
  });
  REQUIRE(result.has_value());
  CHECK(result->nodes_compared == 2);
  CHECK_FALSE(result->mismatch.has_value());
}

}  // namespace inferno
