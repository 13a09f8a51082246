// A decode step's rotary and KV-cache writes done by its attention kernel.
//
// In an LLM's one-token step each layer rotates q and the new key (Llama, Qwen2, Phi-3; GPT-2
// has no rotary), writes the key and value rows into the KV cache (in-place index_copy on a
// state) and then attends to the cache. Apart, that is a launch of the rotary and cache-write
// kernels (a launch group) and the attention's launch, which must wait for it. Instead the
// attention kernel does it all (kernels/attention.cuh, attention_step): it rotates q and the key
// in its prologue, writes the rows into the caches for later steps and reads the new row from
// shared memory, not from the cache. The rotary and index_copy nodes launch nothing.
//
// The pattern, checked here and nowhere else: an attention node with one query row (sq = 1, the
// decode kernel), not causal, whose k and v are the outputs of in-place index_copy nodes (dim 2,
// one i64 index, the same for both) on two states that nothing else reads, those outputs read by
// the attention alone and no user output; each index_copy's source optionally a rotary whose only
// reader it is; q optionally a rotary read by the attention alone and no graph output; the
// rotaries sharing one cosine and one sine of a row per batch; every operand the kernel reads
// instead (the sources, cosine, sine, index) a view with a contiguous last dim. The kernel then
// reads those at the attention's place: the memory plan keeps them alive until it
// (attention_step_reads).
#pragma once

#include <cstdint>
#include <vector>

#include "codegen/memory_plan.h"
#include "codegen/views.h"
#include "ir/graph.h"

namespace inferno::codegen {

/// The nodes whose work an attention node's kernel does; k_write == -1: none.
struct AttentionStep {
  int32_t q_rotary = -1;  ///< the rotary whose output is the attention's q, or -1
  int32_t k_rotary = -1;  ///< the rotary whose output k_write writes, or -1
  int32_t k_write = -1;   ///< the index_copy writing the key cache the attention reads
  int32_t v_write = -1;   ///< the index_copy writing the value cache
};

/// By node index: the step each attention node takes over (none for other nodes). `plan` is a
/// memory plan of the graph (the cache writes must be in place on their states). Empty when
/// `enabled` is false (INFERNO_ATTENTION_STEP=0, for comparisons).
std::vector<AttentionStep> plan_attention_steps(const ir::Graph& graph, const ViewPlan& views,
                                                const MemoryPlan& plan, bool enabled);

/// By node index: the values each node's kernel reads besides its inputs (those of the nodes
/// whose work it does), for MemoryPlanOptions::extra_reads.
std::vector<std::vector<ir::ValueId>> attention_step_reads(const ir::Graph& graph,
                                                           const std::vector<AttentionStep>& steps);

/// By node index: the attention node whose kernel does the node's work, or -1.
std::vector<int32_t> attention_step_owners(const std::vector<AttentionStep>& steps);

}  // namespace inferno::codegen
