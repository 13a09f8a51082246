// Generation on one session (inferno_session_generate): the runtime-owned buffers an LLM's runs
// read and write (token ids, positions, logits), the decode step's CUDA graph (the model's
// one-token run followed by the next-token kernel), and the loop that feeds the prompt, steps,
// and hands each token to the caller.
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "inferno/runtime.h"
#include "runtime/generation_layout.h"
#include "runtime/sample_kernel.h"
#include "runtime/session.h"

namespace inferno::runtime {

class Generator {
 public:
  /// Allocates the buffers for `session`'s model (which must generate) on the current device.
  explicit Generator(Session& session);
  ~Generator();
  Generator(const Generator&) = delete;
  Generator& operator=(const Generator&) = delete;

  /// Generates (see inferno_session_generate). The request is checked already; the session's
  /// busy flag is held and its device current.
  void generate(cudaStream_t stream, const int64_t* prompt, int32_t prompt_len,
                const inferno_generate_options& options, int64_t* tokens_out,
                int32_t* num_tokens_out, inferno_generate_stats* stats);

 private:
  void release() noexcept;
  /// Makes the pinned host area hold `bytes`, waiting for the session's last run before freeing.
  void reserve_host(uint64_t bytes);
  /// Enqueues the prompt's runs (staging their inputs in `staging`, room for two int64 per
  /// padded token), then the first next-token choice; returns the number of runs.
  int32_t prefill(cudaStream_t stream, const int64_t* prompt,
                  const std::vector<PrefillChunk>& chunks, int64_t* staging);
  /// Enqueues one decode step: the one-token run and the next-token choice.
  void decode_step(cudaStream_t stream);
  void run_entry(const GenerationEntry& entry, cudaStream_t stream);
  SampleLaunch sample_launch(int64_t row) const;
  /// Everything generate enqueues and reads back, between the session's begin and end of work.
  void run_loop(Session::Work& work, const int64_t* prompt, int32_t prompt_len,
                const std::vector<PrefillChunk>& chunks, const inferno_generate_options& options,
                int64_t* tokens_out, int32_t* num_tokens_out, inferno_generate_stats* stats,
                std::chrono::steady_clock::time_point start);

  Session& session_;
  const GenerationLayout& layout_;
  // Device: ids[max_length] | positions[max_length] | params | logits[max_length, vocab].
  void* device_ = nullptr;
  int64_t* ids_ = nullptr;
  int64_t* positions_ = nullptr;
  SampleParams* params_ = nullptr;
  void* logits_ = nullptr;
  // Pinned, mapped host memory: params staging | tokens[max_new_tokens] | prompt staging.
  void* host_ = nullptr;
  uint64_t host_bytes_ = 0;
  uint64_t staging_offset_ = 0;  // of the prompt's staging in host_, for the current call
  cudaEvent_t ready_[2] = {};    // token of step k is on the host once ready_[k % 2] completed
  cudaEvent_t prefill_begin_ = nullptr;
  cudaEvent_t prefill_end_ = nullptr;
  cudaGraphExec_t decode_graph_ = nullptr;
  bool decode_ran_ = false;  // one plain decode step happened (before capturing)
};

}  // namespace inferno::runtime
