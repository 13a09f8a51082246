// The lowering table: per op kind, the record of how codegen lowers a node: the function that
// writes its code, and the facts the memory plan needs from it (its scratch, the inputs it may
// overwrite). Each op family's file registers its own (emit_gemm.cpp, emit_kernel_calls.cpp,
// emit_fused.cpp, ...); codegen.cpp builds the table once and dispatches through it. Internal to
// src/codegen/.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "codegen/emit_context.h"
#include "ir/op.h"

namespace inferno::codegen {

/// Writes node `index`'s kernels and its statements in run().
using LowerFn = Status (*)(EmitContext& ctx, int32_t index);
/// Bytes of arena scratch the node needs while it runs (0: none).
using ScratchFn = int64_t (*)(const ir::Graph& graph, const ir::Node& node);
/// The inputs (positions) the node's kernel reads only at the output element's own position, so
/// that its output may be written over them (MemoryPlanOptions::aligned_inputs).
using InPlaceFn = std::vector<int32_t> (*)(const ir::Graph& graph, const ir::Node& node);

/// For lowerings that need no scratch.
int64_t no_scratch(const ir::Graph& graph, const ir::Node& node);
/// For lowerings whose output never overwrites an input.
std::vector<int32_t> never_in_place(const ir::Graph& graph, const ir::Node& node);

/// What a node's lowering launches.
enum class Launches : uint8_t {
  kAny,              ///< library kernels, cuBLASLt, generated kernels: anything
  kGridKernelsOnly,  ///< only generated grid kernels (emit_grid_kernel), which launch groups merge
};

/// One op's lowering. The first three fields are required (the table refuses a null one, and the
/// op-table test checks every lowered op): a new lowering states its memory facts where it is
/// registered. `launches` says whether its kernels may join a launch group (launch_groups.h).
struct Lowering {
  LowerFn lower;
  ScratchFn scratch_bytes;
  InPlaceFn in_place_inputs;
  Launches launches = Launches::kAny;
};

struct LoweringTable {
  std::array<Lowering, ir::kNumOpKinds> entries{};
  void add(ir::OpKind op, const Lowering& lowering);
  const Lowering& operator[](ir::OpKind op) const { return entries[static_cast<size_t>(op)]; }
};

/// The table, built once from every family's registration.
const LoweringTable& lowering_table();

}  // namespace inferno::codegen
