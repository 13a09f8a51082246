// Running passes: the default optimization pipeline, or any named sub-pipeline.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "passes/pass.h"

namespace inferno::passes {

/// The default pipeline, in order (pipeline.cpp holds the list).
const std::vector<std::string_view>& default_pipeline();

struct PipelineOptions {
  PassOptions pass_options;
  /// Called after each pass with its name and the graph (for --print-after-all and
  /// INFERNO_DEBUG=1); may be empty.
  std::function<void(std::string_view pass, const ir::Graph&)> after_pass;
  /// Run the verifier after every pass. A verifier failure after a pass is an internal error
  /// naming the pass.
  bool verify_each = true;
};

/// Checks that every name is a registered pass (an unknown name is an invalid-input error that
/// lists the known ones).
Status check_pass_names(const std::vector<std::string>& names);

/// Runs `names` in order on `graph`.
Status run_passes(ir::Graph& graph, const std::vector<std::string>& names,
                  const PipelineOptions& options);

/// Runs the default pipeline.
Status run_default_pipeline(ir::Graph& graph, const PipelineOptions& options);

}  // namespace inferno::passes
