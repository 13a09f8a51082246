// A session: one caller's state for running a model (its arena, the model's per-session state, the
// captured CUDA graphs) and the busy flag that turns concurrent use into INFERNO_STATUS_BUSY.
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "inferno/runtime.h"
#include "runtime/graph_cache.h"
#include "runtime/model.h"

namespace inferno::runtime {

class Session {
 public:
  /// Allocates the arena and the model's state on the model's device. `options` is already
  /// validated (see inferno_session_create).
  Session(std::shared_ptr<const Model> model, const inferno_session_options& options);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// Validates the tensors, then enqueues one inference on `stream` (see inferno_session_run).
  void run(void* stream, const inferno_tensor* inputs, int32_t num_inputs,
           const inferno_tensor* outputs, int32_t num_outputs);

  /// Set while run() is inside; a second run() that finds it set fails with BUSY. Exposed so tests
  /// can hold it deterministically.
  std::atomic<bool>& busy_flag() { return busy_; }
  /// How many times run() captured a graph (a test hook: replays do not count).
  int64_t graph_captures() const { return graph_captures_; }

 private:
  void release() noexcept;
  void run_graph(cudaStream_t stream, const inferno_tensor* inputs, int32_t num_inputs,
                 const inferno_tensor* outputs, int32_t num_outputs);
  /// Captures the model's launches for pointers_ on the side stream and instantiates them.
  cudaGraphExec_t capture();
  /// Calls the model's run with pointers_; throws on a failed status.
  void call_model(cudaStream_t stream);

  std::shared_ptr<const Model> model_;
  bool use_graph_;
  void* arena_ = nullptr;
  void* state_ = nullptr;           // the model's per-session state
  cudaEvent_t last_run_ = nullptr;  // recorded after each run: orders a run on another stream
  cudaStream_t last_stream_ = nullptr;
  // Captures happen on this stream. Graph runs for the legacy default stream, which cannot take
  // part in a capture, also go here, forked from and joined back to it with events.
  cudaStream_t side_stream_ = nullptr;
  cudaEvent_t fork_ = nullptr;
  bool has_run_ = false;
  bool warmed_up_ = false;  // one eager run happened before the first capture
  GraphCache graphs_;
  int64_t graph_captures_ = 0;
  std::vector<void*> pointers_;  // inputs then outputs; reused so a run does not allocate
  std::atomic<bool> busy_{false};
};

}  // namespace inferno::runtime
