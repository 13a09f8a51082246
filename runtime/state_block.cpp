#include "runtime/state_block.h"

#include <string>

#include "runtime/cuda_util.h"
#include "runtime/descriptor.h"

namespace inferno::runtime {
namespace {

constexpr uint64_t kAlign = 256;

uint64_t state_bytes(const inferno_state_desc& state) {
  return static_cast<uint64_t>(tensor_bytes(state.tensor));
}

}  // namespace

StateLayout layout_states(const inferno_state_desc* states, int32_t count) {
  // validate_descriptor bounds the sum (with the alignment) by 2^62: nothing here overflows.
  StateLayout layout;
  for (int32_t i = 0; i < count; ++i) {
    layout.offsets.push_back(layout.total);
    layout.total += (state_bytes(states[i]) + kAlign - 1) / kAlign * kAlign;
  }
  return layout;
}

std::vector<InitOp> init_plan(const inferno_state_desc* states, int32_t count,
                              const StateLayout& layout) {
  std::vector<InitOp> plan;
  for (int32_t i = 0; i < count; ++i) {
    const uint64_t bytes = state_bytes(states[i]);
    if (bytes == 0) continue;
    const uint64_t offset = layout.offsets[i];
    if (states[i].init_offset != INFERNO_STATE_INIT_ZERO) {
      plan.push_back({false, offset, bytes, states[i].init_offset});
      continue;
    }
    // Extend the previous memset when it ends where this state's aligned slot begins.
    InitOp* last = plan.empty() ? nullptr : &plan.back();
    const uint64_t last_slot_end =
        last == nullptr ? 0 : (last->offset + last->bytes + kAlign - 1) / kAlign * kAlign;
    if (last != nullptr && last->zero && last_slot_end == offset) {
      last->bytes = offset + bytes - last->offset;
    } else {
      plan.push_back({true, offset, bytes, 0});
    }
  }
  return plan;
}

StateBlock::StateBlock(const inferno_model& model) {
  const StateLayout layout = layout_states(model.states, model.num_states);
  plan_ = init_plan(model.states, model.num_states, layout);
  if (layout.total > 0) {
    check_cuda(cudaMalloc(&memory_, layout.total),
               ("cudaMalloc of the state (" + std::to_string(layout.total) + " bytes)").c_str());
  }
  for (const uint64_t offset : layout.offsets) {
    pointers_.push_back(memory_ == nullptr ? nullptr : static_cast<char*>(memory_) + offset);
  }
}

StateBlock::~StateBlock() {
  if (memory_ != nullptr) cudaFree(memory_);
}

void StateBlock::enqueue_init(cudaStream_t stream, const void* device_weights) const {
  char* base = static_cast<char*>(memory_);
  for (const InitOp& op : plan_) {
    if (op.zero) {
      check_cuda(cudaMemsetAsync(base + op.offset, 0, op.bytes, stream),
                 "cudaMemsetAsync of the state");
    } else {
      check_cuda(
          cudaMemcpyAsync(base + op.offset, static_cast<const char*>(device_weights) + op.source,
                          op.bytes, cudaMemcpyDeviceToDevice, stream),
          "cudaMemcpyAsync of a state's initial value");
    }
  }
}

}  // namespace inferno::runtime
