#include "codegen/emit_elementwise.h"

#include <algorithm>

#include "codegen/elementwise_table.h"
#include "support/check.h"

namespace inferno::codegen {

std::string loop_header(int64_t numel) {
  const std::string n = std::to_string(numel);
  const std::string block = std::to_string(kBlockThreads);
  if (numel + kMaxBlocks * kBlockThreads < (int64_t{1} << 31)) {
    return "for (int i = blockIdx.x * " + block + " + threadIdx.x; i < " + n +
           "; i += gridDim.x * " + block + ")";
  }
  return "for (int64_t i = static_cast<int64_t>(blockIdx.x) * " + block + " + threadIdx.x; i < " +
         n + "; i += static_cast<int64_t>(gridDim.x) * " + block + ")";
}

std::string launch_config(int64_t numel) {
  const int64_t blocks =
      std::clamp<int64_t>((numel + kBlockThreads - 1) / kBlockThreads, 1, kMaxBlocks);
  return "<<<" + std::to_string(blocks) + ", " + std::to_string(kBlockThreads) + ", 0, stream>>>";
}

std::string op_tag(ir::OpKind op, const ir::Attributes& attrs, ir::DType first_input) {
  std::string tag(ir::op_name(op));
  if (op == ir::OpKind::kGelu) tag += attrs.get_string("approximate") == "tanh" ? "_tanh" : "_erf";
  if (op == ir::OpKind::kCast) tag += "_" + std::string(dtype_tag(first_input)) + "_to";
  return tag;
}

std::string shape_tag(const ir::Shape& shape) {
  if (shape.empty()) return "scalar";
  std::string tag;
  for (size_t d = 0; d < shape.size(); ++d) tag += (d ? "x" : "") + std::to_string(shape[d]);
  return tag.size() <= 32 ? tag : "n" + std::to_string(ir::shape_numel(shape));
}

Status emit_elementwise(EmitContext& ctx, int32_t index) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(index)];
  const ir::ValueId out = node.outputs[0];
  const ir::TensorType& out_type = ctx.graph.type(out);
  const int64_t numel = out_type.numel();
  ctx.out.run.line("// " + ctx.describe(node));
  if (numel == 0) {
    ctx.out.run.line("// (no elements: nothing to compute)");
    return Status::ok();
  }

  std::vector<ir::DType> in_dtypes;
  for (const ir::ValueId in : node.inputs) in_dtypes.push_back(ctx.graph.type(in).dtype);
  const ComputeType compute = choose_compute_type(in_dtypes, out_type.dtype);
  const std::optional<std::string> expr = op_expression(node, compute);
  if (!expr) {
    return ctx.unsupported_node(node, "no " + std::string(compute_type_name(compute)) +
                                          " form for " +
                                          ctx.graph.type(node.inputs[0]).to_string());
  }
  if (expr->find("inferno::kernels::") != std::string::npos)
    ctx.out.headers.insert("kernels/elementwise.cuh");

  const std::string name = "k" + std::to_string(index) + "_" +
                           op_tag(node.op, node.attrs, ctx.graph.type(node.inputs[0]).dtype) + "_" +
                           std::string(dtype_tag(out_type.dtype)) + "_" + shape_tag(out_type.shape);
  const std::string ctype(compute_type_name(compute));
  std::string params, args;
  SourceWriter body;
  for (size_t k = 0; k < node.inputs.size(); ++k) {
    const ir::ValueId in = node.inputs[k];
    const ir::TensorType& in_type = ctx.graph.type(in);
    const std::string operand = k == 0 ? "a" : "b";
    if (ctx.weights.is_inlined(in)) {
      body.line("const " + ctype + " " + operand + " = " +
                scalar_literal(*ctx.graph.value(in).constant, compute) + ";  // %" +
                ctx.graph.name(in));
      continue;
    }
    const std::string param = "in" + std::to_string(k);
    params += "const " + std::string(storage_type(in_type.dtype)) + "* " + param + ", ";
    args += ctx.pointer(in) + ", ";
    const std::string offset =
        offset_expression(coalesce(broadcast_view(in_type.shape, out_type.shape)), "i");
    body.line("const " + ctype + " " + operand + " = " +
              load_expression(in_type.dtype, compute, param + "[" + offset + "]") + ";");
  }
  body.line("out[i] = " + store_expression(out_type.dtype, compute, *expr) + ";");

  SourceWriter& k = ctx.out.kernels;
  k.line("// " + ctx.describe(node));
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

void emit_gather_kernel(EmitContext& ctx, const std::string& name, const std::string& comment,
                        ir::DType dtype, const StridedView& coalesced, int64_t numel,
                        const std::string& in, const std::string& out, const std::string& label) {
  const std::string type(storage_type(dtype));
  SourceWriter& k = ctx.out.kernels;
  k.line("// " + comment);
  k.open("__global__ void " + name + "(const " + type + "* in, " + type + "* out)");
  k.open(loop_header(numel));
  k.line("out[i] = in[" + offset_expression(coalesced, "i") + "];");
  k.close();
  k.close();
  k.line("");
  ctx.out.run.line(name + launch_config(numel) + "(" + in + ", " + out + ");");
  ctx.out.run.line("MODEL_CHECK_LAUNCH(" + label + ");");
}

}  // namespace inferno::codegen
