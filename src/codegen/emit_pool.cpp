// Pooling: one pool2d launch per node (emit_pool.h).
#include "codegen/emit_pool.h"

#include <string>

#include "codegen/elementwise_table.h"
#include "ir/channels_last.h"
#include "support/check.h"

namespace inferno::codegen {

Status emit_pool(EmitContext& ctx, int32_t index) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(index)];
  const ir::ValueId in = node.inputs[0], out = node.outputs[0];
  const ir::TensorType& in_type = ctx.graph.type(in);
  const ir::TensorType& out_type = ctx.graph.type(out);
  if (!ir::is_floating(in_type.dtype))
    return ctx.unsupported_node(node, "expects a floating-point input");
  INFERNO_CHECK(in_type.rank() >= 3 && out_type.rank() == in_type.rank(), "pool: bad ranks");
  const ir::PoolDims dims = ir::pool_dims(node.attrs, in_type.shape.size());
  const size_t h = dims.h, w = dims.w;
  if (!ctx.open_node(node, "compute")) return Status::ok();
  // The adaptive modes read no kernel, stride, padding or dilation: 1, 1, 0, 1 stand in.
  ir::IntList kernel = {1, 1}, stride = {1, 1}, padding = {0, 0}, dilation = {1, 1};
  std::string mode;
  bool count_include_pad = false;
  int64_t divisor = 0;
  switch (node.op) {
    case ir::OpKind::kMaxPool2d:
    case ir::OpKind::kAvgPool2d:
      kernel = node.attrs.get_ints("kernel");
      stride = node.attrs.get_ints("stride");
      padding = node.attrs.get_ints("padding");
      if (node.op == ir::OpKind::kMaxPool2d) {
        dilation = node.attrs.get_ints("dilation");
        mode = "kMax";
      } else {
        count_include_pad = node.attrs.get_bool("count_include_pad");
        divisor = node.attrs.get_int("divisor_override");
        mode = "kAvg";
      }
      break;
    case ir::OpKind::kAdaptiveMaxPool2d:
      mode = "kAdaptiveMax";
      break;
    case ir::OpKind::kAdaptiveAvgPool2d:
      mode = "kAdaptiveAvg";
      break;
    default:
      INFERNO_CHECK(false, "emit_pool: not a pooling op");
  }
  ctx.out.headers.insert("kernels/pool.cuh");
  NamedArgs args = {{"in", ctx.pointer(in)}, {"out", ctx.pointer(out)}};
  if (dims.nhwc) {  // images and channels
    args.insert(args.end(),
                {{"n", decimal(in_type.shape[0])}, {"c", decimal(in_type.shape[dims.c])}});
  } else {  // every dim before the window's is a plane
    args.push_back({"planes", decimal(in_type.numel() / (in_type.shape[h] * in_type.shape[w]))});
  }
  const NamedArgs geometry = {{"in_h", decimal(in_type.shape[h])},
                              {"in_w", decimal(in_type.shape[w])},
                              {"out_h", decimal(out_type.shape[h])},
                              {"out_w", decimal(out_type.shape[w])},
                              {"kernel_h", decimal(kernel[0])},
                              {"kernel_w", decimal(kernel[1])},
                              {"stride_h", decimal(stride[0])},
                              {"stride_w", decimal(stride[1])},
                              {"pad_h", decimal(padding[0])},
                              {"pad_w", decimal(padding[1])},
                              {"dilation_h", decimal(dilation[0])},
                              {"dilation_w", decimal(dilation[1])},
                              {"mode", "inferno::kernels::PoolMode::" + mode},
                              {"count_include_pad", count_include_pad ? "true" : "false"},
                              {"divisor", decimal(divisor)}};
  args.insert(args.end(), geometry.begin(), geometry.end());
  const std::string launcher = dims.nhwc ? "pool2d_nhwc" : "pool2d";
  ctx.out.run.line("MODEL_CHECK_CUDA(inferno::kernels::" + launcher + "<" +
                   std::string(storage_type(in_type.dtype)) + ">(" + named_args(args) +
                   ", stream), " + ctx.label(node) + ");");
  return Status::ok();
}

void register_pool_lowerings(LoweringTable& table) {
  for (const ir::OpKind op : {ir::OpKind::kMaxPool2d, ir::OpKind::kAvgPool2d,
                              ir::OpKind::kAdaptiveAvgPool2d, ir::OpKind::kAdaptiveMaxPool2d})
    table.add(op, {emit_pool, no_scratch, never_in_place});
}

}  // namespace inferno::codegen
