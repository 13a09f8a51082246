#include "codegen/emit_conv.h"

#include <string>

#include "codegen/elementwise_table.h"
#include "support/check.h"

namespace inferno::codegen {

// The sizes come from the verified graph (the shape rule bounds every attribute below 2^31 and
// every shape by checked_numel), and go into model.cu as integer literals only.
Status emit_conv(EmitContext& ctx, int32_t index) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(index)];
  const ir::TensorType& x = ctx.graph.type(node.inputs[0]);
  const ir::TensorType& w = ctx.graph.type(node.inputs[1]);
  const ir::TensorType& out = ctx.graph.type(node.outputs[0]);
  if (!ir::is_floating(x.dtype)) {
    return ctx.unsupported_node(node, "expects a floating-point input, got " + x.to_string());
  }
  INFERNO_CHECK(x.rank() == 4 && w.rank() == 4 && out.rank() == 4, "conv: rank 4 operands");
  const bool transposed = node.op == ir::OpKind::kConvTranspose2d;
  const ir::IntList &stride = node.attrs.get_ints("stride"),
                    &padding = node.attrs.get_ints("padding"),
                    &dilation = node.attrs.get_ints("dilation");
  SourceWriter& run = ctx.out.run;
  run.line("// " + ctx.describe(node));
  if (out.numel() == 0) {
    run.line("// (no elements: nothing to compute)");
    return Status::ok();
  }
  ctx.out.headers.insert("kernels/conv.cuh");
  auto n = [](int64_t v) { return std::to_string(v); };
  run.open("");
  run.line("const inferno::kernels::Conv2dShape shape = {" +
           named_args({{"n", n(x.shape[0])},
                       {"c", n(x.shape[1])},
                       {"h", n(x.shape[2])},
                       {"w", n(x.shape[3])},
                       {"o", n(out.shape[1])},
                       {"kh", n(w.shape[2])},
                       {"kw", n(w.shape[3])},
                       {"oh", n(out.shape[2])},
                       {"ow", n(out.shape[3])},
                       {"stride_h", n(stride[0])},
                       {"stride_w", n(stride[1])},
                       {"pad_top", n(padding[0])},
                       {"pad_left", n(padding[1])},
                       {"dilation_h", n(dilation[0])},
                       {"dilation_w", n(dilation[1])},
                       {"groups", n(node.attrs.get_int("groups"))}}) +
           "};");
  const bool has_bias = node.inputs.size() > 2;
  run.line("MODEL_CHECK_CUDA(inferno::kernels::" +
           std::string(transposed ? "conv_transpose2d<" : "conv2d<") +
           std::string(storage_type(x.dtype)) + ">(" +
           named_args({{"in", ctx.pointer(node.inputs[0])},
                       {"w", ctx.pointer(node.inputs[1])},
                       {"bias", has_bias ? ctx.pointer(node.inputs[2]) : "nullptr"},
                       {"out", ctx.pointer(node.outputs[0])},
                       {"shape", "shape"}}) +
           ", stream), " + ctx.label(node) + ");");
  run.close();
  return Status::ok();
}

void register_conv_lowerings(LoweringTable& table) {
  table.add(ir::OpKind::kConv2d, emit_conv);
  table.add(ir::OpKind::kConvTranspose2d, emit_conv);
}

}  // namespace inferno::codegen
