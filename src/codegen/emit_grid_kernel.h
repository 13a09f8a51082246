// Generated grid-stride kernels: the loop every generated __global__ runs (256-thread blocks,
// broadcasting by literal index arithmetic), the kernel's wrapper, and its launch in run(). The
// fused elementwise kernels, gathers and GEMM epilogue kernels are all written through it.
#pragma once

#include <cstdint>
#include <string>

#include "codegen/emit_context.h"
#include "codegen/grid_kernel.h"
#include "codegen/strided_view.h"

namespace inferno::codegen {

/// Threads per block of every generated kernel.
inline constexpr int64_t kBlockThreads = 256;
/// Most blocks a generated grid-stride kernel is launched with (32 per SM of an H200).
inline constexpr int64_t kMaxBlocks = 132 * 32;

/// "for (int i = ...; i < numel; ...)": the grid-stride loop over flat index `i` every generated
/// kernel runs (int64 indices when int could overflow), and the blocks it is launched with.
/// `block` and `blocks` name the block's index and the grid's blocks (a launch group's member
/// counts its own, launch_groups.h).
std::string loop_header(int64_t numel, const std::string& block = "blockIdx.x",
                        const std::string& blocks = "gridDim.x");
int64_t grid_blocks(int64_t numel);
/// The launch of a generated kernel in run(): MODEL_LAUNCH (kernels/model_support.cuh), which
/// checks it and names `label` on failure. Every generated kernel keeps the dependent-launch
/// contract (kernels/dependent_launch.cuh): it awaits its producers before it reads run data.
void emit_launch(EmitContext& ctx, const std::string& kernel, const std::string& blocks,
                 const std::string& threads, const NamedArgs& args, const std::string& label);
/// The source offset of the loop's element i (loop_header(numel)) through a coalesced view, as
/// offset_expression, but in int64 where i is an int and the view reaches past int's range (a
/// view of a source larger than the loop).
std::string loop_offset_expression(const StridedView& coalesced, int64_t numel);
/// The offset through a coalesced view of the element at row-major index `element` (an
/// expression): `element` itself when the view is its source's own contiguous bytes.
std::string element_offset(const StridedView& coalesced, const std::string& element);
/// Whether a grid loop over `numel` elements (and one grid's stride past it) counts in int.
bool int_loop_index(int64_t numel);
/// Whether every offset a coalesced view reaches fits an int.
bool int_offsets(const StridedView& coalesced);

/// "4x8", "scalar" for rank 0, or "n<numel>" when the dims would make a long name.
std::string shape_tag(const ir::Shape& shape);

/// "k<index>_<op>_<dtype>_<shape>" of node `index`'s output: a kernel name unique in model.cu.
std::string node_kernel_name(const ir::Graph& graph, const ir::Node& node, int32_t index);

/// A tensor of `shape` viewed as [outer, n, inner] around `dim` (a scalar is [1, 1, 1]): the
/// lines of n elements, inner apart, that softmax, cumsum and argmax walk.
struct Lines {
  int64_t outer = 1, n = 1, inner = 1;
};
Lines lines_along(const ir::Shape& shape, int64_t dim);

/// Appends the kernel to the kernels section and its launch (with the launch check) to run();
/// when the node being lowered is in a launch group (launch_groups.h), holds it for the group's
/// one launch instead.
void emit_grid_kernel(EmitContext& ctx, const GridKernel& kernel);
/// Each line of `comment` as a `//` line of `out`.
void write_comment_lines(SourceWriter& out, const std::string& comment);
/// Appends the kernel and its launch now, in or out of a launch group.
void write_grid_kernel(EmitContext& ctx, const GridKernel& kernel);

/// A generated gather kernel `name`: out[i] = in[offset(i)] over `numel` elements of `dtype`, for
/// copies the strided_copy launcher does not take (more than kMaxRank dims after coalescing).
/// Appends the kernel (under `comment`) and its launch from `in` to `out` in run().
void emit_gather_kernel(EmitContext& ctx, const std::string& name, const std::string& comment,
                        ir::DType dtype, const StridedView& coalesced, int64_t numel,
                        const std::string& in, const std::string& out, const std::string& label);

}  // namespace inferno::codegen
