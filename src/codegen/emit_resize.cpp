// Resizing: one upsample2d launch per node (emit_resize.h).
#include "codegen/emit_resize.h"

#include <string>

#include "codegen/elementwise_table.h"
#include "support/check.h"

namespace inferno::codegen {
Status emit_upsample(EmitContext& ctx, int32_t index) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(index)];
  const ir::ValueId in = node.inputs[0], out = node.outputs[0];
  const ir::TensorType& in_type = ctx.graph.type(in);
  const ir::TensorType& out_type = ctx.graph.type(out);
  if (!ir::is_floating(in_type.dtype))
    return ctx.unsupported_node(node, "expects a floating-point input");
  INFERNO_CHECK(in_type.rank() == 4 && out_type.rank() == 4, "upsample: not 4-D");
  if (!ctx.open_node(node, "compute")) return Status::ok();
  const bool bilinear = node.op == ir::OpKind::kUpsampleBilinear2d;
  const bool align = bilinear && node.attrs.get_bool("align_corners");
  ctx.out.headers.insert("kernels/upsample.cuh");
  ctx.out.run.line("MODEL_CHECK_CUDA(inferno::kernels::upsample2d<" +
                   std::string(storage_type(in_type.dtype)) + ">(" +
                   named_args({{"in", ctx.pointer(in)},
                               {"out", ctx.pointer(out)},
                               {"planes", decimal(in_type.shape[0] * in_type.shape[1])},
                               {"in_h", decimal(in_type.shape[2])},
                               {"in_w", decimal(in_type.shape[3])},
                               {"out_h", decimal(out_type.shape[2])},
                               {"out_w", decimal(out_type.shape[3])},
                               {"bilinear", bilinear ? "true" : "false"},
                               {"align_corners", align ? "true" : "false"},
                               {"scale_h", double_literal(node.attrs.get_float("scale_h"))},
                               {"scale_w", double_literal(node.attrs.get_float("scale_w"))}}) +
                   ", stream), " + ctx.label(node) + ");");
  return Status::ok();
}

void register_resize_lowerings(LoweringTable& table) {
  for (const ir::OpKind op : {ir::OpKind::kUpsampleNearest2d, ir::OpKind::kUpsampleBilinear2d})
    table.add(op, {emit_upsample, no_scratch, never_in_place});
}

}  // namespace inferno::codegen
