// The TorchScript frontend on the committed fixtures (test/fixtures, exported by
// tools/export_fixtures.py): every model.pt loads with the input shapes of its manifest entry,
// verifies and has the manifest's output types; input-spec mistakes, unreadable files and
// unsupported ops give Statuses with the right code and message. Numerics are checked elsewhere
// (integration_fixtures_test.cpp).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "frontend/torchscript_frontend.h"
#include "ir/verifier.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using frontend::LoadOptions;

const nlohmann::json& manifest() {
  static const nlohmann::json parsed =
      nlohmann::json::parse(test::read_text_file(test::fixture_path("manifest.json")));
  return parsed;
}

nlohmann::json model_entry(const std::string& name) {
  for (const nlohmann::json& model : manifest().at("models")) {
    if (model.at("name") == name) return model;
  }
  FAIL("no model '" << name << "' in manifest.json");
  throw std::logic_error("unreachable");
}

ir::TensorType type_of(const nlohmann::json& entry) {
  const auto dtype = ir::parse_dtype(entry.at("dtype").get<std::string>());
  REQUIRE(dtype.has_value());
  return {*dtype, entry.at("shape").get<ir::Shape>()};
}

/// The specs a user would give: the manifest's input names and shapes, in order.
LoadOptions specs_for(const nlohmann::json& model) {
  LoadOptions options;
  for (const nlohmann::json& input : model.at("inputs")) {
    options.inputs.push_back({input.at("name").get<std::string>(), type_of(input)});
  }
  return options;
}

Expected<ir::Graph> load(const std::string& relative, const LoadOptions& options) {
  return frontend::load_torchscript_in_process(test::fixture_path(relative), options);
}

std::string describe(const Status& status) { return status.is_ok() ? "ok" : status.to_string(); }

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_CASE("every TorchScript fixture loads, verifies and has the manifest's types",
          "[frontend][torchscript]") {
  REQUIRE(manifest().at("models").size() >= 5);
  for (const nlohmann::json& model : manifest().at("models")) {
    const std::string name = model.at("name");
    INFO("model " << name);
    const nlohmann::json& files = model.at("files");
    if (std::find(files.begin(), files.end(), "model.pt") == files.end()) continue;  // .pt2 only
    const LoadOptions options = specs_for(model);
    auto graph = load(name + "/model.pt", options);
    INFO((graph ? std::string("loaded") : describe(graph.status())));
    REQUIRE(graph.has_value());
    CHECK(describe(ir::verify(*graph)) == "ok");

    // Inputs: one per spec, named after the model's (".N"-stripped) names, typed by the spec.
    REQUIRE(graph->inputs().size() == options.inputs.size());
    for (size_t i = 0; i < options.inputs.size(); ++i) {
      CHECK(graph->name(graph->inputs()[i]) == options.inputs[i].name);
      CHECK(graph->type(graph->inputs()[i]) == options.inputs[i].type);
    }
    // Outputs: a returned tuple is flattened; shapes come from the IR's shape rules.
    const nlohmann::json& outputs = model.at("outputs");
    REQUIRE(graph->outputs().size() == outputs.size());
    for (size_t i = 0; i < outputs.size(); ++i) {
      INFO("output " << i);
      CHECK(graph->type(graph->outputs()[i]).to_string() == type_of(outputs[i]).to_string());
    }
    // Weights arrive as constants named after the module attribute they came from.
    if (name == "mlp2") {
      CHECK(graph->find_value("self.fc1.weight") != ir::kNoValue);
      CHECK(graph->constants().size() == 4);
    }
  }
}

TEST_CASE("TorchScript: a bare spec (from a --data file) matches by position",
          "[frontend][torchscript]") {
  LoadOptions options;
  const nlohmann::json model = model_entry("bmm_matmul");
  for (const nlohmann::json& input : model.at("inputs"))
    options.inputs.push_back({"", type_of(input)});
  auto graph = load("bmm_matmul/model.pt", options);
  INFO((graph ? std::string("loaded") : describe(graph.status())));
  REQUIRE(graph.has_value());
  CHECK(graph->name(graph->inputs()[0]) == "a");
  CHECK(graph->name(graph->inputs()[1]) == "b");
}

TEST_CASE("TorchScript: missing input specs name every model input", "[frontend][torchscript]") {
  auto graph = load("elementwise_chain/model.pt", {});
  REQUIRE_FALSE(graph.has_value());
  CHECK(graph.status().code() == ErrorCode::kInvalidInput);
  CHECK(graph.status().message() ==
        "TorchScript models carry no input shapes; give one --input NAME:DIMS:DTYPE (or --data "
        "FILE) per "
        "model input: x, y");
}

TEST_CASE("TorchScript: a wrong number of specs or a wrong name is invalid input",
          "[frontend][torchscript]") {
  const nlohmann::json model = model_entry("elementwise_chain");
  SECTION("too few") {
    LoadOptions options = specs_for(model);
    options.inputs.pop_back();
    auto graph = load("elementwise_chain/model.pt", options);
    REQUIRE_FALSE(graph.has_value());
    CHECK(graph.status().code() == ErrorCode::kInvalidInput);
  }
  SECTION("too many") {
    LoadOptions options = specs_for(model);
    options.inputs.push_back(options.inputs.back());
    auto graph = load("elementwise_chain/model.pt", options);
    REQUIRE_FALSE(graph.has_value());
    CHECK(graph.status().code() == ErrorCode::kInvalidInput);
  }
  SECTION("wrong name") {
    LoadOptions options = specs_for(model);
    options.inputs[1].name = "z";
    auto graph = load("elementwise_chain/model.pt", options);
    REQUIRE_FALSE(graph.has_value());
    CHECK(graph.status().code() == ErrorCode::kInvalidInput);
    CHECK(contains(graph.status().message(), "z"));
  }
}

