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
  SourceWriter& run = ctx.out.run;
  run.line("// " + ctx.describe(node));
  if (out_type.numel() == 0) {
    run.line("// (no elements: nothing to compute)");
    return Status::ok();
  }
  const bool bilinear = node.op == ir::OpKind::kUpsampleBilinear2d;
  const bool align = bilinear && node.attrs.get_bool("align_corners");
  auto num = [](int64_t v) { return std::to_string(v); };
  ctx.out.headers.insert("kernels/upsample.cuh");
  run.line("MODEL_CHECK_CUDA(inferno::kernels::upsample2d<" +
           std::string(storage_type(in_type.dtype)) + ">(" +
           named_args({{"in", ctx.pointer(in)},
                       {"out", ctx.pointer(out)},
                       {"planes", num(in_type.shape[0] * in_type.shape[1])},
                       {"in_h", num(in_type.shape[2])},
                       {"in_w", num(in_type.shape[3])},
                       {"out_h", num(out_type.shape[2])},
                       {"out_w", num(out_type.shape[3])},
                       {"bilinear", bilinear ? "true" : "false"},
                       {"align_corners", align ? "true" : "false"},
                       {"scale_h", double_literal(node.attrs.get_float("scale_h"))},
                       {"scale_w", double_literal(node.attrs.get_float("scale_w"))}}) +
           ", stream), " + ctx.label(node) + ");");
  return Status::ok();
}

void register_resize_lowerings(LoweringTable& table) {
  table.add(ir::OpKind::kUpsampleNearest2d, emit_upsample);
  table.add(ir::OpKind::kUpsampleBilinear2d, emit_upsample);
}

}  // namespace inferno::codegen
