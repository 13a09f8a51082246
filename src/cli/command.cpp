#include "cli/command.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <spdlog/spdlog.h>

#include "cli/tensor_io.h"
#include "frontend/frontend.h"
#include "ir/dot.h"
#include "ir/printer.h"
#include "passes/pipeline.h"
#include "reference/interpreter.h"
#include "support/file_io.h"

namespace inferno::cli {
namespace {

/// Constants larger than this print as `<elided>` in `--emit ir` unless --full-constants.
constexpr int64_t kPrintedConstantElements = 16;

std::string describe(const ir::Graph& graph) {
  int64_t constant_bytes = 0;
  for (ir::ValueId c : graph.constants()) constant_bytes += graph.type(c).size_bytes();
  return std::to_string(graph.inputs().size()) + " inputs, " + std::to_string(graph.outputs().size()) +
         " outputs, " + std::to_string(graph.nodes().size()) + " nodes, " +
         std::to_string(graph.constants().size()) + " constants (" + std::to_string(constant_bytes) + " bytes)";
}

/// Input specs from --input, or else from the shapes and dtypes of the --data files.
Expected<frontend::LoadOptions> load_options(const CliOptions& options, std::vector<ir::Tensor>& data) {
  frontend::LoadOptions load;
  for (const std::string& text : options.input_specs) {
    INFERNO_ASSIGN_OR_RETURN(frontend::InputSpec spec, frontend::parse_input_spec(text));
    load.inputs.push_back(std::move(spec));
  }
  for (const std::string& path : options.data_files) {
    INFERNO_ASSIGN_OR_RETURN(ir::Tensor tensor, read_tensor(path));
    data.push_back(std::move(tensor));
  }
  if (load.inputs.empty()) {
    for (const ir::Tensor& t : data) load.inputs.push_back({"", t.type});
  }
  return load;
}

Status optimize(ir::Graph& graph, const CliOptions& options) {
  passes::PipelineOptions pipeline;
  const char* debug = std::getenv("INFERNO_DEBUG");
  const bool dump = options.print_after_all || (debug != nullptr && std::string(debug) == "1");
  if (dump) {
    pipeline.after_pass = [](std::string_view pass, const ir::Graph& g) {
      std::cerr << "// ----- IR after " << pass << " -----\n" << ir::print_graph(g, {kPrintedConstantElements});
    };
  }
  if (options.passes) return passes::run_passes(graph, *options.passes, pipeline);
  return passes::run_default_pipeline(graph, pipeline);
}

Status emit_text(const CliOptions& options, const std::string& text) {
  if (options.output.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return std::fflush(stdout) == 0 ? Status::ok() : io_error("cannot write to stdout");
  }
  INFERNO_RETURN_IF_ERROR(write_file_atomic(options.output, text));
  spdlog::info("wrote {}", options.output);
  return Status::ok();
}

Status run_reference(const ir::Graph& graph, const CliOptions& options, const std::vector<ir::Tensor>& data) {
  if (data.size() != graph.inputs().size()) {
    return invalid_input("the model has " + std::to_string(graph.inputs().size()) + " inputs but " +
                         std::to_string(data.size()) + " --data files were given");
  }
  for (size_t i = 0; i < data.size(); ++i) {
    const ir::TensorType& expected = graph.type(graph.inputs()[i]);
    if (data[i].type != expected) {
      return invalid_input("--data " + options.data_files[i] + " is " + data[i].type.to_string() +
                           " but model input '" + graph.name(graph.inputs()[i]) + "' is " + expected.to_string());
    }
  }
  INFERNO_ASSIGN_OR_RETURN(std::vector<ir::Tensor> outputs, reference::evaluate(graph, data));
  std::error_code ec;
  std::filesystem::create_directories(options.save_outputs_dir, ec);
  if (ec) return io_error("cannot create '" + options.save_outputs_dir + "': " + ec.message());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string path = (std::filesystem::path(options.save_outputs_dir) / ("out" + std::to_string(i) + ".npy")).string();
    INFERNO_RETURN_IF_ERROR(write_tensor(path, outputs[i]));
    spdlog::info("wrote {} ({})", path, outputs[i].type.to_string());
  }
  return Status::ok();
}

}  // namespace

Status run_command(const CliOptions& options) {
  if (!options.reference && options.emit == Emit::kSharedObject) {
    return unsupported("--emit so (compiling to a CUDA shared library) is not implemented yet; use --emit ir, "
                       "--emit dot or --reference");
  }
  std::vector<ir::Tensor> data;
  INFERNO_ASSIGN_OR_RETURN(frontend::LoadOptions load, load_options(options, data));
  INFERNO_ASSIGN_OR_RETURN(ir::Graph graph, frontend::load_model(options.model, load));
  spdlog::info("loaded {}: {}", std::filesystem::path(options.model).filename().string(), describe(graph));
  INFERNO_RETURN_IF_ERROR(optimize(graph, options));
  spdlog::debug("optimized: {}", describe(graph));

  if (options.reference) return run_reference(graph, options, data);
  if (options.emit == Emit::kDot) return emit_text(options, ir::graph_to_dot(graph));
  ir::PrintOptions print;
  print.max_constant_elements = options.full_constants ? -1 : kPrintedConstantElements;
  return emit_text(options, ir::print_graph(graph, print));
}

}  // namespace inferno::cli
