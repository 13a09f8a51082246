// Where every value of a graph lives while the generated run() executes: a graph input, the
// weights blob, a caller's output buffer, or an offset in the session's arena.
//
// How the plan is made:
//  - Reshape is zero-copy: its output aliases its input's bytes. Values that share bytes form an
//    alias group whose root is the first value of the chain (a node output, input or constant).
//    Codegen makes more layout nodes aliases (MemoryPlanOptions::aliases_input, views.h): a
//    permute, slice or expand that its readers read as a strided view of the group's bytes (never
//    materialized), and a permute whose input's producer writes the permuted layout directly.
//    Such a member is no contiguous copy of the root; only view readers read it, and as a reader
//    of the group it keeps the group's bytes alive and out of in-place reuse until it runs.
//  - Graph outputs: the group of an intermediate that is (or is reshaped into) a graph output is
//    written straight into the caller's buffer of the first such output. Every other graph output
//    (a graph input or constant, or a reshape of one; a value listed twice; a second output of
//    one group) gets a copy into its buffer at the end of run().
//  - Every other group gets an arena buffer, live from its defining node to its last use (the
//    end of run() when an output copy reads it). Buffers are placed first-fit, in node order,
//    into ranges freed by groups whose last use came before the current node; offsets are
//    256-byte aligned. A node's scratch buffer lives only during that node.
//  - In place: a node may write its output over one of its inputs (the output's buffer starts at
//    the input's offset) when the node's kernel reads that input only at the output element's
//    own position (MemoryPlanOptions::aligned_inputs), the input's group is an arena buffer whose
//    last use is this node, the node reads no other part of that group, the two have the same
//    byte size, and the output is an arena value itself.
//  - State: a state's value lives in its session buffer. Its update is copied there at the end of
//    run() (after every read of the old value), except when the update is the state itself, or a
//    node's output written over the state: a node that may overwrite its input (its lowering's
//    in-place inputs) and is the state value's only reader joins the state's group, so an LLM's
//    KV cache takes its new rows in place (index_copy) and is never copied whole.
//  - The arena is the planned bytes, then the cuBLASLt workspace (when the model has GEMMs).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace inferno::codegen {

/// Alignment of every arena offset and weights offset, in bytes.
inline constexpr int64_t kBufferAlignment = 256;
/// The cuBLASLt workspace a model with GEMMs reserves at the end of its arena.
inline constexpr int64_t kGemmWorkspaceBytes = int64_t{32} << 20;

int64_t align_up(int64_t bytes, int64_t alignment = kBufferAlignment);

enum class StorageKind : uint8_t {
  kInput,     ///< args->inputs[index]
  kConstant,  ///< the weights blob (the root constant's offset there)
  kArena,     ///< arena buffer `index`
  kOutput,    ///< args->outputs[index]
  kState,     ///< args->states[index]: the session's state (ir::StateInfo)
};

/// Where one value's bytes are. Every member of an alias group has its root's storage.
struct Storage {
  StorageKind kind = StorageKind::kArena;
  int32_t index = -1;               ///< input, output or arena buffer index (constants: unused)
  ir::ValueId root = ir::kNoValue;  ///< the value that owns the bytes (itself unless an alias)
};

/// One arena range and who uses it.
struct ArenaBuffer {
  int64_t offset = 0;
  int64_t bytes = 0;       ///< as requested (the next buffer may start at align_up(offset + bytes))
  int32_t first_node = 0;  ///< live from this node...
  int32_t last_node = 0;   ///< ...through this one; the node count means "until the output copies"
  ir::ValueId value = ir::kNoValue;  ///< the alias group's root; kNoValue for a node's scratch
  int32_t scratch_node = -1;         ///< the node whose scratch this is, or -1
  ir::ValueId in_place_of =
      ir::kNoValue;  ///< the input group whose bytes first_node overwrites, or kNoValue
};

/// A graph output the producing node does not write directly: copied from `value` at the end
/// into the caller's output buffer, or, for a state's update (output >= num_user_outputs), into
/// the state's buffer.
struct OutputCopy {
  int32_t output = 0;
  ir::ValueId value = ir::kNoValue;
};

struct MemoryPlan {
  std::vector<Storage> storage;  ///< by ValueId; only inputs, constants and node outputs
  std::vector<ArenaBuffer> buffers;
  std::vector<int32_t> scratch_buffer;    ///< by node index: arena buffer index, or -1
  std::vector<OutputCopy> output_copies;  ///< in output order
  int64_t planned_bytes = 0;   ///< end of the highest buffer, aligned: the peak of live bytes
  int64_t unshared_bytes = 0;  ///< sum of every buffer's aligned size: what no reuse would take
  int64_t workspace_offset = 0;
  int64_t workspace_bytes = 0;
  int64_t arena_bytes = 0;  ///< planned bytes + workspace

  const Storage& of(ir::ValueId value) const { return storage.at(static_cast<size_t>(value)); }
};

struct MemoryPlanOptions {
  /// Scratch bytes each node needs for itself (by node index); empty or 0: none. codegen takes
  /// both this and aligned_inputs from each node's lowering (lowering.h).
  std::vector<int64_t> scratch_bytes;
  /// Reserved after the planned buffers (kGemmWorkspaceBytes for models with GEMMs).
  int64_t workspace_bytes = 0;
  /// By node index: the inputs (positions) the node's kernel reads only at the output element's
  /// own position, so that its output may overwrite them. Empty: elementwise_aligned_inputs of
  /// every node.
  std::vector<std::vector<int32_t>> aligned_inputs;
  bool in_place = true;  ///< false: never write an output over an input
  /// By node index: the node's output shares input 0's bytes (joins its alias group) and gets no
  /// buffer. Empty: reshapes only.
  std::vector<bool> aliases_input;
  /// By node index: values the node's kernel reads besides its inputs (it does the work of nodes
  /// before it: codegen/attention_step.h), live until it. Empty: none.
  std::vector<std::vector<ir::ValueId>> extra_reads;
};

/// The inputs of an elementwise or fused_elementwise node with the output's shape (the generated
/// kernels read those at the output's own index); none for other ops.
std::vector<int32_t> elementwise_aligned_inputs(const ir::Graph& graph, const ir::Node& node);

/// True when a and b are the same bytes: one state, or arena buffers at one offset (an output
/// the plan placed over its input).
bool same_bytes(const MemoryPlan& plan, ir::ValueId a, ir::ValueId b);

/// Plans `graph`, which must be verified (topologically ordered, every value defined once).
MemoryPlan plan_memory(const ir::Graph& graph, const MemoryPlanOptions& options = {});

/// The plan as text, one line per buffer and per graph output, for tests and INFERNO_DEBUG:
///   arena: 2 buffers, peak 256 bytes (unshared 512), workspace 0 at 256, total 256
///   buffer 0: [0, 128) 128 bytes, nodes 0..1, %a
///   buffer 1: [0, 128) 128 bytes, nodes 1..2, %b (in place of %a)
///   output 0 %y: written by node 2
///   output 1 %v: written by node 3 (as %c)       (%v is a reshape of %c)
///   output 2 %x: copy of input 0
std::string memory_plan_to_string(const ir::Graph& graph, const MemoryPlan& plan);

}  // namespace inferno::codegen
