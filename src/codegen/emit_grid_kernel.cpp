#include "codegen/emit_grid_kernel.h"

#include <algorithm>

#include "codegen/elementwise_table.h"

namespace inferno::codegen {

namespace {

constexpr int64_t kIntRange = int64_t{1} << 31;

}  // namespace

// The loop index is an int when no i it reaches (numel plus one grid's stride) overflows one.
bool int_loop_index(int64_t numel) { return numel + kMaxBlocks * kBlockThreads < kIntRange; }

bool int_offsets(const StridedView& coalesced) { return max_offset(coalesced) < kIntRange; }

std::string element_offset(const StridedView& coalesced, const std::string& element) {
  if (is_contiguous(coalesced)) return element;
  return offset_expression(coalesced, "(" + element + ")");
}

std::string loop_header(int64_t numel, const std::string& block, const std::string& blocks) {
  const std::string n = std::to_string(numel);
  const std::string threads = std::to_string(kBlockThreads);
  if (int_loop_index(numel)) {
    return "for (int i = " + block + " * " + threads + " + threadIdx.x; i < " + n +
           "; i += " + blocks + " * " + threads + ")";
  }
  return "for (int64_t i = static_cast<int64_t>(" + block + ") * " + threads +
         " + threadIdx.x; i < " + n + "; i += static_cast<int64_t>(" + blocks + ") * " + threads +
         ")";
}

std::string loop_offset_expression(const StridedView& coalesced, int64_t numel) {
  // Each term of the sum is at most the largest offset, and so is every partial sum.
  const bool wide = int_loop_index(numel) && !int_offsets(coalesced);
  return offset_expression(coalesced, wide ? "static_cast<int64_t>(i)" : "i");
}

int64_t grid_blocks(int64_t numel) {
  return std::clamp<int64_t>((numel + kBlockThreads - 1) / kBlockThreads, 1, kMaxBlocks);
}

void emit_launch(EmitContext& ctx, const std::string& kernel, const std::string& blocks,
                 const std::string& threads, const NamedArgs& args, const std::string& label) {
  ctx.out.run.line("MODEL_LAUNCH(" + kernel + ", " + blocks + ", " + threads + ", " + label + ", " +
                   named_args(args) + ");");
}

std::string node_kernel_name(const ir::Graph& graph, const ir::Node& node, int32_t index) {
  const ir::TensorType& out = graph.type(node.outputs[0]);
  return "k" + std::to_string(index) + "_" + std::string(ir::op_name(node.op)) + "_" +
         std::string(dtype_tag(out.dtype)) + "_" + shape_tag(out.shape);
}

Lines lines_along(const ir::Shape& shape, int64_t dim) {
  Lines l;
  for (size_t d = 0; d < shape.size(); ++d) {
    const auto sd = static_cast<int64_t>(d);
    (sd < dim ? l.outer : sd == dim ? l.n : l.inner) *= shape[d];
  }
  return l;
}

std::string shape_tag(const ir::Shape& shape) {
  if (shape.empty()) return "scalar";
  std::string tag;
  for (size_t d = 0; d < shape.size(); ++d) tag += (d ? "x" : "") + std::to_string(shape[d]);
  return tag.size() <= 32 ? tag : "n" + std::to_string(ir::shape_numel(shape));
}

void emit_grid_kernel(EmitContext& ctx, const GridKernel& kernel) {
  if (ctx.in_launch_group()) {
    const int32_t last = ctx.launch_group_end[static_cast<size_t>(ctx.current_node)];
    ctx.grouped.emplace_back(ctx.current_node, kernel);
    ctx.out.run.line(
        "// (launched with its launch group, which ends at %" +
        comment_text(ctx.graph.node_name(ctx.graph.nodes()[static_cast<size_t>(last)]), 60) + ")");
    return;
  }
  write_grid_kernel(ctx, kernel);
}

void write_comment_lines(SourceWriter& out, const std::string& comment) {
  size_t begin = 0;
  while (begin < comment.size()) {
    const size_t end = std::min(comment.find('\n', begin), comment.size());
    out.line("// " + comment.substr(begin, end - begin));
    begin = end + 1;
  }
}

void write_grid_kernel(EmitContext& ctx, const GridKernel& kernel) {
  SourceWriter& k = ctx.out.kernels;
  write_comment_lines(k, kernel.comment);
  k.open("__global__ void " + kernel.name + "(" + kernel.params + ")");
  k.line("inferno::kernels::await_producers();");
  k.open(loop_header(kernel.numel));
  k.append(kernel.body);
  k.close();
  k.close();
  k.line("");
  emit_launch(ctx, kernel.name, std::to_string(grid_blocks(kernel.numel)),
              std::to_string(kBlockThreads), kernel.args, kernel.label);
}

void emit_gather_kernel(EmitContext& ctx, const std::string& name, const std::string& comment,
                        ir::DType dtype, const StridedView& coalesced, int64_t numel,
                        const std::string& in, const std::string& out, const std::string& label) {
  const std::string type(storage_type(dtype));
  GridKernel kernel{name,
                    comment,
                    "const " + type + "* in, " + type + "* out",
                    NamedArgs{{"in", in}, {"out", out}},
                    {},
                    numel,
                    label};
  kernel.body.line("out[i] = in[" + offset_expression(coalesced, "i") + "];");
  emit_grid_kernel(ctx, kernel);
}

}  // namespace inferno::codegen
