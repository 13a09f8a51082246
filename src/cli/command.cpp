#include "cli/command.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <iostream>
#include <map>
#include <optional>
#include <string_view>

#include "cli/compile_steps.h"
#include "cli/graph_dump.h"
#include "cli/row_split_dim.h"
#include "cli/stage_times.h"
#include "cli/tensor_io.h"
#include "cli/variants.h"
#include "cli/verify.h"
#include "codegen/codegen.h"
#include "codegen/profile_plan.h"
#include "driver/arch.h"
#include "driver/build.h"
#include "driver/source_hash.h"
#include "driver/toolchain.h"
#include "frontend/frontend.h"
#include "ir/dot.h"
#include "ir/printer.h"
#include "passes/legalize.h"
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
  const std::string states =
      graph.num_states() ? std::to_string(graph.num_states()) + " states, " : "";
  return std::to_string(graph.num_user_inputs()) + " inputs, " +
         std::to_string(graph.num_user_outputs()) + " outputs, " + states +
         std::to_string(graph.nodes().size()) + " nodes, " +
         std::to_string(graph.constants().size()) + " constants (" +
         std::to_string(constant_bytes) + " bytes)";
}

Status emit_text(const CliOptions& options, const std::string& text) {
  if (options.output.empty() || options.output == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return std::fflush(stdout) == 0 ? Status::ok() : io_error("cannot write to stdout");
  }
  INFERNO_RETURN_IF_ERROR(write_file_atomic(options.output, text));
  spdlog::info("wrote {}", options.output);
  return Status::ok();
}

Status run_reference(const ir::Graph& graph, const CliOptions& options,
                     const std::vector<ir::Tensor>& data) {
  INFERNO_ASSIGN_OR_RETURN(const std::vector<ir::Tensor> feed, model_inputs(graph, options, data));
  // A stateful model runs once from its initial state; its state updates are not written.
  std::vector<ir::Tensor> with_state = feed;
  for (ir::Tensor& state : reference::initial_states(graph)) with_state.push_back(std::move(state));
  INFERNO_ASSIGN_OR_RETURN(std::vector<ir::Tensor> outputs, reference::evaluate(graph, with_state));
  outputs.resize(graph.num_user_outputs());
  std::error_code ec;
  std::filesystem::create_directories(options.save_outputs_dir, ec);
  if (ec) return io_error("cannot create '" + options.save_outputs_dir + "': " + ec.message());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string path =
        (std::filesystem::path(options.save_outputs_dir) / ("out" + std::to_string(i) + ".npy"))
            .string();
    INFERNO_RETURN_IF_ERROR(write_tensor(path, outputs[i]));
    spdlog::info("wrote {} ({})", path, outputs[i].type.to_string());
  }
  return Status::ok();
}

/// The default .so: the model's file name with .so for its extension, in the current directory.
std::string default_output(const std::string& model) {
  return std::filesystem::path(model).filename().replace_extension(".so").string();
}

}  // namespace

Expected<frontend::LoadOptions> load_options(const CliOptions& options,
                                             std::vector<ir::Tensor>& data) {
  frontend::LoadOptions load;
  load.note = [](std::string_view message) { spdlog::info("{}", message); };
  for (const std::string& text : options.input_specs) {
    INFERNO_ASSIGN_OR_RETURN(frontend::InputSpec spec, frontend::parse_input_spec(text));
    load.inputs.push_back(std::move(spec));
  }
  for (const std::string& path : options.data_files) {
    INFERNO_ASSIGN_OR_RETURN(ir::Tensor tensor, read_tensor(path));
    data.push_back(std::move(tensor));
  }
  INFERNO_ASSIGN_OR_RETURN(load.dim_ranges, dim_ranges(options));
  // Named dims of --input take their sizes from --data files where they are given.
  for (size_t i = 0; i < load.inputs.size() && i < data.size(); ++i) {
    const frontend::InputSpec& spec = load.inputs[i];
    if (spec.dim_symbols.size() != data[i].type.shape.size()) continue;  // checked later
    for (size_t axis = 0; axis < spec.dim_symbols.size(); ++axis) {
      const std::string& symbol = spec.dim_symbols[axis];
      if (symbol.empty()) continue;
      const int64_t size = data[i].type.shape[axis];
      const auto [at, added] = load.symbols.emplace(symbol, size);
      if (!added && at->second != size) {
        return invalid_input("--data files disagree on the size of dim '" + symbol +
                             "': " + std::to_string(at->second) + " and " + std::to_string(size) +
                             " (" + options.data_files[i] + ")");
      }
    }
  }
  if (load.inputs.empty()) {
    for (size_t i = 0; i < data.size(); ++i)
      load.inputs.push_back({"", data[i].type, /*exact_dtype=*/false, options.data_files[i]});
  }
  return load;
}

