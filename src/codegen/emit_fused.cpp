#include "codegen/emit_fused.h"

#include "codegen/elementwise_table.h"
#include "codegen/emit_grid_kernel.h"
#include "codegen/gemv_pairs.h"
#include "codegen/memory_plan.h"
#include "codegen/strided_view.h"
#include "codegen/views.h"
#include "ir/fused_expr.h"

namespace inferno::codegen {
namespace {

// Longest run of op tags in a kernel name; a longer body ends its list with "_more".
constexpr size_t kMaxNameOps = 40;

// A step's part of the kernel name: its op, then its attribute values ("cast_f16").
std::string step_tag(const ir::FusedStep& step) {
  std::string tag(ir::op_name(step.op));
  for (const auto& [name, value] : step.attrs.entries()) {
    if (const ir::DType* dtype = std::get_if<ir::DType>(&value))
      tag += "_" + std::string(dtype_tag(*dtype));
  }
  return tag;
}

std::string kernel_name(int32_t index, const ir::FusedExpr& expr, const ir::TensorType& out,
                        bool fused) {
  std::string ops;
  for (const ir::FusedStep& step : expr.steps) {
    const std::string tag = step_tag(step);
    if (ops.size() + 1 + tag.size() > kMaxNameOps) {
      ops += "_more";
      break;
    }
    ops += (ops.empty() ? "" : "_") + tag;
  }
  return "k" + std::to_string(index) + (fused ? "_fused_" : "_") + ops + "_" +
         std::string(dtype_tag(out.dtype)) + "_" + shape_tag(out.shape);
}

// The body a node computes: its own for fused_elementwise, one step for a single op.
ir::FusedExpr body_of(const ir::Graph& graph, const ir::Node& node) {
  if (node.op == ir::OpKind::kFusedElementwise) return node.attrs.get_body("expr");
  ir::FusedStep step{node.op, node.attrs, {}, graph.type(node.outputs.front())};
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    step.operands.push_back({ir::FusedOperand::Kind::kInput, static_cast<int32_t>(i)});
  }
  return ir::FusedExpr{{std::move(step)}};
}

}  // namespace

Expected<ir::FusedExpr> typed_body(const EmitContext& ctx, const ir::Node& node) {
  std::vector<ir::TensorType> input_types;
  for (const ir::ValueId in : node.inputs) input_types.push_back(ctx.graph.type(in));
  // Typed again for these inputs: a graph handed to codegen may not have been verified.
  Expected<ir::FusedExpr> typed = ir::type_fused_expr(body_of(ctx.graph, node), input_types);
  if (!typed) return invalid_input(typed.status().message(), ctx.graph.node_name(node), node.loc);
  const ir::TensorType& out_type = ctx.graph.type(node.outputs[0]);
  if (typed->result() != out_type) {
    return ctx.unsupported_node(node, "the body gives " + typed->result().to_string() +
                                          ", not the node's " + out_type.to_string());
  }
  return typed;
}

Expected<std::string> write_fused_steps(const EmitContext& ctx, const ir::Node& node,
                                        const ir::FusedExpr& expr, SourceWriter& body) {
  std::vector<ir::TensorType> input_types;
  for (const ir::ValueId in : node.inputs) input_types.push_back(ctx.graph.type(in));
  for (size_t k = 0; k < expr.steps.size(); ++k) {
    const ir::FusedStep& step = expr.steps[k];
    std::vector<ir::DType> operand_dtypes;
    for (const ir::FusedOperand& operand : step.operands) {
      const auto at = static_cast<size_t>(operand.index);
      operand_dtypes.push_back(operand.kind == ir::FusedOperand::Kind::kInput
                                   ? input_types[at].dtype
                                   : expr.steps[at].type.dtype);
    }
    const ComputeType compute = choose_compute_type(operand_dtypes, step.type.dtype);
    std::vector<std::string> operands;
    for (size_t j = 0; j < step.operands.size(); ++j) {
      const ir::FusedOperand& operand = step.operands[j];
      const auto at = static_cast<size_t>(operand.index);
      const bool input = operand.kind == ir::FusedOperand::Kind::kInput;
      if (input && ctx.weights.is_inlined(node.inputs[at])) {
        operands.push_back(scalar_literal(*ctx.graph.value(node.inputs[at]).constant, compute));
        continue;
      }
      const std::string name = (input ? "x" : "s") + std::to_string(at);
      operands.push_back(convert_value(value_type(operand_dtypes[j]), compute, name));
    }
    const std::optional<std::string> value = elementwise_expression(step.op, operands, compute);
    if (!value) {
      return ctx.unsupported_node(node, "step " + std::to_string(k) + " (" +
                                            std::string(ir::op_name(step.op)) + ") has no " +
                                            std::string(compute_type_name(compute)) + " form");
    }
    const std::string text = ir::fused_expr_to_string(ir::FusedExpr{{step}});
    body.line("const " + std::string(compute_type_name(value_type(step.type.dtype))) + " s" +
              std::to_string(k) + " = " + round_to(step.type.dtype, compute, *value) + ";  // #" +
              std::to_string(k) + " = " + comment_text(text, 80) + " -> " +
              std::string(dtype_tag(step.type.dtype)));
  }
  return "s" + std::to_string(expr.steps.size() - 1);
}

