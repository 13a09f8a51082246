// `infernoc verify` (cli/verify.h): reading what the device computed back from inferno-run's
// .npy files and judging each kernel on it, here with a "device" that is the reference
// interpreter itself with one value perturbed; and the command end to end, which on a machine
// without a GPU must stop with exit 4 and say why.
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli/tensor_io.h"
#include "cli/verify.h"
#include "codegen/keep_intermediates.h"
#include "driver/process.h"
#include "reference/interpreter.h"
#include "support/catch.h"
#include "support/subprocess.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using test::parse;

std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("infernoc_verify_test_" + name + "_" + std::to_string(::getpid()));
  driver::remove_tree(dir.string());
  std::filesystem::create_directories(dir);
  return dir;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

ir::Tensor tensor(const ir::TensorType& type, const std::vector<double>& values) {
  ir::Tensor t = ir::Tensor::zeros(type);
  for (size_t i = 0; i < values.size(); ++i) t.set(static_cast<int64_t>(i), values[i]);
  return t;
}

const char* const kGraph = R"(graph(%x: f32[2,3], %w: f32[3,4]) {
  %m: f32[2,4] = gemm(%x, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=false} loc("model.py":10)
  %r: f32[2,4] = relu(%m) loc("model.py":11)
  %v: f32[8] = reshape(%r) {shape=[8]} loc("model.py":12)
  %s: f32[8] = mul(%v, %v) loc("model.py":13)
  return %s
})";

struct Kept {
  ir::Graph graph;
  std::vector<int32_t> node_of_output;
  std::vector<ir::Tensor> inputs;
  std::vector<ir::Tensor> outputs;  ///< the reference's value of every output of the kept graph
};

Kept kept(const std::string& text, std::vector<ir::Tensor> inputs) {
  Kept k{parse(text), {}, std::move(inputs), {}};
  k.node_of_output = codegen::keep_intermediates(k.graph);
  auto outputs = reference::evaluate(k.graph, k.inputs);
  REQUIRE(outputs.has_value());
  k.outputs = std::move(*outputs);
  return k;
}

Kept mlp() {
  const ir::Graph graph = parse(kGraph);
  return kept(kGraph,
              {tensor(graph.type(graph.inputs()[0]), {1, -2, 3, 0.5, 4, -1}),
               tensor(graph.type(graph.inputs()[1]), {1, 2, 3, 4, -1, 0, 1, 2, 0.5, 0.25, -3, 1})});
}

// Writes the outputs as inferno-run --save-outputs does: out<i>.npy.
void write_outputs(const std::filesystem::path& dir, const std::vector<ir::Tensor>& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string path = (dir / ("out" + std::to_string(i) + ".npy")).string();
    REQUIRE(cli::write_tensor(path, outputs[i]).is_ok());
  }
}

Expected<reference::NodeCheck> check(const Kept& k, const std::filesystem::path& dir) {
  return cli::check_observed_outputs(k.graph, k.inputs, k.node_of_output, dir.string());
}

}  // namespace

TEST_CASE("verify reads the device's values back and names the node that is off", "[cli]") {
  const auto dir = fresh_dir("files");
  Kept k = mlp();
  // Outputs: s (the model's), then m and r kept; the reshape is a view and was not.
  REQUIRE(k.node_of_output == std::vector<int32_t>{3, 0, 1});

  SECTION("the reference's own values all match") {
    write_outputs(dir, k.outputs);
    auto result = check(k, dir);
    REQUIRE(result.has_value());
    CHECK_FALSE(result->mismatch.has_value());
    CHECK(result->nodes_compared == 3);
    CHECK(reference::describe_check(k.graph, *result) == "all 24 values match (3 nodes)");
  }
  SECTION("relu's element [1, 1] off: relu is named with its source line, not mul after it") {
    std::vector<ir::Tensor> device = k.outputs;
    device[2].set(5, device[2].get(5) + 0.5);
    // mul, computed by the device on its wrong relu, is right for what it was given.
    for (int64_t i = 0; i < 8; ++i) device[0].set(i, device[2].get(i) * device[2].get(i));
    write_outputs(dir, device);
    auto result = check(k, dir);
    REQUIRE(result.has_value());
    REQUIRE(result->mismatch.has_value());
    CHECK(result->mismatch->node == 1);
    const std::string text = reference::describe_check(k.graph, *result);
    CHECK(contains(text, "%r (relu) at model.py:11: element [1, 1] is "));
  }
  SECTION("the model's own output off: the last node is named") {
    std::vector<ir::Tensor> device = k.outputs;
    device[0].set(7, device[0].get(7) * 2 + 1);
    write_outputs(dir, device);
    auto result = check(k, dir);
    REQUIRE(result.has_value());
    REQUIRE(result->mismatch.has_value());
    CHECK(result->mismatch->node == 3);
    CHECK(contains(reference::describe_check(k.graph, *result), "%s (mul) at model.py:13"));
  }
  SECTION("a file of the wrong type or a missing one is an error, not a verdict") {
    std::vector<ir::Tensor> device = k.outputs;
    device[1] = ir::Tensor::zeros({ir::DType::kF64, {2, 4}});
    write_outputs(dir, device);
    auto wrong = check(k, dir);
    REQUIRE_FALSE(wrong.has_value());
    CHECK(wrong.status().code() == ErrorCode::kInternal);
    CHECK(contains(wrong.status().message(), "inferno-run wrote f64[2,4] for %m"));
    write_outputs(dir, k.outputs);
    std::filesystem::remove(dir / "out2.npy");
    auto missing = check(k, dir);
    REQUIRE_FALSE(missing.has_value());
    CHECK(missing.status().code() == ErrorCode::kIo);
  }
  driver::remove_tree(dir.string());
}

