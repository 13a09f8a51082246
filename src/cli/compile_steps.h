// The steps of a compile that `infernoc` and `infernoc verify` share (command.cpp defines them):
// reading the --data files and input specs, optimizing, converting the --data tensors to the
// optimized graph's inputs, and the CUDA backend (toolchain, codegen, nvcc).
#pragma once

#include <future>
#include <string>
#include <vector>

#include "cli/options.h"
#include "cli/stage_times.h"
#include "driver/build.h"
#include "frontend/frontend.h"
#include "ir/graph.h"
#include "support/status.h"
#include "target/target.h"

namespace inferno::cli {

/// Reads the --data files into `data`; the input specs from --input, or else from the shapes and
/// dtypes of the --data files.
Expected<frontend::LoadOptions> load_options(const CliOptions& options,
                                             std::vector<ir::Tensor>& data);

/// The default pipeline, or --passes / -O0, for `target`.
Status optimize(ir::Graph& graph, const CliOptions& options, const target::Target& target);

/// The --data tensors as the graph's user inputs: each must have its input's type, except that a
/// floating-point file for a floating-point input of another dtype is converted, as a caller of
/// the compiled model would (exactly when widening, rounded to nearest even when narrowing).
Expected<std::vector<ir::Tensor>> model_inputs(const ir::Graph& graph, const CliOptions& options,
                                               const std::vector<ir::Tensor>& data);

/// What the backend will do, settled (and the toolchain checked) before the model is loaded.
struct BackendPlan {
  target::Target target;       ///< the archs and precision codegen compiles for
  driver::BuildOptions build;  ///< toolchain, archs, output, weights path, build dir
  bool have_toolchain = false;
  std::string weights_file_name;  ///< --weights external: the file name model.so looks for
  /// The model file's hash for the descriptor, taken on a thread while the frontend loads it.
  std::shared_future<Expected<std::string>> source_hash;
};

/// For --emit so and cu: the archs, the toolchain (an error when nvcc is needed and missing), the
/// outputs.
Expected<BackendPlan> plan_backend(const CliOptions& options);

/// Generates model.cu for `graphs` (the model, then its variants) and builds it (--emit so) or
/// writes it (--emit cu). `dims`: the model's dynamic dims, for the library's dims table.
Status run_backend(const std::vector<const ir::Graph*>& graphs, const CliOptions& options,
                   const BackendPlan& plan, StageTimes& times,
                   const std::vector<codegen::ModelDim>& dims = {});

}  // namespace inferno::cli