Status emit_elementwise(EmitContext& ctx, int32_t index) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(index)];
  const ir::ValueId out = node.outputs[0];
  const ir::TensorType& out_type = ctx.graph.type(out);
  std::vector<ir::TensorType> input_types;
  for (const ir::ValueId in : node.inputs) input_types.push_back(ctx.graph.type(in));
  INFERNO_ASSIGN_OR_RETURN(const ir::FusedExpr expr, typed_body(ctx, node));
  if (const int32_t gemv = gemv_pair_source(ctx, index); gemv >= 0) {
    const ir::ValueId product = ctx.graph.nodes()[static_cast<size_t>(gemv)].outputs[0];
    ctx.out.run.line("// " + ctx.describe(node));
    ctx.out.run.line("// (computed by the GEMV of %" + comment_text(ctx.graph.name(product), 60) +
                     " in its epilogue, codegen/gemv_pairs.h)");
    return Status::ok();
  }
  ctx.out.run.line("// " + ctx.describe(node));
  const int64_t numel = out_type.numel();
  if (numel == 0) {
    ctx.out.run.line("// (no elements: nothing to compute)");
    return Status::ok();
  }
  ctx.out.headers.insert("kernels/elementwise.cuh");

  const bool fused = node.op == ir::OpKind::kFusedElementwise;
  GridKernel kernel;
  kernel.name = kernel_name(index, expr, out_type, fused);
  kernel.comment = ctx.describe(node);
  if (fused) kernel.comment += "\nexpr: " + comment_text(ir::fused_expr_to_string(expr), 400);
  kernel.numel = numel;
  kernel.label = ctx.label(node);

  // Each input read once, as its register type; rank-0 constants are literals at each use. An
  // input is read through its view (views.h: a slice, permute, ... never materialized) broadcast
  // to the output's shape, which is again one strided view.
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const ir::ValueId in = node.inputs[i];
    if (ctx.weights.is_inlined(in)) continue;
    const std::string param = "in" + std::to_string(i);
    kernel.params +=
        "const " + std::string(storage_type(input_types[i].dtype)) + "* " + param + ", ";
    const ValueView view = resolve_view(ctx.graph, ctx.views, in);
    kernel.args.push_back({param, ctx.view_pointer(view)});
    const std::string offset =
        loop_offset_expression(coalesce(broadcast_view(view.view, out_type.shape)), numel);
    kernel.body.line("const " + std::string(compute_type_name(value_type(input_types[i].dtype))) +
                     " x" + std::to_string(i) + " = " +
                     load_value(input_types[i].dtype, param + "[" + offset + "]") + ";  // %" +
                     comment_text(ctx.graph.name(in), 60));
  }

  INFERNO_ASSIGN_OR_RETURN(const std::string last, write_fused_steps(ctx, node, expr, kernel.body));
  kernel.params += std::string(storage_type(out_type.dtype)) + "* out";
  kernel.args.push_back({"out", ctx.pointer(out)});
  kernel.body.line("out[i] = " + store_value(out_type.dtype, last) + ";");
  emit_grid_kernel(ctx, kernel);
  return Status::ok();
}

void register_elementwise_lowerings(LoweringTable& table) {
  // The generated kernels read each input of the output's shape at the output's own index.
  const Lowering kElementwiseLowering = {emit_elementwise, no_scratch, elementwise_aligned_inputs,
                                         Launches::kGridKernelsOnly};
  for (const ir::OpKind op : ir::all_op_kinds()) {
    if (ir::op_has_trait(op, ir::kElementwise)) table.add(op, kElementwiseLowering);
  }
  table.add(ir::OpKind::kFusedElementwise, kElementwiseLowering);
}

}  // namespace inferno::codegen
