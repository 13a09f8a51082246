// frontend::load_torchscript, which runs the loader executable (infernoc-torchscript) as a child:
// the graph, the notes and every error come back as the in-process frontend gives them; a loader
// that aborts, writes no result or cannot be found is an error, never a crash; and the result
// format refuses what it cannot read.
#include <stdlib.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "driver/process.h"
#include "driver_test_helpers.h"
#include "frontend/frontend.h"
#include "frontend/torchscript_frontend.h"
#include "frontend/torchscript_protocol.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using frontend::LoadOptions;
namespace protocol = frontend::torchscript_protocol;

/// Sets INFERNO_TORCHSCRIPT_LOADER for one test and restores it after.
class LoaderOverride {
 public:
  explicit LoaderOverride(const std::string& path) {
    if (const char* old = std::getenv(kVariable)) old_ = old;
    ::setenv(kVariable, path.c_str(), 1);
  }
  LoaderOverride(const LoaderOverride&) = delete;
  LoaderOverride& operator=(const LoaderOverride&) = delete;
  ~LoaderOverride() {
    if (old_) {
      ::setenv(kVariable, old_->c_str(), 1);
    } else {
      ::unsetenv(kVariable);
    }
  }

 private:
  static constexpr const char* kVariable = "INFERNO_TORCHSCRIPT_LOADER";
  std::optional<std::string> old_;
};

/// The manifest's input specs for fixture `name`.
LoadOptions specs_for(const std::string& name) {
  const nlohmann::json manifest =
      nlohmann::json::parse(test::read_text_file(test::fixture_path("manifest.json")));
  LoadOptions options;
  for (const nlohmann::json& model : manifest.at("models")) {
    if (model.at("name") != name) continue;
    for (const nlohmann::json& input : model.at("inputs")) {
      const auto dtype = ir::parse_dtype(input.at("dtype").get<std::string>());
      REQUIRE(dtype.has_value());
      options.inputs.push_back(
          {input.at("name").get<std::string>(), {*dtype, input.at("shape").get<ir::Shape>()}});
    }
  }
  REQUIRE_FALSE(options.inputs.empty());
  return options;
}

std::string describe(const Status& status) { return status.is_ok() ? "ok" : status.to_string(); }

TEST_CASE("TorchScript loader: the child gives the in-process graph and notes",
          "[frontend][torchscript]") {
  LoaderOverride loader(TORCHSCRIPT_LOADER_EXE);
  for (const char* name : {"mlp2", "cnn_mixed", "transformer_gpt2", "transformer_encoder"}) {
    INFO(name);
    LoadOptions options = specs_for(name);
    std::vector<std::string> child_notes, own_notes;
    options.note = [&](std::string_view note) { child_notes.emplace_back(note); };
    const std::string path = test::fixture_path(std::string(name) + "/model.pt");
    Expected<ir::Graph> child = frontend::load_torchscript(path, options);
    INFO((child ? "" : child.status().to_string()));
    REQUIRE(child.has_value());
    options.note = [&](std::string_view note) { own_notes.emplace_back(note); };
    Expected<ir::Graph> own = frontend::load_torchscript_in_process(path, options);
    REQUIRE(own.has_value());
    // Every constant printed in full: the weights come back bit for bit.
    CHECK(ir::print_graph(*child) == ir::print_graph(*own));
    CHECK(child_notes == own_notes);
    CHECK_FALSE(child_notes.empty());
  }
}

TEST_CASE("TorchScript loader: its errors keep their code, message, node and location",
          "[frontend][torchscript]") {
  LoaderOverride loader(TORCHSCRIPT_LOADER_EXE);
  struct Case {
    std::string model;
    LoadOptions options;
  };
  LoadOptions narrow = specs_for("mlp2");
  narrow.inputs[0].type.shape = {4, 15};
  LoadOptions from_data = specs_for("mlp2");
  from_data.inputs[0] = {"", {ir::DType::kF32, {4, 16, 1}}, false, "odd name: x.npy"};
  const std::vector<Case> cases = {
      {"errors/unsupported_ops.pt", {{{"x", {ir::DType::kF32, {4, 8}}}}}},
      {"mlp2/model.pt", narrow},
      {"mlp2/model.pt", from_data},
      {"mlp2/model.pt", {}},
      {"mlp2/model.pt", {{{"y", {ir::DType::kF32, {4, 16}}}}}},
      {"no_such_model.pt", specs_for("mlp2")},
  };
  for (const Case& c : cases) {
    const std::string path = test::fixture_path(c.model);
    Expected<ir::Graph> child = frontend::load_torchscript(path, c.options);
    Expected<ir::Graph> own = frontend::load_torchscript_in_process(path, c.options);
    INFO(c.model << ": " << (own ? "ok" : describe(own.status())));
    REQUIRE_FALSE(own.has_value());
    REQUIRE_FALSE(child.has_value());
    CHECK(child.status().code() == own.status().code());
    CHECK(child.status().message() == own.status().message());
    CHECK(child.status().node() == own.status().node());
    CHECK(child.status().location() == own.status().location());
  }
}

TEST_CASE("TorchScript loader: a loader that aborts is invalid input about the file",
          "[frontend][torchscript]") {
  LoaderOverride loader(ABORTING_TORCHSCRIPT_LOADER_EXE);
  const std::string path = test::fixture_path("mlp2/model.pt");
  Expected<ir::Graph> graph = frontend::load_torchscript(path, specs_for("mlp2"));
  REQUIRE_FALSE(graph.has_value());
  CHECK(graph.status().code() == ErrorCode::kInvalidInput);
  CHECK(graph.status().message() ==
        "the TorchScript loader failed on this file: '" + path +
            "': it ended with signal 6 (Aborted) (it printed: terminate called: the test loader "
            "aborts)");
}

