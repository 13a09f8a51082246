// What every lowering function sees: the graph, the memory plan, the weights layout, and the
// sections of model.cu it appends to. Internal to src/codegen/.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "codegen/attention_step.h"
#include "codegen/codegen.h"
#include "codegen/grid_kernel.h"
#include "codegen/memory_plan.h"
#include "codegen/source_writer.h"
#include "codegen/views.h"
#include "codegen/weights.h"
#include "ir/graph.h"
#include "support/status.h"

namespace inferno::codegen {

/// The parts of model.cu that per-node lowering appends to, in node order.
struct ModelSections {
  SourceWriter kernels;            ///< file scope: one __global__ per elementwise node
  SourceWriter gemm_specs;         ///< entries of the kGemms table
  SourceWriter run;                ///< statements of run(), one block per node
  std::set<std::string> headers;   ///< kernels/*.cuh the launches need
  std::set<std::string> functors;  ///< file-scope functors written so far (shared by name)
  int32_t num_gemms = 0;
  bool checks_alignment = false;  ///< run() checks caller buffers' alignment (misaligned())
};

class EmitContext {
 public:
  EmitContext(const ir::Graph& graph, const MemoryPlan& plan, const ViewPlan& views,
              const WeightsLayout& weights, const CodegenOptions& options, ModelSections& out);

  const ir::Graph& graph;
  const MemoryPlan& plan;
  const ViewPlan& views;  ///< which layout nodes are views (no copy) and how readers read them
  const WeightsLayout& weights;
  const CodegenOptions& options;
  ModelSections& out;
  /// The model's other variants (kVariants), emitted for the first variant only; else 0.
  int32_t num_variants = 0;
  /// By node: the weight its GEMV prefetches into L2 for the next GEMV (plan_gemv_prefetches,
  /// emit_gemm.h), or kNoValue; empty: none anywhere.
  std::vector<ir::ValueId> gemv_prefetch;
  /// By node: the attention node whose kernel does its work (attention_step.h), or -1; empty:
  /// none.
  std::vector<int32_t> attention_step_owner;
  /// By node: what an attention node's kernel takes over (attention_step.h); empty: nothing.
  std::vector<AttentionStep> attention_steps;
  /// By node: the last node of its launch group (plan_launch_groups, launch_groups.h), or -1;
  /// empty: no groups.
  std::vector<int32_t> launch_group_end;
  /// The node being lowered (codegen.cpp sets it).
  int32_t current_node = -1;
  /// The current launch group's grid kernels so far, each with its node, held for one launch.
  std::vector<std::pair<int32_t, GridKernel>> grouped;

  /// The attention node whose kernel does node's work (attention_step.h), or -1.
  int32_t attention_step_owner_of(int32_t node) const {
    return static_cast<size_t>(node) < attention_step_owner.size()
               ? attention_step_owner[static_cast<size_t>(node)]
               : -1;
  }

  /// Whether the node being lowered is in a launch group.
  bool in_launch_group() const {
    return current_node >= 0 && static_cast<size_t>(current_node) < launch_group_end.size() &&
           launch_group_end[static_cast<size_t>(current_node)] >= 0;
  }

  /// The pointer variable run() declares for a value (see codegen.cpp), e.g. "v_fc1_weight".
  const std::string& pointer(ir::ValueId v) const {
    return identifiers_.at(static_cast<size_t>(v));
  }
  /// The pointer expression of a view's first element: "v_qkv" or "(v_qkv + 64)".
  std::string view_pointer(const ValueView& view) const;
  /// "%add_2 = add(%mul, %y) {alpha=1.0} at export_fixtures.py:110", safe inside a // comment.
  std::string describe(const ir::Node& node) const;
  /// The node's name as a C string literal for error messages: "\"%add_2\"".
  std::string label(const ir::Node& node) const;
  /// An unsupported Status naming the node, its op and what is missing.
  Status unsupported_node(const ir::Node& node, const std::string& what) const;
  /// Opens `node`'s statements in run() with its description. False when its output has no
  /// elements: then a comment says there is nothing to `verb` and the lowering writes no more.
  bool open_node(const ir::Node& node, const std::string& verb);
  /// "arena + 1024": the start of node `index`'s scratch buffer (which must exist).
  std::string scratch(int32_t node_index) const;

 private:
  std::vector<std::string> identifiers_;
};

}  // namespace inferno::codegen
