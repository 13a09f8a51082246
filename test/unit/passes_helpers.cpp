#include "passes_helpers.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "ir/parser.h"
#include "ir/printer.h"
#include "passes/pipeline.h"
#include "reference/interpreter.h"
#include "support/catch.h"
#include "support/model_loading.h"
#include "support/test_support.h"

namespace inferno::test {

void check_same_outputs(const ir::Graph& before, const ir::Graph& after,
                        const std::vector<ir::Tensor>& inputs, Tolerance tolerance) {
  auto want = reference::evaluate(before, inputs);
  auto got = reference::evaluate(after, inputs);
  INFO((want ? "" : want.status().to_string()) << (got ? "" : got.status().to_string()));
  REQUIRE(want.has_value());
  REQUIRE(got.has_value());
  REQUIRE(want->size() == got->size());
  for (size_t i = 0; i < want->size(); ++i) {
    const ir::Tensor &g = (*got)[i], &w = (*want)[i];
    INFO("output " << i << ": " << compare_close(g, w, tolerance.rtol, tolerance.atol));
    if (tolerance.exact()) {
      CHECK((g.type == w.type && g.data == w.data));
    } else {
      CHECK(compare_close(g, w, tolerance.rtol, tolerance.atol).empty());
    }
  }
}

void check_same_on_random_inputs(const ir::Graph& before, const ir::Graph& after,
                                 Tolerance tolerance) {
  for (const uint64_t seed : {3, 4}) {
    std::vector<ir::Tensor> inputs;
    for (const ir::ValueId v : before.inputs())
      inputs.push_back(random_tensor(before.type(v), seed));
    check_same_outputs(before, after, inputs, tolerance);
  }
}

std::string stepped_constants(int64_t count, double step) {
  std::string out;
  for (int64_t i = 0; i < count; ++i) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g", static_cast<double>(i % 13 - 6) * step);
    out += (i == 0 ? "" : ", ") + std::string(buffer);
  }
  return "[" + out + "]";
}

void check_pass(const std::vector<std::string>& passes, const std::string& input,
                const std::string& expected, Tolerance tolerance) {
  const ir::Graph before = parse(input);
  ir::Graph after = parse(input);
  const Status status = passes::run_passes(after, passes, {});
  INFO(status.to_string());
  REQUIRE(status.is_ok());
  CHECK(ir::print_graph(after) == ir::print_graph(parse(expected)));
  for (uint64_t seed : {7, 8, 9}) {
    std::vector<ir::Tensor> inputs;
    for (ir::ValueId v : before.inputs())
      inputs.push_back(random_tensor(before.type(v), seed * 100 + v));
    check_same_outputs(before, after, inputs, tolerance);
  }
}

void check_unchanged(const std::vector<std::string>& passes, const std::string& input) {
  check_pass(passes, input, input);
}

const std::vector<std::string>& fixture_models() {
  static const std::vector<std::string> models = {"mm_relu", "mlp2", "mlp_gelu_silu_softmax",
                                                  "elementwise_chain", "bmm_matmul"};
  return models;
}

const std::vector<std::string>& fixture_forms() {
  static const std::vector<std::string> forms =
      test::have_torchscript()
          ? std::vector<std::string>{"model.pt2", "model_decomposed.pt2", "model.pt"}
          : std::vector<std::string>{"model.pt2", "model_decomposed.pt2"};
  return forms;
}

ir::Graph load_fixture(const std::string& model, const std::string& form) {
  const nlohmann::json manifest =
      nlohmann::json::parse(read_text_file(fixture_path("manifest.json")));
  frontend::LoadOptions options;
  for (const nlohmann::json& entry : manifest.at("models")) {
    if (entry.at("name") != model) continue;
    for (const nlohmann::json& input : entry.at("inputs")) {
      const auto dtype = ir::parse_dtype(input.at("dtype").get<std::string>());
      REQUIRE(dtype.has_value());
      options.inputs.push_back(
          {input.at("name").get<std::string>(), {*dtype, input.at("shape").get<ir::Shape>()}});
    }
  }
  REQUIRE(!options.inputs.empty());
  auto graph = test::load_model(fixture_path(model + "/" + form), options);
  INFO(model << "/" << form << ": " << (graph ? "" : graph.status().to_string()));
  REQUIRE(graph.has_value());
  return std::move(*graph);
}

std::string canonical_text(ir::Graph graph) {
  int32_t next = 0;
  auto rename = [&](ir::ValueId v) { graph.mutable_value(v).name = "v" + std::to_string(next++); };
  for (ir::ValueId v : graph.inputs()) rename(v);
  for (ir::ValueId v : graph.constants()) rename(v);
  for (ir::Node& node : graph.mutable_nodes()) {
    for (ir::ValueId v : node.outputs) rename(v);
    node.loc = {};
  }
  return ir::print_graph(graph);
}

}  // namespace inferno::test