TEST_CASE("TorchScript loader: a missing or non-executable loader is named",
          "[frontend][torchscript]") {
  test::ScratchDir dir("torchscript_loader");
  const std::string missing = dir / "no-such-loader";
  LoaderOverride loader(missing);
  Expected<ir::Graph> graph =
      frontend::load_torchscript(test::fixture_path("mlp2/model.pt"), specs_for("mlp2"));
  REQUIRE_FALSE(graph.has_value());
  CHECK(graph.status().code() == ErrorCode::kToolchain);
  CHECK(graph.status().message() ==
        "INFERNO_TORCHSCRIPT_LOADER is '" + missing + "', which is not an executable file");

  const std::string plain_file = dir / "loader.txt";
  test::write_text(plain_file, "not a program\n");
  LoaderOverride not_executable(plain_file);
  graph = frontend::load_torchscript(test::fixture_path("mlp2/model.pt"), specs_for("mlp2"));
  REQUIRE_FALSE(graph.has_value());
  CHECK(graph.status().message() ==
        "INFERNO_TORCHSCRIPT_LOADER is '" + plain_file + "', which is not an executable file");

  // Unset (empty): looked for beside this test binary and in ../libexec/inferno, where it is not.
  LoaderOverride unset("");
  graph = frontend::load_torchscript(test::fixture_path("mlp2/model.pt"), specs_for("mlp2"));
  REQUIRE_FALSE(graph.has_value());
  CHECK(graph.status().code() == ErrorCode::kToolchain);
  const std::string test_dir = driver::executable_dir().string();
  CHECK(graph.status().message() ==
        "cannot find the TorchScript loader infernoc-torchscript: it is neither '" + test_dir +
            "/infernoc-torchscript' nor '" + driver::executable_dir().parent_path().string() +
            "/libexec/inferno/infernoc-torchscript'; set INFERNO_TORCHSCRIPT_LOADER to its path");
}

TEST_CASE("TorchScript loader: input specs and results round-trip, malformed ones are refused",
          "[frontend][torchscript]") {
  std::vector<frontend::InputSpec> specs = {
      {"x,1:2", {ir::DType::kBF16, {3, 0, 7}}},
      {"", {ir::DType::kI64, {}}, false, std::string("odd\n\xff name.npy", 15)}};
  Expected<std::vector<frontend::InputSpec>> decoded =
      protocol::decode_input_specs(protocol::encode_input_specs(specs));
  REQUIRE(decoded.has_value());
  REQUIRE(decoded->size() == 2);
  for (size_t i = 0; i < specs.size(); ++i) {
    CHECK((*decoded)[i].name == specs[i].name);
    CHECK((*decoded)[i].type == specs[i].type);
    CHECK((*decoded)[i].exact_dtype == specs[i].exact_dtype);
    CHECK((*decoded)[i].data_file == specs[i].data_file);
  }
  const std::string good = protocol::encode_input_specs(specs);
  for (const std::string& bad :
       {good.substr(0, good.size() - 1), good + "0:,", std::string("1:"),
        std::string("99999999999999999999:x,"), std::string("1:1,3:f99,")}) {
    INFO(bad);
    CHECK(protocol::decode_input_specs(bad).status().code() == ErrorCode::kInvalidInput);
  }

  const Status error(ErrorCode::kUnsupported, "aten::sort", "ordered.1", {"model.py", 180});
  Expected<protocol::Result> result =
      protocol::decode_result(protocol::encode_result(error, {"a note"}, nullptr));
  REQUIRE(result.has_value());
  CHECK(result->status.to_string() == error.to_string());
  CHECK(result->status.code() == error.code());
  CHECK(result->notes == std::vector<std::string>{"a note"});
  CHECK(!result->reads_sizes);
  CHECK(protocol::decode_result(protocol::encode_result(error, {}, nullptr, true))->reads_sizes);
  // A graph: its text, then its constants' bytes, which must be as long as their types say.
  Expected<ir::Graph> graph = ir::parse_graph(
      "graph(%x: f32[2]) {\n  %c: f32[2] = constant [1.5, -0]\n  %y: f32[2] = add(%x, %c)\n"
      "  return %y\n}\n");
  REQUIRE(graph.has_value());
  const std::string encoded = protocol::encode_result(Status::ok(), {}, &*graph);
  Expected<protocol::Result> decoded_graph = protocol::decode_result(encoded);
  REQUIRE(decoded_graph.has_value());
  CHECK(ir::print_graph(decoded_graph->graph) == ir::print_graph(*graph));
  const std::string eight_bytes = "8:" + std::string(8, 'x') + ",";
  REQUIRE(encoded.ends_with(","));
  const std::string short_constant =
      encoded.substr(0, encoded.size() - eight_bytes.size()) + "4:abcd,";
  CHECK(protocol::decode_result(short_constant).status().message() ==
        "the data of its constant 'c' is not 8 bytes");
  CHECK(protocol::decode_result(encoded + "1:x,").status().code() == ErrorCode::kInternal);

  const std::string ok = protocol::encode_result(Status::ok(), {}, nullptr);
  for (const std::string& bad : {std::string(), std::string("garbage"), ok.substr(0, 20),
                                 ok + "graph(%x: f32[2]) {\n  return %y\n}\n"}) {
    INFO(bad);
    CHECK(protocol::decode_result(bad).status().code() == ErrorCode::kInternal);
  }
}

}  // namespace
}  // namespace inferno