TEST_CASE("verify narrows the bf16 values inferno-run widened to float32", "[cli]") {
  const auto dir = fresh_dir("bf16");
  const char* const text = R"(graph(%x: bf16[4]) {
  %e: bf16[4] = exp(%x) loc("model.py":3)
  %n: bf16[4] = neg(%e) loc("model.py":4)
  return %n
})";
  Kept k = kept(text, {tensor({ir::DType::kBF16, {4}}, {0, 0.5, -1, 2})});
  write_outputs(dir, k.outputs);  // write_tensor widens bf16 to float32, as inferno-run does
  auto result = check(k, dir);
  REQUIRE(result.has_value());
  CHECK_FALSE(result->mismatch.has_value());
  CHECK(result->values_compared == 8);
  driver::remove_tree(dir.string());
}

TEST_CASE("infernoc verify checks its command line and needs nvcc and a GPU", "[cli]") {
  const std::string model = test::fixture_path("mlp2/model.pt2");
  const std::string data = test::fixture_path("mlp2/input0.npy");
  auto verify = [](std::vector<std::string> args) {
    args.insert(args.begin(), {INFERNOC_EXE, "verify"});
    return test::run_process(args);
  };
  auto help = verify({"--help"});
  CHECK(help.exit_code == 0);
  CHECK(contains(help.out, "6 a node's output is out of tolerance"));
  CHECK_FALSE(contains(help.out, "--corrupt-node"));  // for testing verify only

  auto no_data = verify({model});
  CHECK(no_data.exit_code == 3);
  CHECK(contains(no_data.err, "verify needs --data for every model input"));
  CHECK(verify({model, "--data", data, "--emit", "ir"}).exit_code == 3);  // not a verify flag

  auto no_nvcc = verify({model, "--data", data, "--nvcc", "/nonexistent/nvcc"});
  CHECK(no_nvcc.exit_code == 4);
  CHECK(contains(no_nvcc.err, "/nonexistent/nvcc"));

  // The whole way: compiled with the intermediates kept, then run by inferno-run. Without a GPU
  // (or without the runtime built) that is exit 4, saying so; on a GPU every value matches.
  auto run = verify({model, "--data", data});
  INFO(run.err);
  if (run.exit_code == 4) {
    CHECK((contains(run.err,
                    "infernoc verify runs the model on a GPU, and there is none it can "
                    "use: inferno-run: error: ") ||
           contains(run.err, "cannot find the model runner inferno-run")));
  } else {
    CHECK(run.exit_code == 0);
    CHECK(contains(run.out, "verify: all "));
  }

  // With mlp2's first GEMM (%relu, its fused bias and ReLU) deliberately corrupted: the library
  // still builds (exit 4 comes after nvcc), and on a GPU verify names that node.
  auto corrupted = verify({model, "--data", data, "--corrupt-node", "relu"});
  INFO(corrupted.err);
  if (corrupted.exit_code != 4) {
    CHECK(corrupted.exit_code == 6);
    CHECK(contains(corrupted.err, "infernoc: error: verify: %relu (gemm)"));
  }
  CHECK_FALSE(contains(corrupted.err, "--corrupt-node"));  // the name was found
}

}  // namespace inferno