Status optimize(ir::Graph& graph, const CliOptions& options, const target::Target& target) {
  passes::PipelineOptions pipeline;
  pipeline.pass_options.conv_layout = options.layout;
  pipeline.pass_options.target = target;
  pipeline.pass_options.io_precision = options.io_precision;
  pipeline.pass_options.note = [](std::string_view message) { spdlog::debug("{}", message); };
  const char* debug = std::getenv("INFERNO_DEBUG");
  const bool dump = options.print_after_all || (debug != nullptr && std::string(debug) == "1");
  if (dump) {
    pipeline.after_pass = [](std::string_view pass, const ir::Graph& g) {
      std::cerr << "// ----- IR after " << pass << " -----\n"
                << ir::print_graph(g, {kPrintedConstantElements});
    };
  }
  if (options.passes) return passes::run_passes(graph, *options.passes, pipeline);
  return passes::run_default_pipeline(graph, pipeline);
}

Expected<std::vector<ir::Tensor>> model_inputs(const ir::Graph& graph, const CliOptions& options,
                                               const std::vector<ir::Tensor>& data) {
  if (data.size() != graph.num_user_inputs()) {
    return invalid_input("the model has " + std::to_string(graph.num_user_inputs()) +
                         " inputs but " + std::to_string(data.size()) + " --data files were given");
  }
  std::vector<ir::Tensor> inputs = data;
  for (size_t i = 0; i < data.size(); ++i) {
    const ir::TensorType& expected = graph.type(graph.inputs()[i]);
    // A floating-point file for a floating-point input of another dtype is converted, as a caller
    // of the compiled model would: exactly when widening (f16 data for an f32 input), rounded to
    // nearest even when narrowing (f32 data for an input made 16-bit by --io-precision compute).
    const bool convert = data[i].type.dtype != expected.dtype &&
                         ir::is_floating(data[i].type.dtype) && ir::is_floating(expected.dtype) &&
                         data[i].type.shape == expected.shape;
    if (convert) {
      ir::Tensor converted = ir::Tensor::zeros(expected);
      for (int64_t k = 0; k < data[i].numel(); ++k) converted.set(k, data[i].get(k));
      inputs[i] = std::move(converted);
      continue;
    }
    if (data[i].type != expected) {
      return invalid_input("--data " + options.data_files[i] + " is " + data[i].type.to_string() +
                           " but model input '" + graph.name(graph.inputs()[i]) + "' is " +
                           expected.to_string());
    }
  }
  return inputs;
}

// ---- the CUDA backend: --emit so and --emit cu ----------------------------------------------

