// Every fixture's generated model.cu compiles with the real nvcc for sm_90a (warnings are errors),
// links into a model.so that exports only inferno_model_describe and its profile table, and passes
// the runtime's GPU-less inspection (inferno_model_check: ABI, descriptors, weights checksum,
// archs). This proves the generated code, the ABI struct, the embedded weights and the manifest
// agree, without a GPU. Skips when /usr/local/cuda/bin/nvcc is missing. Label nvcc: a few seconds
// per model.
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/tensor_io.h"
#include "codegen/codegen.h"
#include "codegen/profile_plan.h"
#include "codegen_samples.h"
#include "driver/build.h"
#include "frontend/frontend.h"
#include "passes/pipeline.h"
#include "reference/interpreter.h"
#include "support/catch.h"
#include "support/subprocess.h"
#include "support/test_support.h"

#if INFERNO_HAVE_RUNTIME
#include "inferno/runtime.h"
#endif

namespace inferno {
namespace {

namespace fs = std::filesystem;

const char* const kNvcc = "/usr/local/cuda/bin/nvcc";
const std::vector<std::string> kModels = {"mm_relu", "mlp2", "mlp_gelu_silu_softmax",
                                          "elementwise_chain", "bmm_matmul"};

// A fresh directory under /tmp, removed with everything in it at the end of the scope.
class TempDir {
 public:
  TempDir() {
    char name[] = "/tmp/inferno_codegen_nvcc_XXXXXX";
    REQUIRE(mkdtemp(name) != nullptr);
    path_ = name;
  }
  ~TempDir() { driver::remove_tree(path_); }  // not fs::remove_all: see driver/build.h
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void write_file(const fs::path& path, const void* data, size_t size) {
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  REQUIRE(out.good());
}

codegen::GeneratedModel generate(const ir::Graph& graph, const std::string& external_weights = "") {
  codegen::CodegenOptions options;
  options.target.sm_archs = {90};
  options.source_model_hash = "0";
  options.cuda_version = "13.0";
  options.external_weights_file = external_weights;
  auto generated = codegen::generate(graph, options);
  INFO((generated ? "" : generated.status().to_string()));
  REQUIRE(generated.has_value());
  return std::move(*generated);
}

ir::Graph fixture(const std::string& model) {
  auto graph = frontend::load_model(test::fixture_path(model + "/model.pt2"), {});
  REQUIRE(graph.has_value());
  REQUIRE(passes::run_default_pipeline(*graph, {}).is_ok());
  return std::move(*graph);
}

// Writes the build directory the way the driver does and runs nvcc in it; returns model.so's path.
std::string build(const codegen::GeneratedModel& model, const std::string& dir) {
  write_file(fs::path(dir) / "model.cu", model.cuda_source.data(), model.cuda_source.size());
  write_file(fs::path(dir) / "exports.map", model.exports_map.data(), model.exports_map.size());
  write_file(fs::path(dir) / "weights.bin", model.weights.data(), model.weights.size());
  const std::string root = INFERNO_SOURCE_DIR;
  const std::vector<std::string> argv = {kNvcc,
                                         "-O1",
                                         "-std=c++17",
                                         "--shared",
                                         "-Werror",
                                         "all-warnings",
                                         "-Xcompiler",
                                         "-fPIC,-fvisibility=hidden,-Wall,-Wextra,-Werror",
                                         "-cudart",
                                         "static",
                                         "-I" + root,
                                         "-I" + root + "/include",
                                         "-gencode=arch=compute_90a,code=sm_90a",
                                         "-Xlinker",
                                         "--version-script=exports.map",
                                         "-Xlinker",
                                         "--no-undefined",
                                         "-o",
                                         "model.so",
                                         "model.cu",
                                         "-lcublasLt",
                                         "-lcublas"};
  const auto result = test::run_process(argv, dir);
  INFO(result.out << result.err);
  REQUIRE(result.exit_code == 0);
  return dir + "/model.so";
}

std::vector<std::string> exported_symbols(const std::string& library) {
  const auto result = test::run_process({INFERNO_NM, "-D", "--defined-only", library});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  std::vector<std::string> names;
  std::istringstream lines(result.out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) names.push_back(line.substr(line.rfind(' ') + 1));
  }
  return names;
}

void check_with_runtime(const std::string& library) {
#if INFERNO_HAVE_RUNTIME
  const inferno_status status = inferno_model_check(library.c_str(), 90);
  INFO(inferno_last_error());
  CHECK(status == INFERNO_STATUS_OK);
  CHECK(inferno_model_check(library.c_str(), 80) == INFERNO_STATUS_ARCH_MISMATCH);
#else
  WARN("runtime not built (no CUDA found by CMake): " << library << " not inspected");
#endif
}

}  // namespace

TEST_CASE("nvcc compiles every fixture into a model.so the runtime accepts", "[codegen][nvcc]") {
  if (!fs::exists(kNvcc)) {
    WARN("SKIPPED: " << kNvcc << " not found");
    return;
  }
  for (const std::string& model : kModels) {
    INFO(model);
    const codegen::GeneratedModel generated = generate(fixture(model));
    const TempDir dir;
    const auto start = std::chrono::steady_clock::now();
    const std::string library = build(generated, dir.path());
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    WARN("nvcc " << model << ": " << seconds << " s");
    CHECK(exported_symbols(library) ==
          std::vector<std::string>{"inferno_model_describe", "inferno_model_describe_profile"});
    check_with_runtime(library);
  }
  {
    INFO("every op sample on every dtype, in one model");
    const codegen::GeneratedModel generated = generate(test::kitchen_sink_graph());
    // Among them GEMM epilogue routes of cuBLASLt (the batched and f64 samples, and those with a
    // scalar addend) and of the GEMV kernel (the other 6-row products, both weight layouts, and
    // norm_gemm's with the norm fused), and
    // fused bodies with f16/bf16 steps, broadcasts, casts.
    for (const char* part :
         {"CUBLASLT_EPILOGUE_RELU,", "(C matrix)", "(broadcast-copied into the output, read as C)",
          "_gemm_epilogue_add_gelu_bf16_", "_gemm_epilogue_relu_f64_", "CUDA_R_16BF",
          "_gemv_nk_f16_6x4x5(", "_gemv_kn_bf16_6x4x5(", "_gemv_nk_f32_6x4x5(",
          "_gemv_nk_layer_norm_f16_6x4x5(", "_gemv_nk_rms_norm_bf16_6x4x5(",
          "_fused_cast_f16_mul_cast_bf16_add_bf16_", "_fused_add_mul_gelu_tanh_f16_",
          "kernels::attention<__half, 32>(", "kernels::attention<double, 32>("}) {
      CHECK(generated.cuda_source.find(part) != std::string::npos);
    }
    const TempDir dir;
    check_with_runtime(build(generated, dir.path()));
  }
  {
    INFO("external weights: the blob beside the .so");
    const codegen::GeneratedModel generated = generate(fixture("mlp2"), "mlp2.weights");
    const TempDir dir;
    const std::string library = build(generated, dir.path());
    write_file(fs::path(dir.path()) / "mlp2.weights", generated.weights.data(),
               generated.weights.size());
    check_with_runtime(library);
  }
}

// A decode step of Llama and Qwen2 recipe exports in fp16, the shape whose kernels are the most
// specialised: the gated MLP's step in its GEMV (codegen/gemv_pairs.h), the rotaries and cache
// writes as one launch group (codegen/launch_groups.h), the decode attention.
TEST_CASE("nvcc compiles fp16 decode steps of Llama and Qwen2 into model.so files",
          "[codegen][nvcc]") {
  if (!fs::exists(kNvcc)) {
    WARN("SKIPPED: " << kNvcc << " not found");
    return;
  }
  for (const std::string model : {"hf/llama/decoder.pt2", "hf/qwen2/decoder.pt2"}) {
    INFO(model);
    frontend::LoadOptions options;
    options.inputs.push_back({"input_ids", {ir::DType::kI64, {1, 1}}});
    options.inputs.push_back({"cache_position", {ir::DType::kI64, {1}}});
    auto graph = frontend::load_model(test::fixture_path(model), options);
    INFO((graph ? "" : graph.status().to_string()));
    REQUIRE(graph.has_value());
    passes::PipelineOptions pipeline;
    pipeline.pass_options.target.precision = target::Precision::kFp16;
    REQUIRE(passes::run_default_pipeline(*graph, pipeline).is_ok());
    const codegen::GeneratedModel generated = generate(*graph);
    for (const char* part : {"_pairs(", "_launch_group(", "const auto pair = [](__half first"})
      CHECK(generated.cuda_source.find(part) != std::string::npos);
    const TempDir dir;
    check_with_runtime(build(generated, dir.path()));
  }
}

// Real Hugging Face exports (tools/export_hf_fixtures.py): a causal LM with a padding mask (the
// mask construction's gathers, cumsum and comparisons, rotary embeddings, GQA-free attention) and
// an encoder (T5's relative position buckets: min, log, integer casts, an embedding gather).
TEST_CASE("nvcc compiles Hugging Face exports into model.so files the runtime accepts",
          "[codegen][nvcc]") {
  if (!fs::exists(kNvcc)) {
    WARN("SKIPPED: " << kNvcc << " not found");
    return;
  }
  for (const std::string model : {"hf/llama/masked.pt2", "hf/t5_encoder/masked.pt2"}) {
    INFO(model);
    frontend::LoadOptions options;
    for (const char* input : {"input_ids", "attention_mask"})
      options.inputs.push_back({input, {ir::DType::kI64, {2, 7}}});
    auto graph = frontend::load_model(test::fixture_path(model), options);
    INFO((graph ? "" : graph.status().to_string()));
    REQUIRE(graph.has_value());
    REQUIRE(passes::run_default_pipeline(*graph, {}).is_ok());
    const TempDir dir;
    const auto start = std::chrono::steady_clock::now();
    const std::string library = build(generate(*graph), dir.path());
    WARN("nvcc " << model << ": "
                 << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()
                 << " s");
    check_with_runtime(library);
  }
}

// For checking generated code on a GPU elsewhere (hidden: run it by its tag): builds every fixture
// and the kitchen sink into $INFERNO_CODEGEN_BUNDLE/<name>/model.so, with the kitchen sink's input
// and reference outputs (from the CPU interpreter) as input0.npy, output<i>.npy and labels.txt.
TEST_CASE("nvcc compiles 16-bit models whose descriptors carry the io dtypes", "[codegen][nvcc]") {
  if (!fs::exists(kNvcc)) {
    WARN("SKIPPED: " << kNvcc << " not found");
    return;
  }
  const size_t f32_weights = generate(fixture("mlp2")).weights.size();
  for (const auto precision : {target::Precision::kFp16, target::Precision::kBf16}) {
    for (const auto io : {passes::IoPrecision::kModel, passes::IoPrecision::kCompute}) {
      const bool half = precision == target::Precision::kFp16;
      INFO((half ? "fp16" : "bf16") << (io == passes::IoPrecision::kModel ? " model" : " compute"));
      auto graph = frontend::load_model(test::fixture_path("mlp2/model.pt2"), {});
      REQUIRE(graph.has_value());
      passes::PipelineOptions pipeline;
      pipeline.pass_options.target.precision = precision;
      pipeline.pass_options.io_precision = io;
      REQUIRE(passes::run_default_pipeline(*graph, pipeline).is_ok());
      const codegen::GeneratedModel generated = generate(*graph);
      CHECK(generated.weights.size() * 10 < f32_weights * 6);  // about half, padding aside
      const TempDir dir;
      const std::string library = build(generated, dir.path());
      check_with_runtime(library);
#if INFERNO_HAVE_RUNTIME
      // An inspection-only load (no GPU) reads the descriptors the runtime checks calls against.
      inferno_loaded_model* model = nullptr;
      REQUIRE(inferno_model_load(library.c_str(), INFERNO_DEVICE_NONE, &model) ==
              INFERNO_STATUS_OK);
      inferno_tensor_desc in{}, out{};
      CHECK(inferno_model_input(model, 0, &in) == INFERNO_STATUS_OK);
      CHECK(inferno_model_output(model, 0, &out) == INFERNO_STATUS_OK);
      const int32_t expected = io == passes::IoPrecision::kModel ? INFERNO_DTYPE_F32
                               : half                            ? INFERNO_DTYPE_F16
                                                                 : INFERNO_DTYPE_BF16;
      CHECK(in.dtype == expected);
      CHECK(out.dtype == expected);
      CHECK(inferno_model_unload(model) == INFERNO_STATUS_OK);
#endif
    }
  }
}

TEST_CASE("build a bundle of models for a GPU check", "[.][gpu_bundle]") {
  const char* bundle = std::getenv("INFERNO_CODEGEN_BUNDLE");
  if (bundle == nullptr || !fs::exists(kNvcc)) {
    WARN("SKIPPED: set INFERNO_CODEGEN_BUNDLE to a directory (and have nvcc)");
    return;
  }
  for (const std::string& model : kModels) {
    const fs::path dir = fs::path(bundle) / model;
    fs::create_directories(dir);
    build(generate(fixture(model)), dir.string());
  }
  const fs::path dir = fs::path(bundle) / "kitchen";
  fs::create_directories(dir);
  std::vector<std::string> labels;
  const ir::Graph graph = test::kitchen_sink_graph(&labels);
  build(generate(graph), dir.string());
  const ir::Tensor x = test::random_tensor(graph.type(graph.inputs()[0]), 7);
  auto outputs = reference::evaluate(graph, {x});
  REQUIRE(outputs.has_value());
  REQUIRE(cli::write_tensor((dir / "input0.npy").string(), x).is_ok());
  std::string text;
  for (size_t i = 0; i < outputs->size(); ++i) {
    REQUIRE(
        cli::write_tensor((dir / ("output" + std::to_string(i) + ".npy")).string(), (*outputs)[i])
            .is_ok());
    text += labels[i] + "\n";
  }
  write_file(dir / "labels.txt", text.data(), text.size());
}

#if INFERNO_HAVE_RUNTIME
TEST_CASE("a model.so's profile table reads back through the runtime", "[codegen][nvcc]") {
  if (!fs::exists(kNvcc)) {
    WARN("SKIPPED: " << kNvcc << " not found");
    return;
  }
  // GPT-2's layer: GEMMs with cuBLASLt and an epilogue kernel, attention, views without steps.
  const ir::Graph graph = fixture("transformer_gpt2");
  codegen::CodegenOptions options;
  options.target.sm_archs = {90};
  auto plan = codegen::profile_plan(graph, options);
  REQUIRE(plan.has_value());
  const TempDir dir;
  const std::string library = build(generate(graph), dir.path());
  inferno_loaded_model* model = nullptr;
  REQUIRE(inferno_model_load(library.c_str(), INFERNO_DEVICE_NONE, &model) == INFERNO_STATUS_OK);
  const inferno_kernel_cost* steps = nullptr;
  int32_t count = -1;
  CHECK(inferno_model_profile_steps(model, 0, &steps, &count) == INFERNO_STATUS_OK);
  REQUIRE(count == static_cast<int32_t>(plan->size()));
  bool has_attention = false;
  for (int32_t i = 0; i < count; ++i) {
    const codegen::KernelCost& expected = (*plan)[static_cast<size_t>(i)];
    INFO("step " << i << ": %" << expected.node_name);
    CHECK(steps[i].node == expected.node);
    CHECK(steps[i].launches == static_cast<int32_t>(expected.kernels.size()));
    CHECK(std::string(steps[i].node_name) == expected.node_name);
    CHECK(std::string(steps[i].op) == expected.op);
    CHECK(std::string(steps[i].location) == expected.loc.to_string());
    CHECK(std::string(steps[i].kernel) == expected.choice);
    CHECK(steps[i].flops == expected.work.flops);
    CHECK(steps[i].bytes_read == static_cast<uint64_t>(expected.work.bytes_read));
    CHECK(steps[i].bytes_written == static_cast<uint64_t>(expected.work.bytes_written));
    has_attention |= expected.op == "attention";
  }
  CHECK(has_attention);
  CHECK(inferno_model_profile_steps(model, 1, &steps, &count) == INFERNO_STATUS_INVALID_ARGUMENT);
  CHECK(inferno_model_unload(model) == INFERNO_STATUS_OK);
}
#endif

}  // namespace inferno
