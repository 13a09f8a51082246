#include "cli/verify.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "cli/compile_steps.h"
#include "cli/tensor_io.h"
#include "codegen/keep_intermediates.h"
#include "driver/helper_program.h"
#include "driver/process.h"
#include "driver/scratch_dir.h"
#include "passes/legalize.h"
#include "support/check.h"

namespace inferno::cli {
namespace {

namespace fs = std::filesystem;

/// One run of a model on the GPU; a run still going after this long is hung.
constexpr std::chrono::minutes kRunTimeout{10};
/// An .npy header is at most 64 KiB (version 1.0) plus NumPy's padding; generous on purpose.
constexpr uint64_t kNpyHeaderBytes = 128 << 10;

/// $INFERNO_RUN, else inferno-run beside infernoc (both installed in <prefix>/bin), else in the
/// build tree's runtime/ (INFERNO_RUN_BUILD_DIR, relative to infernoc's directory there).
Expected<std::string> find_inferno_run() {
  return driver::find_helper_program(
      {"the model runner", "inferno-run", "INFERNO_RUN", {".", INFERNO_RUN_BUILD_DIR}});
}

/// inferno-run's exit codes are infernoc's (runtime/tools/inferno_run.cpp); 4 is no usable GPU.
Status runner_failed(const driver::ProcessResult& run) {
  const std::string said = run.last_line();
  if (run.exit_code == static_cast<int>(ErrorCode::kToolchain)) {
    return toolchain_error("infernoc verify runs the model on a GPU, and there is none it can use" +
                           (said.empty() ? std::string() : ": " + said));
  }
  const bool known = run.exit_code >= static_cast<int>(ErrorCode::kInternal) &&
                     run.exit_code <= static_cast<int>(ErrorCode::kIo);
  const std::string message =
      "inferno-run ended with " + run.describe_end() + (said.empty() ? std::string() : ": " + said);
  return known ? Status(static_cast<ErrorCode>(run.exit_code), message) : internal_error(message);
}

/// What inferno-run wrote for output `index`, as a tensor of `type`.
Expected<ir::Tensor> read_observed(const std::string& dir, size_t index, const ir::TensorType& type,
                                   const std::string& name) {
  const std::string path = (fs::path(dir) / ("out" + std::to_string(index) + ".npy")).string();
  std::error_code ec;
  const uintmax_t bytes = fs::file_size(path, ec);
  if (ec) return io_error("verify: cannot read '" + path + "': " + ec.message());
  // At most 8 bytes an element (a bf16 widened to f32 takes 4) and the header.
  if (bytes > static_cast<uint64_t>(type.numel()) * 8 + kNpyHeaderBytes) {
    return internal_error("verify: '" + path + "' is " + std::to_string(bytes) +
                          " bytes, too large for %" + name + " (" + type.to_string() + ")");
  }
  INFERNO_ASSIGN_OR_RETURN(ir::Tensor tensor, read_tensor(path));
  if (type.dtype == ir::DType::kBF16 &&
      tensor.type == ir::TensorType{ir::DType::kF32, type.shape}) {
    ir::Tensor narrowed = ir::Tensor::zeros(type);  // exact: inferno-run widened a bf16
    for (int64_t i = 0; i < tensor.numel(); ++i) narrowed.set(i, tensor.get(i));
    tensor = std::move(narrowed);
  }
  if (tensor.type != type) {
    return internal_error("verify: inferno-run wrote " + tensor.type.to_string() + " for %" + name +
                          ", which is " + type.to_string());
  }
  return tensor;
}

}  // namespace

Expected<reference::NodeCheck> check_observed_outputs(
    const ir::Graph& graph, const std::vector<ir::Tensor>& inputs,
    const std::vector<int32_t>& node_of_output, const std::string& dir,
    const reference::AllowanceOptions& allowance) {
  INFERNO_CHECK(node_of_output.size() == graph.outputs().size(),
                "verify: one node index per graph output");
  std::vector<std::optional<ir::Tensor>> observed(graph.nodes().size());
  for (size_t i = 0; i < node_of_output.size(); ++i) {
    const int32_t node = node_of_output[i];
    if (node < 0) continue;  // an output that is an input or a constant: no kernel wrote it
    const ir::ValueId v = graph.outputs()[i];
    INFERNO_ASSIGN_OR_RETURN(observed[static_cast<size_t>(node)],
                             read_observed(dir, i, graph.type(v), graph.name(v)));
  }
  return reference::check_nodes(
      graph, inputs,
      [&](int32_t n) -> const ir::Tensor* {
        const std::optional<ir::Tensor>& tensor = observed[static_cast<size_t>(n)];
        return tensor ? &*tensor : nullptr;
      },
      allowance);
}

Status run_verify(const CliOptions& options) {
  StageTimes times;
  const LogStageTimesAtExit log_times(times);
  driver::ScratchDir scratch;
  INFERNO_RETURN_IF_ERROR(scratch.create("infernoc-verify-", "infernoc verify"));
  // The library goes into the scratch directory: a normal --emit so build otherwise.
  CliOptions build = options;
  build.emit = Emit::kSharedObject;
  build.output = (scratch.path() / "model.so").string();
  build.weights = WeightsMode::kEmbedded;
  // The environment first (nvcc, then inferno-run), before any time goes into the model.
  INFERNO_ASSIGN_OR_RETURN(const BackendPlan backend,
                           times.time(Stage::kToolchain, [&] { return plan_backend(build); }));
  INFERNO_ASSIGN_OR_RETURN(const std::string runner, find_inferno_run());

  std::vector<ir::Tensor> data;
  INFERNO_ASSIGN_OR_RETURN(const frontend::LoadOptions load, load_options(options, data));
  INFERNO_ASSIGN_OR_RETURN(ir::Graph graph, times.time(Stage::kFrontend, [&] {
    return frontend::load_model(options.model, load);
  }));
  const Status optimized = times.time(Stage::kPasses, [&] {
    INFERNO_RETURN_IF_ERROR(optimize(graph, options, backend.target));
    return passes::legalize(graph, {});
  });
  INFERNO_RETURN_IF_ERROR(optimized);
  if (graph.num_states() > 0) {
    return unsupported(
        "infernoc verify: models with state (an LLM's KV cache) are not supported; "
        "verify one step as a model without state");
  }
  INFERNO_ASSIGN_OR_RETURN(const std::vector<ir::Tensor> inputs,
                           model_inputs(graph, options, data));
  const std::vector<int32_t> node_of_output = codegen::keep_intermediates(graph);
  spdlog::info("verify: {} nodes, {} outputs with the intermediates kept", graph.nodes().size(),
               graph.outputs().size());
  INFERNO_RETURN_IF_ERROR(run_backend({&graph}, build, backend, times));

  const std::string observed_dir = (scratch.path() / "observed").string();
  std::vector<std::string> argv = {runner, build.output};
  for (const std::string& file : options.data_files) {
    argv.push_back("--data");
    argv.push_back(fs::absolute(file).string());  // never read as an option
  }
  for (const char* arg : {"--save-outputs", observed_dir.c_str(), "--no-graph"})
    argv.emplace_back(arg);
  driver::RunOptions run_options;
  run_options.timeout = kRunTimeout;
  spdlog::debug("verify: {}", driver::shell_quote(argv));
  INFERNO_ASSIGN_OR_RETURN(const driver::ProcessResult run, driver::run_program(argv, run_options));
  if (!run.succeeded()) return runner_failed(run);

  reference::AllowanceOptions allowance;
  allowance.tf32_gemms = backend.target.tf32();  // f32 GEMMs on TF32 tensor cores
  INFERNO_ASSIGN_OR_RETURN(
      const reference::NodeCheck check,
      check_observed_outputs(graph, inputs, node_of_output, observed_dir, allowance));
  const std::string result = reference::describe_check(graph, check);
  if (check.mismatch) return Status(kVerifyMismatch, "verify: " + result);
  std::printf("verify: %s\n", result.c_str());
  return std::fflush(stdout) == 0 ? Status::ok() : io_error("cannot write to stdout");
}

}  // namespace inferno::cli
