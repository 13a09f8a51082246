// `infernoc verify MODEL --data X.npy ...`: compiles the model as `infernoc` would (the same
// passes and --precision) but with every value a kernel writes kept as an output
// (codegen/keep_intermediates.h), runs it once on the GPU through inferno-run (a child process:
// infernoc links no CUDA runtime), reads each kept value back, and judges every kernel alone
// against the CPU reference interpreter evaluated on the device's own inputs to that node
// (reference/node_check.h). Exit 0 when every value matches, 6 (kVerifyMismatch) naming the
// first node out of tolerance, 4 when there is no nvcc, no inferno-run or no usable GPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/options.h"
#include "ir/graph.h"
#include "reference/node_check.h"
#include "support/status.h"

namespace inferno::cli {

/// Exit 6: a kernel's output is out of tolerance. Past support/status.h's ErrorCodes, which every
/// stage shares for its failures; only verify has a verdict to give.
inline constexpr ErrorCode kVerifyMismatch = static_cast<ErrorCode>(6);

Status run_verify(const CliOptions& options);

/// Reads what the device computed, `dir`/out<i>.npy for every output i of `graph` (as inferno-run
/// --save-outputs writes them; node_of_output from keep_intermediates), checking each file's
/// size and type against the graph (a bf16 value comes back widened to float32 and is narrowed
/// exactly), and checks every node on them (reference::check_nodes, on `inputs`, with the
/// rounding allowances of kernels compiled as `allowance` says).
Expected<reference::NodeCheck> check_observed_outputs(
    const ir::Graph& graph, const std::vector<ir::Tensor>& inputs,
    const std::vector<int32_t>& node_of_output, const std::string& dir,
    const reference::AllowanceOptions& allowance = {});

}  // namespace inferno::cli
