#include "codegen/emit_cumsum.h"

#include <string>

#include "codegen/elementwise_table.h"
#include "codegen/emit_grid_kernel.h"

namespace inferno::codegen {

// x viewed as [outer, n, inner]: thread i owns line (i / inner, i % inner) and adds its n elements
// in order, in the reference's accumulator: double for f32 and f64 (PyTorch's CPU accumulator),
// float for 16-bit dtypes, wrapping ew::Int for integer results.
Status emit_cumsum(EmitContext& ctx, int32_t index) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(index)];
  const ir::TensorType& in = ctx.graph.type(node.inputs[0]);
  const ir::TensorType& out = ctx.graph.type(node.outputs[0]);
  if (!ctx.open_node(node, "compute")) return Status::ok();
  const auto [outer, n, inner] = lines_along(in.shape, node.attrs.get_int("dim"));
  const ComputeType acc = !ir::is_floating(out.dtype) ? ComputeType::kInt
                          : (out.dtype == ir::DType::kF32 || out.dtype == ir::DType::kF64)
                              ? ComputeType::kDouble
                              : ComputeType::kFloat;
  const std::string in_type(storage_type(in.dtype)), out_type(storage_type(out.dtype));
  GridKernel kernel{node_kernel_name(ctx.graph, node, index),
                    ctx.describe(node),
                    "const " + in_type + "* in, " + out_type + "* out",
                    {{"in", ctx.pointer(node.inputs[0])}, {"out", ctx.pointer(node.outputs[0])}},
                    {},
                    outer * inner,
                    ctx.label(node)};
  const std::string step = std::to_string(inner);
  kernel.body.line("const int64_t first = (static_cast<int64_t>(i) / " + step + ") * " +
                   std::to_string(n * inner) + " + static_cast<int64_t>(i) % " + step + ";");
  kernel.body.line(std::string(compute_type_name(acc)) + " sum = 0;");
  kernel.body.line("for (int64_t j = 0; j < " + std::to_string(n) + "; ++j) {");
  kernel.body.line("  const int64_t at = first + j * " + step + ";");
  kernel.body.line("  sum = sum + " + load_expression(in.dtype, acc, "in[at]") + ";");
  kernel.body.line("  out[at] = " + store_expression(out.dtype, acc, "sum") + ";");
  kernel.body.line("}");
  emit_grid_kernel(ctx, kernel);
  return Status::ok();
}

void register_cumsum_lowerings(LoweringTable& table) {
  table.add(ir::OpKind::kCumsum,
            {emit_cumsum, no_scratch, never_in_place, Launches::kGridKernelsOnly});
}

}  // namespace inferno::codegen