TEST_CASE("TorchScript: a spec shape that does not fit the model is a Status",
          "[frontend][torchscript]") {
  LoadOptions options = specs_for(model_entry("mlp2"));
  options.inputs[0].type.shape = {4, 15};  // fc1 expects 16 features
  auto graph = load("mlp2/model.pt", options);
  REQUIRE_FALSE(graph.has_value());
  CHECK(graph.status().code() != ErrorCode::kOk);
  CHECK(graph.status().code() != ErrorCode::kInternal);
}

TEST_CASE("TorchScript: a size read as a number is reported, a size shaping a view is not",
          "[frontend][torchscript]") {
  // cnn_block reads no size; cnn_ops reads one for a view's shape; cnn_norms_lists divides
  // sizes (traced: floor_divide of 0-dim tensors) for views; transformer_llama hands one to arange
  // (a number the graph keeps).
  for (const auto& [name, input, reads] :
       {std::tuple{"cnn_block", "x:2x3x32x32:f32", false},
        std::tuple{"cnn_ops", "x:2x3x8x8:f32", false},
        std::tuple{"cnn_norms_lists", "x:2x8x6x5:f32", false},
        std::tuple{"transformer_llama", "x:1x19x32:f32", true}}) {
    INFO(name);
    LoadOptions options;
    options.inputs = {*frontend::parse_input_spec(input)};
    bool reads_sizes = !reads;
    options.reads_sizes = &reads_sizes;
    REQUIRE(load(std::string(name) + "/model.pt", options).has_value());
    CHECK(reads_sizes == reads);
  }
}

TEST_CASE("TorchScript: unreadable and malformed files are Statuses, not crashes",
          "[frontend][torchscript]") {
  const LoadOptions options = specs_for(model_entry("mlp2"));
  SECTION("missing file") {
    auto graph =
        frontend::load_torchscript_in_process(test::fixture_path("no_such_model.pt"), options);
    REQUIRE_FALSE(graph.has_value());
    CHECK(graph.status().code() == ErrorCode::kIo);
  }
  SECTION("garbage") {
    const auto path = std::filesystem::temp_directory_path() / "inferno_torchscript_garbage.pt";
    {
      std::ofstream out(path, std::ios::binary);
      out << "this is not a TorchScript archive\n" << std::string(300, '\x07');
    }
    auto graph = frontend::load_torchscript_in_process(path.string(), options);
    std::filesystem::remove(path);
    REQUIRE_FALSE(graph.has_value());
    CHECK(graph.status().code() == ErrorCode::kInvalidInput);
    CHECK_FALSE(contains(graph.status().message(), "\n"));  // the first line only, no backtrace
  }
  SECTION("a torch.export archive") {
    auto graph =
        frontend::load_torchscript_in_process(test::fixture_path("mlp2/model.pt2"), options);
    REQUIRE_FALSE(graph.has_value());
    CHECK(graph.status().code() == ErrorCode::kInvalidInput);
  }
  SECTION("a truncated TorchScript archive") {
    const std::string whole = test::read_text_file(test::fixture_path("mlp2/model.pt"));
    const auto path = std::filesystem::temp_directory_path() / "inferno_torchscript_truncated.pt";
    {
      std::ofstream out(path, std::ios::binary);
      out << whole.substr(0, whole.size() * 3 / 5);
    }
    auto graph = frontend::load_torchscript_in_process(path.string(), options);
    std::filesystem::remove(path);
    REQUIRE_FALSE(graph.has_value());
    CHECK(graph.status().code() == ErrorCode::kInvalidInput);
  }
}

TEST_CASE("TorchScript: every unsupported op is listed in one error", "[frontend][torchscript]") {
  LoadOptions options;
  options.inputs.push_back({"x", {ir::DType::kF32, {4, 8}}});
  auto graph = load("errors/unsupported_ops.pt", options);
  REQUIRE_FALSE(graph.has_value());
  const std::string message = graph.status().message();
  INFO(message);
  CHECK(graph.status().code() == ErrorCode::kUnsupported);
  for (const std::string op : {"aten::sort", "aten::topk"}) CHECK(contains(message, op));
  // Supported ops of the same model are not listed (cumsum since issue 19).
  CHECK_FALSE(contains(message, "aten::linear"));
  CHECK_FALSE(contains(message, "aten::relu"));
  CHECK_FALSE(contains(message, "aten::cumsum"));
  // Node names (the outputs' debug names) and the Python lines that made them.
  CHECK(contains(message, "ordered.1"));
  CHECK(contains(message, "export_fixtures.py:"));
  // Found without input shapes too: the check comes before anything needs them.
  auto unshaped = load("errors/unsupported_ops.pt", {});
  REQUIRE_FALSE(unshaped.has_value());
  CHECK(unshaped.status().code() == ErrorCode::kUnsupported);
}

}  // namespace
}  // namespace inferno
