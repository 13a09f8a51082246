// A session's mutable state (model_abi.h's inferno_state_desc): one device allocation holding
// every state of the model, each 256-byte aligned, and the fewest copies and memsets that give
// them their initial values (at session creation and on every reset).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "inferno/model_abi.h"

namespace inferno::runtime {

/// Where each state lives in the allocation, and its size.
struct StateLayout {
  std::vector<uint64_t> offsets;  // one per state, 256-byte aligned
  uint64_t total = 0;
};
/// Lays out the (validated) states one after another.
StateLayout layout_states(const inferno_state_desc* states, int32_t count);

/// One step of (re)initialization: zero `bytes` at `offset`, or copy them from the weights at
/// `source`.
struct InitOp {
  bool zero;
  uint64_t offset;
  uint64_t bytes;
  uint64_t source;  // weights offset; unused when zero
};
/// The initialization of every state: neighbouring zero-initialized states merge into one memset
/// (the padding between them is zeroed too); a state initialized from the weights is one copy.
std::vector<InitOp> init_plan(const inferno_state_desc* states, int32_t count,
                              const StateLayout& layout);

class StateBlock {
 public:
  /// Allocates the states of `model` on the current device (nothing for a stateless model).
  explicit StateBlock(const inferno_model& model);
  ~StateBlock();
  StateBlock(const StateBlock&) = delete;
  StateBlock& operator=(const StateBlock&) = delete;

  /// Enqueues the initialization on `stream`: the weights (device copy) give the initial values.
  void enqueue_init(cudaStream_t stream, const void* device_weights) const;
  /// One device pointer per state, in the model's order (what run_args.states carries).
  void* const* pointers() const { return pointers_.data(); }

 private:
  void* memory_ = nullptr;
  std::vector<void*> pointers_;
  std::vector<InitOp> plan_;
};

}  // namespace inferno::runtime