Expected<BackendPlan> plan_backend(const CliOptions& options) {
  namespace fs = std::filesystem;
  const bool build_so = options.emit == Emit::kSharedObject;
  BackendPlan plan;
  driver::BuildOptions& build = plan.build;

  if (!options.arch.empty()) {
    INFERNO_ASSIGN_OR_RETURN(build.archs, driver::parse_arch_list(options.arch));
  } else {
    const std::vector<int> local = driver::detect_local_compute_capabilities();
    build.archs = driver::default_archs(local);
    spdlog::debug("no --arch: building for {} ({})", driver::describe(build.archs),
                  local.empty() ? "no GPU found, the default" : "the local GPUs");
  }
  plan.target.sm_archs = driver::compute_capabilities(build.archs);
  const auto has_90 = [&](bool arch_specific) {
    return std::find(build.archs.begin(), build.archs.end(), driver::SmArch{90, arch_specific}) !=
           build.archs.end();
  };
  plan.target.wgmma = has_90(true) && !has_90(false);
  plan.target.precision = options.precision;
  INFERNO_RETURN_IF_ERROR(plan.target.check_precision());

  // --emit cu compiles nothing: nvcc is only needed when named, and only gives the manifest's
  // CUDA version otherwise.
  Expected<driver::Toolchain> toolchain =
      driver::check_toolchain(driver::NvccSearch::from_environment(options.nvcc));
  if (toolchain) {
    build.toolchain = *toolchain;
    plan.have_toolchain = true;
    spdlog::debug("nvcc {} at {}", toolchain->version.to_string(), toolchain->nvcc);
    if (build_so)
      INFERNO_RETURN_IF_ERROR(driver::check_archs_supported(build.toolchain, build.archs));
  } else if (build_so || !options.nvcc.empty()) {
    return toolchain.status();
  } else {
    spdlog::debug("{}; model.cu's manifest names no CUDA version", toolchain.status().message());
    build.toolchain.nvcc = "nvcc";
  }
  if (build_so || !options.keep_build_dir.empty()) {
    INFERNO_ASSIGN_OR_RETURN(build.source_dirs, driver::find_source_dirs());
  }

  // Outputs: the .so (or model.cu), and the weights file named after it.
  const std::string library =
      build_so ? (options.output.empty() ? default_output(options.model) : options.output)
               : default_output(options.output.empty() ? options.model : options.output);
  if (build_so) {
    const fs::path dir = fs::absolute(library).parent_path();
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
      return io_error("cannot write '" + library + "': no directory '" + dir.string() + "'");
    if (fs::equivalent(library, options.model, ec)) {
      return invalid_input("the output '" + library +
                           "' is the model file itself; choose another -o");
    }
    build.output = library;
  }
  if (options.weights == WeightsMode::kExternal) {
    const fs::path weights = fs::path(library).replace_extension(".weights");
    if (weights == fs::path(library)) {
      return invalid_input("--weights external would write the weights over the output '" +
                           library + "'; choose another -o");
    }
    plan.weights_file_name = weights.filename().string();
    build.external_weights = weights.string();
  }
  build.keep_build_dir = options.keep_build_dir;
  build.jobs = options.jobs;
  if (build_so) build.cache_dir = resolve_cache_dir(options.cache);
  build.verbose = options.verbosity == Verbosity::kVerbose;
  plan.source_hash = std::async(std::launch::async, driver::hash_file_hex, options.model).share();
  return plan;
}

namespace {

// Codegen's cross-node fusions, each on unless its variable is "0" (for comparisons):
// INFERNO_LAUNCH_GROUPS (codegen/launch_groups.h), INFERNO_GEMV_PAIRS (codegen/gemv_pairs.h) and
// INFERNO_ATTENTION_STEP (codegen/attention_step.h).
bool enabled_in_environment(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr || std::string_view(value) != "0";
}

void fusions_from_environment(codegen::CodegenOptions& options) {
  options.launch_groups = enabled_in_environment("INFERNO_LAUNCH_GROUPS");
  options.gemv_pairs = enabled_in_environment("INFERNO_GEMV_PAIRS");
  options.attention_steps = enabled_in_environment("INFERNO_ATTENTION_STEP");
}

}  // namespace

Status run_backend(const std::vector<const ir::Graph*>& graphs, const CliOptions& options,
                   const BackendPlan& plan, StageTimes& times,
                   const std::vector<codegen::ModelDim>& dims) {
  codegen::CodegenOptions codegen_options;
  codegen_options.dynamic_dims = dims;
  codegen_options.target = plan.target;
  codegen_options.external_weights_file = plan.weights_file_name;
  codegen_options.corrupt_node = options.corrupt_node;  // verify's testing flag; else empty
  fusions_from_environment(codegen_options);
  if (plan.have_toolchain) codegen_options.cuda_version = plan.build.toolchain.version.to_string();
  INFERNO_ASSIGN_OR_RETURN(codegen::GeneratedModel generated,
                           times.time(Stage::kCodegen, [&]() -> Expected<codegen::GeneratedModel> {
                             INFERNO_ASSIGN_OR_RETURN(codegen_options.source_model_hash,
                                                      plan.source_hash.get());
                             return codegen::generate_variants(graphs, codegen_options);
                           }));
  spdlog::debug("generated model.cu: {} lines, weights {}",
                std::count(generated.cuda_source.begin(), generated.cuda_source.end(), '\n'),
                driver::format_size(generated.weights.size()));

  if (options.emit == Emit::kSharedObject) {
    driver::BuildReport report;
    const Status built = driver::build_shared_object(generated, plan.build, &report);
    times.add_build(report);
    return built;
  }

  INFERNO_RETURN_IF_ERROR(emit_text(options, generated.cuda_source));
  if (options.keep_build_dir.empty()) return Status::ok();
  INFERNO_RETURN_IF_ERROR(driver::write_build_dir(options.keep_build_dir, generated, plan.build));
  if (!plan.weights_file_name.empty()) {
    const std::string weights =
        (std::filesystem::path(options.keep_build_dir) / plan.weights_file_name).string();
    INFERNO_RETURN_IF_ERROR(driver::write_bytes_atomic(weights, generated.weights));
  }
  spdlog::info("wrote the build directory {}", options.keep_build_dir);
  return Status::ok();
}

