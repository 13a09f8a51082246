// Elementwise nodes: one generated __global__ per node (a grid-stride loop of 256-thread blocks,
// broadcasting by literal index arithmetic), and its launch in run().
#pragma once

#include <cstdint>
#include <string>

#include "codegen/emit_context.h"
#include "codegen/strided_view.h"

namespace inferno::codegen {

/// Threads per block of every generated kernel.
inline constexpr int64_t kBlockThreads = 256;
/// Most blocks a generated grid-stride kernel is launched with (32 per SM of an H200).
inline constexpr int64_t kMaxBlocks = 132 * 32;

/// "for (int i = ...; i < numel; ...)": the grid-stride loop over flat index `i` every generated
/// kernel runs (int64 indices when int could overflow), and its launch "<<<blocks, 256, 0,
/// stream>>>".
std::string loop_header(int64_t numel);
std::string launch_config(int64_t numel);

/// An op's part of a kernel name: "relu", "gelu_tanh", "cast_f32_to" (the target dtype follows).
std::string op_tag(ir::OpKind op, const ir::Attributes& attrs, ir::DType first_input);

/// Lowers elementwise node `index` (relu ... div).
Status emit_elementwise(EmitContext& ctx, int32_t index);

/// "4x8", "scalar" for rank 0, or "n<numel>" when the dims would make a long name.
std::string shape_tag(const ir::Shape& shape);

/// A generated gather kernel `name`: out[i] = in[offset(i)] over `numel` elements of `dtype`, for
/// copies the strided_copy launcher does not take (more than kMaxRank dims after coalescing).
/// Appends the kernel (under `comment`) and its launch from `in` to `out` in run().
void emit_gather_kernel(EmitContext& ctx, const std::string& name, const std::string& comment,
                        ir::DType dtype, const StridedView& coalesced, int64_t numel,
                        const std::string& in, const std::string& out, const std::string& label);

}  // namespace inferno::codegen
