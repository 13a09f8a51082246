#include "support/application_check.h"

#include <sstream>
#include <string>

#include "reference/interpreter.h"
#include "support/catch.h"
#include "support/op_table.h"
#include "support/test_support.h"

namespace inferno::test {

ir::Tensor evaluate_application(const Application& application) {
  ir::Graph graph;
  ApplicationAdder adder(graph);
  const ir::ValueId out = adder.add(application);
  graph.set_outputs({out});
  auto result = reference::evaluate(graph, adder.inputs());
  INFO((result ? "" : result.status().to_string()));
  REQUIRE(result.has_value());
  return (*result)[0];
}

void check_against_definition(const ir::Tensor& got, const std::vector<double>& want,
                              ir::DType dtype) {
  REQUIRE(static_cast<int64_t>(want.size()) == got.numel());
  const Tolerance tolerance = default_tolerance(dtype);
  std::ostringstream failures;
  int failed = 0;
  for (int64_t i = 0; i < got.numel(); ++i) {
    const double expected = round_result(want[static_cast<size_t>(i)], dtype, false);
    const std::string what = mismatch(got.get(i), expected, tolerance);
    if (!what.empty() && ++failed <= 4) failures << "\n  at " << i << ": " << what;
  }
  INFO(failed << " of " << got.numel() << " elements differ" << failures.str());
  CHECK(failed == 0);
}

}  // namespace inferno::test
