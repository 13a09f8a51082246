// Generated model.cu for the fixture models, compared with test/golden/codegen/<model>.cu (a
// refactor shows no diff, or explains each one). INFERNO_UPDATE_GOLDEN=1 rewrites the goldens.
// Also: generation is deterministic, and the weights blob is laid out and checksummed as the ABI
// says.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/tensor_io.h"
#include "codegen/codegen.h"
#include "frontend/frontend.h"
#include "inferno/model_abi.h"
#include "passes/pipeline.h"
#include "support/catch.h"
#include "support/model_loading.h"
#include "support/test_support.h"

namespace inferno {
namespace {

const std::vector<std::string> kModels = {"mm_relu", "mlp2", "mlp_gelu_silu_softmax",
                                          "elementwise_chain", "bmm_matmul"};

// One golden per lowering family, beyond the GEMM and elementwise models above: test/golden/
// codegen/<name>.cu from fixture <fixture> (model.pt2, or TorchScript model.pt with its inputs'
// types) after the default pipeline at <precision>.
struct FamilyGolden {
  std::string name, fixture;
  target::Precision precision = target::Precision::kFp32;
};
const std::vector<FamilyGolden> kFamilyGoldens = {
    {"cnn_block", "cnn_block"},                       // conv2d with bias, residual and activation
    {"transformer_gpt2", "transformer_gpt2"},         // attention reading q, k, v through views
    {"norms", "norms"},                               // layer, group and rms norms
    {"cnn_ops", "cnn_ops"},                           // pooling
    {"resize", "resize"},                             // nearest and bilinear upsampling
    {"joins", "joins"},                               // cat, constant_pad, index_select
    {"slicing", "slicing"},                           // slices and gathers
    {"mlp2_fp16", "mlp2", target::Precision::kFp16},  // GEMMs after convert-precision
};

codegen::CodegenOptions golden_options() {
  codegen::CodegenOptions options;
  options.target.sm_archs = {90};
  options.source_model_hash = "0";
  options.cuda_version = "13.0";
  return options;
}

ir::Graph optimized_fixture(const std::string& model) {
  auto graph = test::load_model(test::fixture_path(model + "/model.pt2"), {});
  INFO(model << ": " << (graph ? "" : graph.status().to_string()));
  REQUIRE(graph.has_value());
  const Status status = passes::run_default_pipeline(*graph, {});
  INFO(status.to_string());
  REQUIRE(status.is_ok());
  return std::move(*graph);
}

/// The fixture's model.pt2, else its TorchScript model.pt.
std::string family_model(const FamilyGolden& golden) {
  const std::string dir = test::fixture_path(golden.fixture);
  return std::filesystem::exists(dir + "/model.pt2") ? dir + "/model.pt2" : dir + "/model.pt";
}

ir::Graph optimized_family_fixture(const FamilyGolden& golden) {
  const std::string dir = test::fixture_path(golden.fixture);
  frontend::LoadOptions load;
  const std::string model = family_model(golden);
  if (model.ends_with(".pt")) {
    // TorchScript: the input types come from the fixture's inputs.
    for (int i = 0; std::filesystem::exists(dir + "/input" + std::to_string(i) + ".npy"); ++i) {
      auto input = cli::read_tensor(dir + "/input" + std::to_string(i) + ".npy");
      REQUIRE(input.has_value());
      load.inputs.push_back({"", input->type});
    }
  }
  auto graph = test::load_model(model, load);
  INFO(golden.name << ": " << (graph ? "" : graph.status().to_string()));
  REQUIRE(graph.has_value());
  passes::PipelineOptions pipeline;
  pipeline.pass_options.target.precision = golden.precision;
  const Status status = passes::run_default_pipeline(*graph, pipeline);
  INFO(status.to_string());
  REQUIRE(status.is_ok());
  return std::move(*graph);
}

codegen::GeneratedModel generate_fixture(const std::string& model) {
  const ir::Graph graph = optimized_fixture(model);
  auto generated = codegen::generate(graph, golden_options());
  INFO(model << ": " << (generated ? "" : generated.status().to_string()));
  REQUIRE(generated.has_value());
  return std::move(*generated);
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// "" when equal; else the first differing line with a little context, diff style.
std::string first_difference(const std::string& expected, const std::string& actual) {
  if (expected == actual) return "";
  const std::vector<std::string> e = split_lines(expected), a = split_lines(actual);
  size_t line = 0;
  while (line < e.size() && line < a.size() && e[line] == a[line]) ++line;
  std::ostringstream out;
  out << "first difference at line " << line + 1 << "\n";
  for (size_t i = line >= 3 ? line - 3 : 0; i < line; ++i) out << "  " << e[i] << "\n";
  for (size_t i = line; i < std::min(e.size(), line + 4); ++i) out << "- " << e[i] << "\n";
  for (size_t i = line; i < std::min(a.size(), line + 4); ++i) out << "+ " << a[i] << "\n";
  if (e.size() != a.size())
    out << "(golden has " << e.size() << " lines, generated " << a.size() << ")\n";
  return out.str();
}

}  // namespace

TEST_CASE("generated model.cu matches the golden copy for every fixture", "[codegen]") {
  const bool update = std::getenv("INFERNO_UPDATE_GOLDEN") != nullptr;
  for (const std::string& model : kModels) {
    const codegen::GeneratedModel generated = generate_fixture(model);
    const std::string path = test::golden_path("codegen/" + model + ".cu");
    if (update) std::ofstream(path, std::ios::binary) << generated.cuda_source;
    INFO(model << " vs " << path << " (INFERNO_UPDATE_GOLDEN=1 rewrites it)");
    CHECK(first_difference(test::read_text_file(path), generated.cuda_source) == "");
  }
}

TEST_CASE("generation is deterministic", "[codegen]") {
  for (const std::string& model : kModels) {
    INFO(model);
    const ir::Graph graph = optimized_fixture(model);
    auto first = codegen::generate(graph, golden_options());
    auto second = codegen::generate(optimized_fixture(model), golden_options());
    REQUIRE(first.has_value());
    REQUIRE(second.has_value());
    CHECK(first->cuda_source == second->cuda_source);
    CHECK(first->weights == second->weights);
    CHECK(first->exports_map == second->exports_map);
  }
}

TEST_CASE("generated model.cu matches the golden copy for every lowering family", "[codegen]") {
  const bool update = std::getenv("INFERNO_UPDATE_GOLDEN") != nullptr;
  for (const FamilyGolden& golden : kFamilyGoldens) {
    if (!test::can_load(family_model(golden))) continue;
    auto generated = codegen::generate(optimized_family_fixture(golden), golden_options());
    INFO(golden.name << ": " << (generated ? "" : generated.status().to_string()));
    REQUIRE(generated.has_value());
    const std::string path = test::golden_path("codegen/" + golden.name + ".cu");
    if (update) std::ofstream(path, std::ios::binary) << generated->cuda_source;
    INFO("INFERNO_UPDATE_GOLDEN=1 ./test/test_codegen rewrites " << path);
    CHECK(first_difference(test::read_text_file(path), generated->cuda_source).empty());
  }
}

TEST_CASE("the weights blob holds every stored constant at a 256-byte aligned offset",
          "[codegen]") {
  for (const std::string& model : kModels) {
    INFO(model);
    const ir::Graph graph = optimized_fixture(model);
    const codegen::GeneratedModel generated = generate_fixture(model);
    CHECK(generated.weights_checksum ==
          inferno_weights_checksum(generated.weights.data(), generated.weights.size()));
    // Every constant of rank > 0 is in the blob, byte for byte, at an aligned offset that model.cu
    // names in the pointer declaration "reinterpret_cast<const T*>(weights + OFFSET)".
    int64_t expected_end = 0;
    for (const ir::ValueId c : graph.constants()) {
      const ir::Value& value = graph.value(c);
      if (value.type.rank() == 0) continue;
      const int64_t offset = (expected_end + 255) / 256 * 256;
      REQUIRE(offset + value.type.size_bytes() <= static_cast<int64_t>(generated.weights.size()));
      CHECK(std::equal(value.constant->data.begin(), value.constant->data.end(),
                       generated.weights.begin() + offset));
      expected_end = offset + value.type.size_bytes();
    }
    CHECK(static_cast<int64_t>(generated.weights.size()) == expected_end);
  }
}

TEST_CASE("model.cu embeds weights.bin and names its checksum and sizes", "[codegen]") {
  const codegen::GeneratedModel generated = generate_fixture("mlp2");
  const std::string& cu = generated.cuda_source;
  CHECK(cu.find(".incbin \\\"weights.bin\\\"") != std::string::npos);
  CHECK(cu.find("#if !defined(__CUDA_ARCH__) && INFERNO_MODEL_MAIN") != std::string::npos);
  char checksum[32];
  std::snprintf(checksum, sizeof checksum, "0x%016llxull",
                static_cast<unsigned long long>(generated.weights_checksum));
  CHECK(cu.find(checksum) != std::string::npos);
  CHECK(cu.find("constexpr uint64_t kWeightsBytes = " + std::to_string(generated.weights.size()) +
                ";") != std::string::npos);
  CHECK(generated.exports_map ==
        "{\n  global:\n    inferno_model_describe;\n    inferno_model_describe_profile;\n  "
        "local:\n    *;\n};\n");

  codegen::CodegenOptions external = golden_options();
  external.external_weights_file = "model.weights";
  auto outside = codegen::generate(optimized_fixture("mlp2"), external);
  REQUIRE(outside.has_value());
  CHECK(outside->cuda_source.find(".incbin") == std::string::npos);
  CHECK(outside->cuda_source.find("nullptr, \"model.weights\",") != std::string::npos);
  CHECK(outside->weights == generated.weights);
}

}  // namespace inferno
