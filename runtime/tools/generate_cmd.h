// inferno-run --generate: token generation with an LLM model.so, timed against the bandwidth floor.
#pragma once

#include <cuda_runtime_api.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace inferno::run {

struct GenerateArgs {
  bool enabled = false;
  std::string prompt;  // .npy of token ids
  int32_t max_new_tokens = 16;
  float temperature = 0.0f;
  int32_t top_k = 0;
  float top_p = 1.0f;
  uint64_t seed = 0;
  std::vector<int64_t> stop_tokens;
  std::string save_tokens;  // .npy of the new tokens, when set
};

/// Adds --generate and its options to `app`.
void add_generate_options(CLI::App& app, GenerateArgs& args);

/// Device-to-device copy bandwidth in bytes per second (read plus write), over 256 MiB copies on
/// `stream`; 0 when the buffers do not fit. The bandwidth roof of --generate and --profile.
double copy_bandwidth(cudaStream_t stream);

/// Loads `model` on `device`, generates once untimed (graph captures, lazy loading), then once
/// timed; prints the tokens, time to first token, per-token latency, and the per-token bandwidth
/// floor (weights bytes / device copy bandwidth) with the fraction of it reached. Returns the
/// exit code; throws Exit on failure.
int generate_command(const std::string& model, int device, bool use_graph,
                     const GenerateArgs& args);

}  // namespace inferno::run
