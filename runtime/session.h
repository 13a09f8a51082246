// A session: one caller's state for running a model: its arena, the model's per-session data for
// each entry point (variant), the model's mutable state, the captured CUDA graphs, the generation
// machinery, and the busy flag that turns concurrent use into INFERNO_STATUS_BUSY.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "inferno/runtime.h"
#include "runtime/graph_cache.h"
#include "runtime/model.h"
#include "runtime/row_split.h"
#include "runtime/state_block.h"

namespace inferno::runtime {

class Generator;
class HostGate;

class Session {
 public:
  /// Allocates the arena, the model's session data for every entry point and the state (enqueued
  /// initialization) on the model's device. `options` is already validated.
  Session(std::shared_ptr<const Model> model, const inferno_session_options& options);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// Validates the tensors, picks the entry point, then enqueues one inference on `stream` (see
  /// inferno_session_run).
  void run(void* stream, const inferno_tensor* inputs, int32_t num_inputs,
           const inferno_tensor* outputs, int32_t num_outputs);
  /// As run(), with plain launches (no CUDA graph) through the entry's run_profiled, which calls
  /// `hook` around each step (see inferno_session_run_profiled). Returns the entry point it ran.
  int32_t run_profiled(void* stream, const inferno_tensor* inputs, int32_t num_inputs,
                       const inferno_tensor* outputs, int32_t num_outputs,
                       inferno_profile_hook hook, void* user);
  /// Enqueues the state's initialization on `stream` (see inferno_session_reset_state).
  void reset_state(void* stream);
  /// Generates tokens (see inferno_session_generate); `options` already defaulted.
  void generate(void* stream, const int64_t* prompt, int32_t prompt_len,
                const inferno_generate_options& options, int64_t* tokens_out,
                int32_t* num_tokens_out, inferno_generate_stats* stats);

  /// Set while a call is inside; a second call that finds it set fails with BUSY. Exposed so
  /// tests can hold it deterministically.
  std::atomic<bool>& busy_flag() { return busy_; }
  /// How many times a graph was captured (a test hook: replays do not count).
  int64_t graph_captures() const { return graph_captures_; }

  // What the generator (runtime/generator.cpp) drives runs with. Call with the busy flag held
  // and the model's device current.

  /// Where a call on the caller's stream enqueues its work.
  struct Work {
    cudaStream_t caller;
    cudaStream_t stream;
    bool in_caller_graph;  // the caller is capturing `caller`: plain launches join its graph
  };
  /// Where work for `caller` goes, before anything is enqueued.
  Work work_for(cudaStream_t caller);
  /// Orders new work after the session's previous run; with `graphs`, work for the legacy default
  /// stream (which cannot take part in a capture) moves to the session's stream, forked from it.
  void begin_work(Work& work, bool graphs);
  /// Records the session's last run and joins the caller's stream.
  void end_work(const Work& work);
  /// Runs `entry` on device pointers already checked (inputs then outputs): a graph replay,
  /// captured on first use of these addresses (the entry's very first run is plain launches), or
  /// plain launches without use_cuda_graph.
  void launch(int32_t entry, void* const* inputs, void* const* outputs, cudaStream_t stream);
  /// Captures `entry`'s run on these pointers followed by whatever `extra` enqueues on the capture
  /// stream, into one graph the caller owns. The entry must have run once already.
  cudaGraphExec_t capture(int32_t entry, void* const* inputs, void* const* outputs,
                          const std::function<void(cudaStream_t)>& extra);
  /// Plain launches of `entry` on these pointers.
  void call_model(int32_t entry, void* const* inputs, void* const* outputs, cudaStream_t stream);
  /// Enqueues the state's initialization.
  void enqueue_state_init(cudaStream_t stream);
  /// Waits until the session's last run has finished (before freeing what it may use).
  void wait_last_run();
  const Model& model() const { return *model_; }
  bool use_graph() const { return use_graph_; }

 private:
  void release() noexcept;
  /// Runs a call that split_plan_ planned along the model's split dim (runtime/row_split.h).
  void run_split(cudaStream_t stream, const inferno_tensor* inputs, int32_t num_inputs,
                 const inferno_tensor* outputs, int32_t num_outputs);
  /// The entry point whose input shapes `inputs` have, or -1; 0 for a model of one entry point
  /// and no split dim (check_tensors then names what differs).
  int32_t matching_entry(const inferno_tensor* inputs, int32_t num_inputs) const;
  /// `entry` (matching_entry's) checked against the tensors, refused with the reason when -1;
  /// fills key_.
  int32_t checked_entry(int32_t entry, const inferno_tensor* inputs, int32_t num_inputs,
                        const inferno_tensor* outputs, int32_t num_outputs);
  /// Fills key_: the entry then the pointers (a graph holds the pointers and the entry's kernels).
  void set_key(int32_t entry, void* const* inputs, void* const* outputs);
  void launch_keyed(int32_t entry, cudaStream_t stream, bool graph, cudaGraphExec_t exec);
  cudaGraphExec_t capture_keyed(int32_t entry, const std::function<void(cudaStream_t)>& extra);
  void call_keyed(int32_t entry, cudaStream_t stream);

  std::shared_ptr<const Model> model_;
  bool use_graph_;
  void* arena_ = nullptr;
  std::vector<void*> model_sessions_;  // the model's per-session data, one per entry point
  std::unique_ptr<StateBlock> states_;
  std::unique_ptr<Generator> generator_;  // made by the first generate
  std::unique_ptr<HostGate> gate_;        // made by the first profiled run
  cudaEvent_t last_run_ = nullptr;        // recorded after each run: orders a run on another stream
  cudaStream_t last_stream_ = nullptr;
  // Captures happen on this stream. A run for the legacy default stream that captures a graph,
  // and every generation step there (neither can take part in a capture), also goes here, forked
  // from and joined back to it with events; so does the state's first initialization.
  cudaStream_t side_stream_ = nullptr;
  cudaEvent_t fork_ = nullptr;
  bool has_run_ = false;
  std::vector<char> warmed_up_;  // per entry: one plain run happened before the first capture
  RowSplitPlan split_plan_;      // the last split call's; kept to reuse its memory
  void* staging_ = nullptr;      // unaligned rows of a split call (row_staging_bytes)
  GraphCache graphs_;
  int64_t graph_captures_ = 0;
  // The cache key and the model's pointer arrays: the entry, then inputs, then outputs. Reserved
  // for the largest entry point, so a run does not allocate.
  std::vector<void*> key_;
  std::atomic<bool> busy_{false};
};

}  // namespace inferno::runtime
