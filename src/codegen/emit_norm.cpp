// Normalization: one layer_norm, rms_norm or group_norm launch per node (emit_norm.h).
#include "codegen/emit_norm.h"

#include <string>

#include "codegen/elementwise_table.h"
#include "support/check.h"

namespace inferno::codegen {

// The sizes come from the verified graph (shapes bounded by checked_numel) and go into model.cu as
// integer literals, eps as an exact double literal.
Status emit_norm(EmitContext& ctx, int32_t index) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(index)];
  const ir::TensorType& x = ctx.graph.type(node.inputs[0]);
  if (!ir::is_floating(x.dtype)) {
    return ctx.unsupported_node(node, "expects a floating-point input, got " + x.to_string());
  }
  SourceWriter& run = ctx.out.run;
  run.line("// " + ctx.describe(node));
  if (x.numel() == 0) {
    run.line("// (no elements: nothing to compute)");
    return Status::ok();
  }
  ctx.out.headers.insert("kernels/norm.cuh");
  auto n = [](int64_t v) { return std::to_string(v); };
  const bool rms = node.op == ir::OpKind::kRmsNorm;
  NamedArgs args = {{"in", ctx.pointer(node.inputs[0])},
                    {"weight", node.inputs.size() > 1 ? ctx.pointer(node.inputs[1]) : "nullptr"}};
  if (!rms)
    args.push_back({"bias", node.inputs.size() > 2 ? ctx.pointer(node.inputs[2]) : "nullptr"});
  args.push_back({"out", ctx.pointer(node.outputs[0])});
  std::string kernel;
  if (node.op == ir::OpKind::kLayerNorm || rms) {
    const int64_t dims = node.attrs.get_int("normalized_dims");
    INFERNO_CHECK(dims >= 1 && dims <= x.rank(), "layer_norm: bad normalized_dims");
    const int64_t length = ir::shape_numel(ir::Shape(x.shape.end() - dims, x.shape.end()));
    kernel = rms ? "rms_norm" : "layer_norm";
    args.push_back({"rows", n(x.numel() / length)});
    args.push_back({"length", n(length)});
  } else {
    INFERNO_CHECK(node.op == ir::OpKind::kGroupNorm && x.rank() >= 2, "group_norm: bad node");
    kernel = "group_norm";
    args.push_back({"batch", n(x.shape[0])});
    args.push_back({"channels", n(x.shape[1])});
    args.push_back({"spatial", n(x.numel() / (x.shape[0] * x.shape[1]))});
    args.push_back({"groups", n(node.attrs.get_int("groups"))});
  }
  args.push_back({"eps", double_literal(node.attrs.get_float("eps"))});
  run.line("MODEL_CHECK_CUDA(inferno::kernels::" + kernel + "<" +
           std::string(storage_type(x.dtype)) + ">(" + named_args(args) + ", stream), " +
           ctx.label(node) + ");");
  return Status::ok();
}

void register_norm_lowerings(LoweringTable& table) {
  for (const ir::OpKind op : {ir::OpKind::kLayerNorm, ir::OpKind::kRmsNorm, ir::OpKind::kGroupNorm})
    table.add(op, {emit_norm, no_scratch, never_in_place});
}

}  // namespace inferno::codegen
