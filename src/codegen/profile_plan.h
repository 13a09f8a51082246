// The profile plan: one step per node whose code in run() launches work, in launch order, with
// what the node computes (op, source location, dtype), the kernels its lowering launched (one
// name per launch: a node may launch several, a GEMM with its in-place epilogue kernel, say) and
// its cost (kernel_cost.h). Views and aliases launch nothing and have no step; the copies of
// values into graph outputs that no node writes form one last step (node -1).
//
// The launches are read back from the statements the lowering wrote for the node, so the plan
// states what model.cu does rather than a second copy of each lowering's choices: every launch
// is a generated kernel's MODEL_LAUNCH, a statement checked by MODEL_CHECK_CUDA or
// MODEL_CHECK_CUBLAS, or a `<<<...>>>` launch followed by MODEL_CHECK_LAUNCH
// (kernels/model_support.cuh), and launched_kernels() refuses a block whose checks and launches
// do not pair up.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "codegen/codegen.h"
#include "codegen/kernel_cost.h"
#include "ir/graph.h"
#include "support/source_location.h"
#include "support/status.h"

namespace inferno::codegen {

struct KernelCost {
  int32_t node = -1;                  ///< index in graph.nodes(); -1: the output copies
  std::string node_name;              ///< "add_2" (no '%'); "outputs" for the output copies
  std::string op;                     ///< "gemm"; "copy" for the output copies
  SourceLocation loc;                 ///< where the model's source made the node, if known
  ir::DType dtype = ir::DType::kF32;  ///< the node's output dtype
  std::vector<std::string> kernels;   ///< one per launch: "cublasLt", "attention<__half, 64>", ...
  std::string choice;                 ///< the kernels joined, with what they run on
  NodeWork work;
};

/// The kernels a node's statements in run() launch, one entry per launch, in order; an internal
/// error when the statements hold a launch codegen does not know how to name.
std::vector<std::string> launched_kernels(std::string_view run_block);

/// "cublasLt f32" etc.: the kernels joined by " + ", with what runs them where it is a choice
/// (tensor cores or not, TF32, attention's decode kernel), from the dtype, the target, the kernels'
/// names and whether the node is an attention with few enough query rows for the decode kernel.
std::string kernel_choice(const std::vector<std::string>& kernels, ir::DType dtype,
                          bool decode_attention, const target::Target& target);

/// The plan generate() makes for `graph` (the model; variants are not included), or its error.
Expected<std::vector<KernelCost>> profile_plan(const ir::Graph& graph,
                                               const CodegenOptions& options);

/// One node's step from the statements its lowering wrote in run() (`run_block`); nullopt when
/// they launch nothing (a view, an alias, an empty output). node -1: the output copies.
/// The step's node fields (name, op, source, dtype, work) from node `node`.
void describe_node(KernelCost& step, const ir::Graph& graph, int32_t node);

/// A launch group's step (launch_groups.h), made for its last node: with several members, op
/// "launch group", the members' work summed and their kernels named; with one, that member's.
void describe_launch_group(KernelCost& step, const ir::Graph& graph,
                           const std::vector<std::pair<int32_t, std::string>>& members);

std::optional<KernelCost> make_step(const ir::Graph& graph, int32_t node,
                                    std::string_view run_block, const target::Target& target);

/// The plan as a table (`infernoc --emit profile-plan`): one row per step, totals at the end.
std::string profile_plan_to_string(const std::vector<KernelCost>& plan);

}  // namespace inferno::codegen
