#include "codegen/gemv_pairs.h"

#include <vector>

#include "codegen/elementwise_table.h"
#include "codegen/emit_fused.h"
#include "codegen/emit_gemm.h"
#include "ir/op.h"

namespace inferno::codegen {
namespace {

// The nodes that read `value`, one entry per reading input.
std::vector<int32_t> readers(const ir::Graph& graph, ir::ValueId value) {
  std::vector<int32_t> out;
  for (size_t n = 0; n < graph.nodes().size(); ++n) {
    for (const ir::ValueId in : graph.nodes()[n].inputs) {
      if (in == value) out.push_back(static_cast<int32_t>(n));
    }
  }
  return out;
}

bool is_graph_output(const ir::Graph& graph, ir::ValueId value) {
  for (const ir::ValueId out : graph.outputs()) {
    if (out == value) return true;
  }
  return false;
}

// Which half of y's last dim (of n) slice node `index` takes in place: 0 the first, 1 the second,
// -1 neither (another slice, a step, a cut along another dim, or a copy).
int half_of(const EmitContext& ctx, int32_t index, int64_t n) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(index)];
  if (node.op != ir::OpKind::kSlice ||
      ctx.views.lowering.at(static_cast<size_t>(index)) != LayoutLowering::kVirtual) {
    return -1;
  }
  const ir::Shape& in = ctx.graph.type(node.inputs[0]).shape;
  const std::vector<int64_t>& starts = node.attrs.get_ints("starts");
  const std::vector<int64_t>& ends = node.attrs.get_ints("ends");
  const std::vector<int64_t>& steps = node.attrs.get_ints("steps");
  if (in.empty() || starts.size() != in.size() || ends.size() != in.size() ||
      steps.size() != in.size()) {
    return -1;
  }
  const size_t last = in.size() - 1;
  for (size_t d = 0; d < in.size(); ++d) {
    if (steps[d] != 1) return -1;
    if (d != last && (starts[d] != 0 || ends[d] != in[d])) return -1;
  }
  if (starts[last] == 0 && ends[last] == n / 2) return 0;
  if (starts[last] == n / 2 && ends[last] == n) return 1;
  return -1;
}

bool is_elementwise(ir::OpKind op) {
  return op == ir::OpKind::kFusedElementwise || ir::op_has_trait(op, ir::kElementwise);
}

}  // namespace

int32_t gemv_pair_target(const EmitContext& ctx, int32_t index) {
  const ir::Graph& graph = ctx.graph;
  const ir::Node& node = graph.nodes()[static_cast<size_t>(index)];
  if (!ctx.options.gemv_pairs) return -1;
  if (node.op != ir::OpKind::kGemm && node.op != ir::OpKind::kNormGemm) return -1;
  if (node.attrs.get_string("activation") != "none") return -1;
  const std::optional<GemvProduct> product = planned_gemv(graph, index);
  if (!product || !product->right_is_nk || !product->terms.empty() || product->n % 2 != 0)
    return -1;
  const ir::ValueId y = node.outputs[0];
  const ir::TensorType& y_type = graph.type(y);
  if (is_graph_output(graph, y) || y_type.shape.empty() || y_type.shape.back() != product->n)
    return -1;
  const std::vector<int32_t> slices = readers(graph, y);
  if (slices.size() != 2) return -1;
  const int first = half_of(ctx, slices[0], product->n);
  const int second = half_of(ctx, slices[1], product->n);
  if (first < 0 || second < 0 || first == second) return -1;
  int32_t target = -1;
  for (const int32_t slice : slices) {
    const ir::ValueId half = graph.nodes()[static_cast<size_t>(slice)].outputs[0];
    const std::vector<int32_t> users = readers(graph, half);
    if (users.size() != 1 || (target != -1 && users[0] != target) || is_graph_output(graph, half))
      return -1;
    target = users[0];
  }
  const ir::Node& f = graph.nodes()[static_cast<size_t>(target)];
  if (!is_elementwise(f.op) || f.inputs.size() != 2 || f.inputs[0] == f.inputs[1]) return -1;
  const ir::TensorType& half_type = graph.type(f.inputs[0]);
  const ir::TensorType& out = graph.type(f.outputs[0]);
  if (out.dtype != y_type.dtype || out.shape != half_type.shape) return -1;
  return target;
}

int32_t gemv_pair_source(const EmitContext& ctx, int32_t index) {
  const ir::Graph& graph = ctx.graph;
  const ir::Node& node = graph.nodes()[static_cast<size_t>(index)];
  if (!is_elementwise(node.op) || node.inputs.size() != 2) return -1;
  const int32_t slice = ctx.views.producer.at(static_cast<size_t>(node.inputs[0]));
  if (slice < 0 || graph.nodes()[static_cast<size_t>(slice)].op != ir::OpKind::kSlice) return -1;
  const ir::ValueId y = graph.nodes()[static_cast<size_t>(slice)].inputs[0];
  const int32_t gemv = ctx.views.producer.at(static_cast<size_t>(y));
  return gemv >= 0 && gemv_pair_target(ctx, gemv) == index ? gemv : -1;
}

Status write_gemv_pair_functor(const EmitContext& ctx, int32_t gemv, int32_t target,
                               SourceWriter& out) {
  const ir::Node& f = ctx.graph.nodes()[static_cast<size_t>(target)];
  INFERNO_ASSIGN_OR_RETURN(const ir::FusedExpr expr, typed_body(ctx, f));
  const int64_t n =
      ctx.graph.type(ctx.graph.nodes()[static_cast<size_t>(gemv)].outputs[0]).shape.back();
  const ir::DType dtype = ctx.graph.type(f.outputs[0]).dtype;
  const std::string type(storage_type(dtype));
  out.open("const auto pair = [](" + type + " first, " + type + " second)");
  for (size_t i = 0; i < f.inputs.size(); ++i) {  // input i: the first half's slice or the second's
    const int32_t slice = ctx.views.producer.at(static_cast<size_t>(f.inputs[i]));
    const char* operand = half_of(ctx, slice, n) == 0 ? "first" : "second";
    out.line("const " + std::string(compute_type_name(value_type(dtype))) + " x" +
             std::to_string(i) + " = " + load_value(dtype, operand) + ";  // %" +
             comment_text(ctx.graph.name(f.inputs[i]), 60));
  }
  INFERNO_ASSIGN_OR_RETURN(const std::string last, write_fused_steps(ctx, f, expr, out));
  out.line("return " + store_value(dtype, last) + ";");
  out.close("};");
  return Status::ok();
}

}  // namespace inferno::codegen
