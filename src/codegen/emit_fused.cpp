#include "codegen/emit_fused.h"

#include "codegen/elementwise_table.h"
#include "codegen/emit_elementwise.h"
#include "codegen/strided_view.h"
#include "ir/fused_expr.h"

namespace inferno::codegen {
namespace {

// Longest run of op tags in a kernel name; a longer body ends its list with "_more".
constexpr size_t kMaxNameOps = 40;

// A step's part of the kernel name: "sigmoid", "gelu_tanh", "to_f16".
std::string step_tag(const ir::FusedStep& step) {
  if (step.op == ir::OpKind::kCast) return "to_" + std::string(dtype_tag(step.type.dtype));
  std::string tag(ir::op_name(step.op));
  if (step.op == ir::OpKind::kGelu)
    tag += step.attrs.get_string("approximate") == "tanh" ? "_tanh" : "_erf";
  return tag;
}

std::string kernel_name(int32_t index, const ir::FusedExpr& expr, const ir::TensorType& out) {
  std::string ops;
  for (const ir::FusedStep& step : expr.steps) {
    const std::string tag = step_tag(step);
    if (ops.size() + 1 + tag.size() > kMaxNameOps) {
      ops += "_more";
      break;
    }
    ops += (ops.empty() ? "" : "_") + tag;
  }
  return "k" + std::to_string(index) + "_fused_" + ops + "_" + std::string(dtype_tag(out.dtype)) +
         "_" + shape_tag(out.shape);
}

std::string operand_text(const ir::FusedOperand& operand) {
  return (operand.kind == ir::FusedOperand::Kind::kInput ? "$" : "#") +
         std::to_string(operand.index);
}

// "#1 = gelu[tanh]($0, #0) -> f16": what a step computes, for the comment above its code.
std::string step_text(size_t k, const ir::FusedStep& step) {
  std::string text = "#" + std::to_string(k) + " = " + std::string(ir::op_name(step.op));
  if (step.op == ir::OpKind::kGelu)
    text += "[" + comment_text(step.attrs.get_string("approximate"), 16) + "]";
  if (step.op == ir::OpKind::kCast) text += "[" + std::string(dtype_tag(step.type.dtype)) + "]";
  text += "(";
  for (size_t j = 0; j < step.operands.size(); ++j)
    text += (j ? ", " : "") + operand_text(step.operands[j]);
  return text + ") -> " + std::string(dtype_tag(step.type.dtype));
}

}  // namespace

Status emit_fused_elementwise(EmitContext& ctx, int32_t index) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(index)];
  const ir::ValueId out = node.outputs[0];
  const ir::TensorType& out_type = ctx.graph.type(out);
  std::vector<ir::TensorType> input_types;
  for (const ir::ValueId in : node.inputs) input_types.push_back(ctx.graph.type(in));
  Expected<ir::FusedExpr> parsed = ir::parse_fused_expr(node.attrs.get_string("expr"), input_types);
  if (!parsed) return invalid_input(parsed.status().message(), ctx.graph.node_name(node), node.loc);
  const ir::FusedExpr& expr = *parsed;
  if (expr.result() != out_type) {
    return ctx.unsupported_node(node, "the expression gives " + expr.result().to_string() +
                                          ", not the node's " + out_type.to_string());
  }
  ctx.out.run.line("// " + ctx.describe(node));
  const int64_t numel = out_type.numel();
  if (numel == 0) {
    ctx.out.run.line("// (no elements: nothing to compute)");
    return Status::ok();
  }

  // Each input read once: its element at this output index, in its storage type.
  std::string params, args;
  SourceWriter body;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const ir::ValueId in = node.inputs[i];
    if (ctx.weights.is_inlined(in)) continue;  // a literal at each use
    const std::string param = "in" + std::to_string(i);
    const std::string type(storage_type(input_types[i].dtype));
    params += "const " + type + "* " + param + ", ";
    args += ctx.pointer(in) + ", ";
    const std::string offset =
        offset_expression(coalesce(broadcast_view(input_types[i].shape, out_type.shape)), "i");
    body.line("const " + type + " x" + std::to_string(i) + " = " + param + "[" + offset + "];");
  }

  // Each step in its compute type, rounded to its dtype by storing it as that dtype.
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
    const std::optional<std::string> value = op_expression(step.op, step.attrs, compute);
    if (!value) {
      return ctx.unsupported_node(node, "step " + std::to_string(k) + " (" +
                                            std::string(ir::op_name(step.op)) + ") has no " +
                                            std::string(compute_type_name(compute)) + " form");
    }
    if (value->find("inferno::kernels::") != std::string::npos)
      ctx.out.headers.insert("kernels/elementwise.cuh");
    const std::string ctype(compute_type_name(compute));
    const std::string result = "s" + std::to_string(k);
    body.line("// " + step_text(k, step));
    body.line(std::string(storage_type(step.type.dtype)) + " " + result + ";");
    body.open("");
    for (size_t j = 0; j < step.operands.size(); ++j) {
      const ir::FusedOperand& operand = step.operands[j];
      const std::string name = j == 0 ? "a" : "b";
      const auto at = static_cast<size_t>(operand.index);
      if (operand.kind == ir::FusedOperand::Kind::kInput &&
          ctx.weights.is_inlined(node.inputs[at])) {
        const ir::ValueId in = node.inputs[at];
        body.line("const " + ctype + " " + name + " = " +
                  scalar_literal(*ctx.graph.value(in).constant, compute) + ";  // %" +
                  comment_text(ctx.graph.name(in)));
        continue;
      }
      const std::string source =
          (operand.kind == ir::FusedOperand::Kind::kInput ? "x" : "s") + std::to_string(at);
      body.line("const " + ctype + " " + name + " = " +
                load_expression(operand_dtypes[j], compute, source) + ";");
    }
    body.line(result + " = " + store_expression(step.type.dtype, compute, *value) + ";");
    body.close();
  }
  body.line("out[i] = s" + std::to_string(expr.steps.size() - 1) + ";");

  const std::string name = kernel_name(index, expr, out_type);
  SourceWriter& k = ctx.out.kernels;
  k.line("// " + ctx.describe(node));
  k.line("// expr: " + comment_text(ir::fused_expr_to_string(expr), 400));
  k.open("__global__ void " + name + "(" + params + std::string(storage_type(out_type.dtype)) +
         "* out)");
  k.open(loop_header(numel));
  k.append(body);
  k.close();
  k.close();
  k.line("");

  ctx.out.run.line(name + launch_config(numel) + "(" + args + ctx.pointer(out) + ");");
  ctx.out.run.line("MODEL_CHECK_LAUNCH(" + ctx.label(node) + ");");
  return Status::ok();
}

}  // namespace inferno::codegen
