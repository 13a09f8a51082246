// inferno-run --profile: one run with each step timed (no CUDA graph) by CUPTI's activity records
// of its kernels when libcupti loads (cupti_kernel_times.h), else by CUDA events around its
// launches; end-to-end latency measured separately, and the report of profile_report.h printed
// (and --trace / --roofline written).
#pragma once

#include <cuda_runtime_api.h>

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "inferno/runtime.h"

namespace inferno::run {

struct ProfileArgs {
  bool enabled = false;
  std::string trace;     ///< Chrome trace JSON, when set
  std::string roofline;  ///< roofline SVG, when set
};

/// Adds --profile, --trace and --roofline to `app`.
void add_profile_options(CLI::App& app, ProfileArgs& args);

/// Profiles `session` on these tensors (the model already ran once on them through `run_once`,
/// which enqueues a normal run and waits): times `run_once` for the end-to-end latency, runs
/// once profiled untimed (the plain launches' first run) and once timed, then prints the table
/// and hints and writes the files. Throws Exit on failure.
void profile_command(const ProfileArgs& args, inferno_loaded_model* model, inferno_session* session,
                     cudaStream_t stream, int device, const std::vector<inferno_tensor>& inputs,
                     const std::vector<inferno_tensor>& outputs,
                     const std::function<void()>& run_once);

}  // namespace inferno::run