namespace {

// The frontend's record of the dynamic dims, as the library's dims table takes them.
std::vector<codegen::ModelDim> model_dims(
    const std::map<std::string, frontend::DynamicDim, std::less<>>& dims,
    const std::string& split) {
  std::vector<codegen::ModelDim> table;
  for (const auto& [name, dim] : dims) {
    codegen::ModelDim& entry = table.emplace_back();
    entry.name = name;
    entry.min = dim.min;
    entry.max = dim.max;
    entry.split = name == split;
    for (const frontend::DimUse& use : dim.uses) entry.uses.emplace_back(use.input, use.axis);
  }
  return table;
}

}  // namespace

Status run_command(const CliOptions& options) {
  if (options.command == Command::kVerify) return run_verify(options);
  StageTimes times;
  const LogStageTimesAtExit log_times(times);
  // The toolchain is checked before the model is loaded: a missing nvcc fails at once.
  std::optional<BackendPlan> backend;
  if (!options.reference && (options.emit == Emit::kSharedObject || options.emit == Emit::kCuda)) {
    INFERNO_ASSIGN_OR_RETURN(backend,
                             times.time(Stage::kToolchain, [&] { return plan_backend(options); }));
  }
  std::vector<ir::Tensor> data;
  INFERNO_ASSIGN_OR_RETURN(frontend::LoadOptions load, load_options(options, data));
  INFERNO_ASSIGN_OR_RETURN(std::vector<Specialization> variants, specializations(options));
  std::map<std::string, frontend::DynamicDim, std::less<>> dynamic_dims;
  load.dynamic_dims = &dynamic_dims;
  // What each load binds: the variant's sizes, and a dim --dim bounds at its smallest size
  // otherwise (the export's may lie outside the new range).
  const Specialization data_symbols = load.symbols;  // named dims' sizes in --data files
  const auto symbols_for = [&](const Specialization& variant) {
    Specialization symbols = variant;
    for (const auto& [symbol, size] : data_symbols) symbols.emplace(symbol, size);
    for (const auto& [symbol, range] : load.dim_ranges) symbols.emplace(symbol, range.first);
    return symbols;
  };
  load.symbols = symbols_for(variants.empty() ? Specialization{} : variants.front());
  const auto load_model = [&] {
    return times.time(Stage::kFrontend, [&] { return frontend::load_model(options.model, load); });
  };
  const auto optimize_graph = [&](ir::Graph& g, const target::Target& t) {
    return times.time(Stage::kPasses, [&] { return optimize(g, options, t); });
  };
  const auto legalize = [&](ir::Graph& g) {
    return times.time(Stage::kPasses, [&] { return passes::legalize(g, {}); });
  };
  INFERNO_ASSIGN_OR_RETURN(ir::Graph graph, load_model());
  spdlog::info("loaded {}: {}", std::filesystem::path(options.model).filename().string(),
               describe(graph));
  INFERNO_RETURN_IF_ERROR(
      check_dim_bounds(dynamic_dims, options, !load.inputs.empty() || !variants.empty()));
  const DynamicDims bound = dynamic_dims;  // as the first load bound them
  // Its own dims map: dynamic_dims stays the last variant load's (row indices are per graph).
  const LoadAt load_at = [&](const std::string& symbol, int64_t size) -> Expected<LoadedAt> {
    frontend::LoadOptions at = load;
    at.symbols[symbol] = size;
    DynamicDims dims_at;
    at.dynamic_dims = &dims_at;
    INFERNO_ASSIGN_OR_RETURN(ir::Graph other, times.time(Stage::kFrontend, [&] {
      return frontend::load_model(options.model, at);
    }));
    return LoadedAt{std::move(other), dims_at[symbol].row_indices};
  };
  // Only a library splits runs, and only along dims whose sizes the command line left open
  // (named dims of --input are open unless --data gives their sizes).
  std::string split;
  const bool sizes_open =
      load.inputs.empty() || (frontend::has_named_dims(load.inputs) && data.empty());
  if (backend && sizes_open) {
    INFERNO_ASSIGN_OR_RETURN(split, row_split_dim(graph, bound, load_at));
  }
  if (variants.empty()) {
    variants = default_specializations(graph, bound, split);
  } else if (!split.empty()) {  // --specialize chose other dims' sizes: the batch's are added
    variants = with_split_sizes(std::move(variants), split, bound.at(split));
  }
  // Loaded again only when the first variant binds a dim to another size than the first load.
  const bool same =
      !variants.empty() &&
      std::all_of(variants.front().begin(), variants.front().end(), [&](const auto& kv) {
        auto it = bound.find(kv.first);
        return it != bound.end() && it->second.value == kv.second;
      });
  if (!variants.empty() && !same) {
    load.symbols = symbols_for(variants.front());
    INFERNO_ASSIGN_OR_RETURN(graph, load_model());
  }
  // The size of the split dim in variant k (the export's when the variant leaves it).
  const auto split_size = [&](size_t k) {
    if (k < variants.size()) {
      if (auto it = variants[k].find(split); it != variants[k].end()) return it->second;
    }
    return bound.at(split).value;
  };
  // dynamic_dims: as graph's load recorded them (its row indices).
  if (!split.empty() && !variant_keeps_row_split(graph, dynamic_dims, split, split_size(0)))
    split.clear();
  if (!options.dump_graph_dir.empty())
    INFERNO_RETURN_IF_ERROR(dump_graph(options.dump_graph_dir, "before", graph));
  // The passes see the backend's target, or (without one) the precision alone.
  target::Target target;
  target.precision = options.precision;
  if (backend) target = backend->target;
  INFERNO_RETURN_IF_ERROR(optimize_graph(graph, target));
  spdlog::debug("optimized: {}", describe(graph));
  if (!options.dump_graph_dir.empty())
    INFERNO_RETURN_IF_ERROR(dump_graph(options.dump_graph_dir, "after", graph));

  if (options.reference) return run_reference(graph, options, data);
  const bool plans = options.emit == Emit::kPlan || options.emit == Emit::kProfilePlan;
  if (backend || plans) {
    // Whatever --passes or -O0 ran, the backend sees only the ops it lowers.
    INFERNO_RETURN_IF_ERROR(legalize(graph));
  }
  if (backend) {
    // The other variants: the same model with other values of its dynamic dims.
    std::vector<ir::Graph> others;
    for (size_t k = 1; k < variants.size(); ++k) {
      load.symbols = symbols_for(variants[k]);
      INFERNO_ASSIGN_OR_RETURN(others.emplace_back(), load_model());
      if (!split.empty() &&
          !variant_keeps_row_split(others.back(), dynamic_dims, split, split_size(k)))
        split.clear();
      INFERNO_RETURN_IF_ERROR(optimize_graph(others.back(), target));
      INFERNO_RETURN_IF_ERROR(legalize(others.back()));
    }
    std::vector<const ir::Graph*> graphs = {&graph};
    for (const ir::Graph& other : others) graphs.push_back(&other);
    if (graphs.size() > 1)
      spdlog::info("compiling {} variants: {}", graphs.size(), describe_variants(variants));
    return run_backend(graphs, options, *backend, times, model_dims(dynamic_dims, split));
  }
  if (options.emit == Emit::kDot) return emit_text(options, ir::graph_to_dot(graph));
  if (options.emit == Emit::kPlan) {
    INFERNO_ASSIGN_OR_RETURN(const std::string plan,
                             codegen::describe_memory_plan(graph, codegen::CodegenOptions{}));
    return emit_text(options, plan);
  }
  if (options.emit == Emit::kProfilePlan) {
    codegen::CodegenOptions codegen_options;
    codegen_options.target.precision = target.precision;  // TF32 or not; the default arch
    fusions_from_environment(codegen_options);
    INFERNO_ASSIGN_OR_RETURN(const std::vector<codegen::KernelCost> plan,
                             codegen::profile_plan(graph, codegen_options));
    return emit_text(options, codegen::profile_plan_to_string(plan));
  }
  ir::PrintOptions print;
  print.max_constant_elements = options.full_constants ? -1 : kPrintedConstantElements;
  return emit_text(options, ir::print_graph(graph, print));
}

}  // namespace inferno::cli
