// The lowering table: per op kind, the function that writes a node's code. Each op family's file
// registers its own (emit_gemm.cpp, emit_kernel_calls.cpp, emit_fused.cpp); codegen.cpp builds
// the table once and dispatches through it. Internal to src/codegen/.
#pragma once

#include <array>
#include <cstdint>

#include "codegen/emit_context.h"
#include "ir/op.h"

namespace inferno::codegen {

/// Writes node `index`'s kernels and its statements in run().
using LowerFn = Status (*)(EmitContext& ctx, int32_t index);

struct LoweringTable {
  std::array<LowerFn, ir::kNumOpKinds> lower{};
  void add(ir::OpKind op, LowerFn fn) { lower[static_cast<size_t>(op)] = fn; }
};

/// The table, built once from every family's registration.
const LoweringTable& lowering_table();

}  // namespace inferno::codegen
