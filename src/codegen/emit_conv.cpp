#include "codegen/emit_conv.h"

#include <optional>
#include <string>
#include <string_view>

#include "codegen/conv_kernel_choice.h"
#include "codegen/elementwise_table.h"
#include "kernels/conv_depthwise_plan.h"
#include "kernels/conv_igemm_plan.h"
#include "support/check.h"

namespace inferno::codegen {
namespace {

// conv2d's activation as a functor at file scope (the form kernels/conv.cuh takes): its body is
// the elementwise op's expression from ops.def in the kernel's accumulation type, so the epilogue
// computes what the unfused op would. One functor per activation and type, shared by every conv
// that uses it: each functor type is another instantiation of the conv kernels for nvcc to
// compile. Returns the functor's name; "" for activation "none".
std::string emit_activation(EmitContext& ctx, const ir::Node& node, ir::DType dtype) {
  const std::string& activation = node.attrs.get_string("activation");
  if (activation == "none") return "";
  const std::optional<ir::OpKind> op = ir::parse_op_name(activation);
  INFERNO_CHECK(op.has_value(), "conv2d: the shape rule admits only known activations");
  const ComputeType compute = dtype == ir::DType::kF64 ? ComputeType::kDouble : ComputeType::kFloat;
  const std::string type(compute_type_name(compute));
  // The op's table name (an identifier) and the type: nothing from the model.
  const std::string name = "conv_activation_" + std::string(ir::op_name(*op)) + "_" + type;
  if (!ctx.out.functors.insert(name).second) return name;
  const std::optional<std::string> expr = elementwise_expression(*op, {"a"}, compute);
  INFERNO_CHECK(expr.has_value(), "conv2d: no floating-point expression for " + activation);
  SourceWriter& k = ctx.out.kernels;
  k.line("// conv2d's " + activation + " epilogue in " + type);
  k.open("struct " + name);
  k.open("__device__ __forceinline__ " + type + " operator()(const " + type + " a) const");
  k.line("return " + *expr + ";");
  k.close();
  k.close("};");
  k.line("");
  return name;
}

}  // namespace

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
  const bool nhwc = !transposed && node.attrs.get_string("layout") == "nhwc";
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
  // Dims by meaning: NCHW / OIHW, or NHWC / OHWI (ops.def).
  const int64_t c_dim = nhwc ? 3 : 1, h_dim = nhwc ? 1 : 2, w_dim = nhwc ? 2 : 3;
  NamedArgs shape = {
      {"n", decimal(x.shape[0])},           {"c", decimal(x.shape[c_dim])},
      {"h", decimal(x.shape[h_dim])},       {"w", decimal(x.shape[w_dim])},
      {"o", decimal(out.shape[c_dim])},     {"kh", decimal(w.shape[h_dim])},
      {"kw", decimal(w.shape[w_dim])},      {"oh", decimal(out.shape[h_dim])},
      {"ow", decimal(out.shape[w_dim])},    {"stride_h", decimal(stride[0])},
      {"stride_w", decimal(stride[1])},     {"pad_top", decimal(padding[0])},
      {"pad_left", decimal(padding[1])},    {"dilation_h", decimal(dilation[0])},
      {"dilation_w", decimal(dilation[1])}, {"groups", decimal(node.attrs.get_int("groups"))}};
  if (!transposed) shape.push_back({"nhwc", nhwc ? "true" : "false"});
  const std::string type(storage_type(x.dtype));
  const bool has_bias = node.inputs.size() > 2;
  const std::string bias = has_bias ? ctx.pointer(node.inputs[2]) : "nullptr";
  if (transposed) {
    run.open("");
    run.line("const inferno::kernels::Conv2dShape shape = {" + named_args(shape) + "};");
    run.line("MODEL_CHECK_CUDA(inferno::kernels::conv_transpose2d<" + type + ">(" +
             named_args({{"in", ctx.pointer(node.inputs[0])},
                         {"w", ctx.pointer(node.inputs[1])},
                         {"bias", bias},
                         {"out", ctx.pointer(node.outputs[0])},
                         {"shape", "shape"}}) +
             ", stream), " + ctx.label(node) + ");");
    run.close();
    return Status::ok();
  }
  const bool has_residual = node.attrs.get_bool("residual"), has_gate = node.attrs.get_bool("gate");
  const std::string residual = has_residual ? ctx.pointer(node.inputs[3]) : "nullptr";
  const std::string gate =
      has_gate ? ctx.pointer(node.inputs[has_residual ? 4 : 3]) : std::string("nullptr");
  const std::string activation = emit_activation(ctx, node, x.dtype);
  run.open("");
  run.line("const inferno::kernels::Conv2dShape shape = {" + named_args(shape) + "};");
  run.line("const inferno::kernels::Conv2dEpilogue<" + type + "> epilogue = {" +
           named_args({{"bias", bias}, {"residual", residual}, {"gate", gate}}) + "};");
  // The kernel: the implicit GEMM, the depthwise kernel or the direct one, by shape
  // (conv_kernel_choice.h says why); all three take the same arguments.
  const ConvKernel kernel = choose_conv_kernel(
      {x.shape[0], x.shape[c_dim], x.shape[h_dim], x.shape[w_dim], out.shape[c_dim], w.shape[h_dim],
       w.shape[w_dim], out.shape[h_dim], out.shape[w_dim], stride[0], stride[1], padding[0],
       padding[1], dilation[0], dilation[1], node.attrs.get_int("groups")});
  ctx.out.headers.insert(kernel.header);
  // The implicit GEMM's plan and, for 16-bit types, its tiles (kernels/conv_igemm_plan.h), so
  // that model.cu instantiates only the kernel variant this shape runs rather than all of them.
  std::string plan;
  if (std::string_view(kernel.launcher) == "conv2d_igemm") {
    const int64_t element_bytes = ir::dtype_size(x.dtype);
    const kernels::IgemmPlan chosen = kernels::igemm_plan(
        nhwc, x.shape[c_dim], x.shape[c_dim] * w.shape[h_dim] * w.shape[w_dim], element_bytes);
    plan = ", inferno::kernels::IgemmPlan::" + std::string(kernels::igemm_plan_name(chosen));
    if (element_bytes == 2) {
      const int64_t m = out.shape[0] * out.shape[h_dim] * out.shape[w_dim];
      const kernels::IgemmTiles tiles =
          kernels::igemm_tiles(chosen, element_bytes, m, out.shape[c_dim],
                               kernels::kIgemmReferenceSms, ctx.options.target.wgmma);
      plan += ", inferno::kernels::IgemmTiles::" + std::string(kernels::igemm_tiles_name(tiles));
    }
  } else if (std::string_view(kernel.launcher) == "conv2d_depthwise") {
    // Likewise the depthwise kernel's plan (kernels/conv_depthwise_plan.h): the strip kernel of
    // this window and stride only, where it pays.
    const bool strips_pay = kernels::depthwise_strips_pay(
        out.shape[0], out.shape[h_dim], out.shape[w_dim], x.shape[c_dim], ir::dtype_size(x.dtype));
    const kernels::DepthwisePlan chosen =
        strips_pay ? kernels::depthwise_plan(nhwc, x.shape[c_dim], out.shape[c_dim], w.shape[h_dim],
                                             w.shape[w_dim], stride[0], stride[1], dilation[0],
                                             dilation[1])
                   : kernels::DepthwisePlan::kGeneric;
    plan =
        ", inferno::kernels::DepthwisePlan::" + std::string(kernels::depthwise_plan_name(chosen));
  }
  // A call whose template arguments hold a comma is parenthesized: the macro would split it.
  const std::string call = "inferno::kernels::" + std::string(kernel.launcher) + "<" + type + plan +
                           ">(" +
                           named_args({{"in", ctx.pointer(node.inputs[0])},
                                       {"w", ctx.pointer(node.inputs[1])},
                                       {"epilogue", "epilogue"},
                                       {"out", ctx.pointer(node.outputs[0])},
                                       {"shape", "shape"}}) +
                           ", stream" + (activation.empty() ? "" : ", " + activation + "{}") + ")";
  run.line("MODEL_CHECK_CUDA(" + (plan.empty() ? call : "(" + call + ")") + ", " + ctx.label(node) +
           ");");
  run.close();
  return Status::ok();
}

void register_conv_lowerings(LoweringTable& table) {
  for (const ir::OpKind op : {ir::OpKind::kConv2d, ir::OpKind::kConvTranspose2d})
    table.add(op, {emit_conv, no_scratch, never_in_place});
}

}  // namespace inferno::codegen
