// The op x dtype table on a GPU: every elementwise op of ops.def on every dtype it accepts (and
// every cast), in every form of test/support/op_table_cases.h (broadcast grids of edge values:
// ±0, ±inf, NaN, denormals, extremes; integer extremes where arithmetic wraps; literal and tensor
// parameters; rank-0 literals and inputs), layer_norm and group_norm on the floating dtypes
// through every path of kernels/norm.cuh, and attention (kernels/attention.cuh), all in one graph
// (one nvcc run), compiled by codegen and nvcc, run through the runtime, and compared output by
// output with the reference interpreter (which test/unit/reference_op_table_test.cpp checks against
// the double-precision definitions). Tolerances: torch.testing's defaults for the output dtype,
// integers and bool exactly; NaN where and only where the reference has NaN; infinities exactly.
//
// Label gpu. Without a device it prints "SKIPPED: no CUDA device" and ctest counts a skip.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "compiled_model.h"
#include "reference/interpreter.h"
#include "support/catch.h"
#include "support/op_table.h"
#include "support/op_table_cases.h"

namespace inferno {
namespace {

// The operand values output element `i` of an elementwise `node` reads, as text: "(x0, x1, ...)";
// for a norm, the element's index.
std::string operands_at(const ir::Graph& graph,
                        const std::map<ir::ValueId, const ir::Tensor*>& data, const ir::Node& node,
                        int64_t i) {
  if (!ir::op_has_trait(node.op, ir::kElementwise)) return "element " + std::to_string(i);
  std::ostringstream out;
  out.precision(9);
  out << "(";
  const ir::Shape& shape = graph.type(node.outputs[0]).shape;
  for (size_t k = 0; k < node.inputs.size(); ++k) {
    const ir::Tensor& t = *data.at(node.inputs[k]);
    out << (k ? ", " : "") << t.get(test::broadcast_source(t.type.shape, shape, i));
  }
  return out.str() + ")";
}

}  // namespace

TEST_CASE("gpu: generated code of every op on every dtype matches the reference",
          "[gpu][op_table]") {
  if (!test::has_cuda_device()) {
    std::printf("SKIPPED: no CUDA device\n");
    return;
  }
  const test::TableGraph table = test::table_graph();
  const ir::Graph& graph = table.graph;
  test::CompiledModel model(graph);
  const std::vector<ir::Tensor> actual = model.run(table.inputs);
  auto expected = reference::evaluate(graph, table.inputs);
  INFO((expected ? "" : expected.status().to_string()));
  REQUIRE(expected.has_value());
  REQUIRE(actual.size() == graph.outputs().size());

  // Every value a node reads: graph inputs and constants.
  std::map<ir::ValueId, const ir::Tensor*> data;
  for (size_t k = 0; k < graph.inputs().size(); ++k) data[graph.inputs()[k]] = &table.inputs[k];
  for (const ir::ValueId c : graph.constants()) data[c] = graph.value(c).constant.get();

  int64_t elements = 0;
  int failed_outputs = 0;
  for (size_t j = 0; j < actual.size(); ++j) {
    const ir::Node& node = graph.nodes()[j];  // one node per output, in order
    REQUIRE(node.outputs[0] == graph.outputs()[j]);
    const ir::DType dtype = graph.type(graph.outputs()[j]).dtype;
    test::Tolerance tolerance = test::default_tolerance(dtype);
    if (node.op == ir::OpKind::kAttention) {
      // The tensor-core kernels round the softmax weights to f16/bf16 as the operand of P @ V,
      // which moves an output (a weighted mean of v's rows) by up to the dtype's unit roundoff
      // times max |v|: the absolute tolerance scales with v (f32 and f64 keep their weights).
      const ir::Tensor& v = *data.at(node.inputs[2]);
      double v_max = 0;
      for (int64_t i = 0; i < v.numel(); ++i) v_max = std::max(v_max, std::fabs(v.get(i)));
      tolerance.atol = std::max(tolerance.atol, tolerance.rtol * v_max);
    }
    std::ostringstream failures;
    int failed = 0;
    for (int64_t i = 0; i < actual[j].numel(); ++i) {
      const std::string what = test::mismatch(actual[j].get(i), (*expected)[j].get(i), tolerance);
      if (what.empty()) continue;
      if (++failed <= 3) failures << "\n  at " << operands_at(graph, data, node, i) << ": " << what;
    }
    elements += actual[j].numel();
    failed_outputs += failed > 0 ? 1 : 0;
    INFO(table.labels[j] << ": " << failed << " of " << actual[j].numel() << " elements differ"
                         << failures.str());
    CHECK(failed == 0);
  }
  std::printf("op table on the GPU: %zu outputs, %lld elements, %d outputs differ\n", actual.size(),
              static_cast<long long>(elements), failed_outputs);
}

}  // namespace inferno
