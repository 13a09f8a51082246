// The infernoc executable, run as a user would: its outputs, messages and exit codes.
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/catch.h"
#include "support/subprocess.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using test::fixture_path;

test::ProcessResult infernoc(std::vector<std::string> args) {
  args.insert(args.begin(), INFERNOC_EXE);
  return test::run_process(args);
}

/// A fresh, empty directory for one test's outputs.
std::filesystem::path scratch_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("infernoc_cli_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST_CASE("version and help flags exit 0") {
  auto version = infernoc({"--version"});
  CHECK(version.exit_code == 0);
  CHECK(contains(version.out, "infernoc "));
  auto help = infernoc({"--help"});
  CHECK(help.exit_code == 0);
  CHECK(contains(help.out, "--emit"));
  CHECK(contains(help.out, "Exit codes"));
}

TEST_CASE("command-line mistakes exit 3 with a message") {
  CHECK(infernoc({}).exit_code == 3);
  auto bad_emit = infernoc({fixture_path("mlp2/model.pt2"), "--emit", "exe"});
  CHECK(bad_emit.exit_code == 3);
  CHECK(contains(bad_emit.err, "--emit"));
  auto bad_spec = infernoc({fixture_path("mlp2/model.pt"), "--input", "x:4by16:f32", "--emit", "ir"});
  CHECK(bad_spec.exit_code == 3);
  CHECK(contains(bad_spec.err, "4by16"));
  auto bad_pass = infernoc({fixture_path("mlp2/model.pt2"), "--passes=dce,nosuchpass", "--emit", "ir"});
  CHECK(bad_pass.exit_code == 3);
  CHECK(contains(bad_pass.err, "unknown pass 'nosuchpass'"));
  auto reference_without_data = infernoc({fixture_path("mlp2/model.pt2"), "--reference", "--save-outputs", "x"});
  CHECK(reference_without_data.exit_code == 3);
  CHECK(contains(reference_without_data.err, "--data"));
}

TEST_CASE("emit ir prints the graph and -o writes it to a file") {
  auto result = infernoc({fixture_path("mlp2/model.pt2"), "--emit", "ir"});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK(contains(result.out, "graph("));
  CHECK(contains(result.out, "= linear("));
  CHECK(contains(result.out, "= relu("));
  CHECK(contains(result.out, "<elided>"));  // the weights, without --full-constants

  const auto dir = scratch_dir("emit");
  const std::string dot = (dir / "mlp2.dot").string();
  auto to_file = infernoc({fixture_path("mlp2/model.pt2"), "--emit", "dot", "-o", dot, "--quiet"});
  REQUIRE(to_file.exit_code == 0);
  CHECK(to_file.out.empty());
  CHECK(contains(test::read_text_file(dot), "digraph"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("print-after-all and -O0 control the pipeline") {
  auto all = infernoc({fixture_path("mlp2/model.pt2"), "--emit", "ir", "--print-after-all"});
  REQUIRE(all.exit_code == 0);
  CHECK(contains(all.err, "IR after dce"));
  auto none = infernoc({fixture_path("mlp2/model.pt2"), "--emit", "ir", "-O0", "--print-after-all"});
  REQUIRE(none.exit_code == 0);
  CHECK(!contains(none.err, "IR after"));
}

TEST_CASE("emit so is not available yet and says so with exit 2") {
  auto result = infernoc({fixture_path("mlp2/model.pt2"), "-o", "model.so"});
  CHECK(result.exit_code == 2);
  CHECK(contains(result.err, "--emit so"));
}

TEST_CASE("reference runs write outputs that match PyTorch") {
  struct Case {
    std::string model;
    std::string form;
    int inputs;
    int outputs;
  };
  const std::vector<Case> cases = {{"mlp2", "model.pt2", 1, 1},
                                   {"mlp2", "model.pt", 1, 1},
                                   {"elementwise_chain", "model_decomposed.pt2", 2, 2},
                                   {"elementwise_chain", "model.pt", 2, 2}};
  for (const Case& c : cases) {
    INFO(c.model << "/" << c.form);
    const auto dir = scratch_dir("reference");
    std::vector<std::string> args = {fixture_path(c.model + "/" + c.form), "--reference"};
    for (int i = 0; i < c.inputs; ++i) {
      args.push_back("--data");
      args.push_back(fixture_path(c.model + "/input" + std::to_string(i) + ".npy"));
    }
    args.push_back("--save-outputs");
    args.push_back((dir / "out").string());
    auto result = infernoc(args);
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    for (int i = 0; i < c.outputs; ++i) {
      auto compare = test::run_process({NPY_COMPARE_EXE, (dir / "out" / ("out" + std::to_string(i) + ".npy")).string(),
                                        fixture_path(c.model + "/output" + std::to_string(i) + ".npy")});
      INFO(compare.out << compare.err);
      CHECK(compare.exit_code == 0);
    }
    std::filesystem::remove_all(dir);
  }
}

TEST_CASE("data files that do not fit the model are an input error") {
  auto result = infernoc({fixture_path("mlp2/model.pt2"), "--reference", "--data",
                          fixture_path("elementwise_chain/input0.npy"), "--save-outputs", "unused"});
  CHECK(result.exit_code == 3);
  CHECK(contains(result.err, "input"));
}

TEST_CASE("model errors give their exit codes and name the problem") {
  struct Case {
    std::vector<std::string> args;
    int exit_code;
    std::vector<std::string> message_parts;
  };
  const std::vector<Case> cases = {
      {{fixture_path("errors/unsupported_ops.pt2")}, 2, {"unsupported ops", "aten::cumsum", "aten::topk"}},
      {{fixture_path("errors/unsupported_ops.pt"), "--input", "x:4x8:f32"}, 2, {"unsupported ops", "aten::cumsum"}},
      {{fixture_path("errors/truncated.pt2")}, 3, {"truncated.pt2"}},
      {{fixture_path("errors/weight_too_small.pt2")}, 3, {"weight"}},
      {{fixture_path("errors/pickle_entry.pt2")}, 3, {"pickle"}},
      {{fixture_path("errors/old_format.pt2")}, 3, {"torch"}},
      {{fixture_path("mlp2/model.pt")}, 3, {"--input"}},
      {{fixture_path("mlp2/model.pt"), "--input", "x:4x16:f32", "--input", "y:4x16:f32"}, 3, {"2"}},
      {{fixture_path("does_not_exist.pt2")}, 5, {"does_not_exist.pt2"}},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = c.args;
    args.insert(args.end(), {"--emit", "ir"});
    auto result = infernoc(args);
    INFO(args.front() << " -> exit " << result.exit_code << ": " << result.err);
    CHECK(result.exit_code == c.exit_code);
    CHECK(contains(result.err, "infernoc: error: "));
    for (const std::string& part : c.message_parts) CHECK(contains(result.err, part));
  }
}

TEST_CASE("an output that cannot be written is an I/O error") {
  auto result = infernoc({fixture_path("mlp2/model.pt2"), "--emit", "ir", "-o", "/nonexistent_dir/graph.ir"});
  CHECK(result.exit_code == 5);
  CHECK(contains(result.err, "/nonexistent_dir/graph.ir"));
}

}  // namespace
}  // namespace inferno
