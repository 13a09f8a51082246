#include "codegen/emit_rotary.h"

#include <string>

#include "codegen/elementwise_table.h"
#include "codegen/emit_grid_kernel.h"
#include "codegen/memory_plan.h"
#include "codegen/strided_view.h"
#include "codegen/views.h"

namespace inferno::codegen {

int32_t rotary_row_target(const EmitContext& ctx, int32_t rotary) {
  const ir::Graph& graph = ctx.graph;
  const ir::Node& node = graph.nodes().at(static_cast<size_t>(rotary));
  if (node.op != ir::OpKind::kRotary) return -1;
  const ir::ValueId y = node.outputs[0];
  if (graph.type(y).numel() == 0) return -1;
  for (const ir::ValueId out : graph.outputs()) {
    if (out == y) return -1;
  }
  int32_t target = -1;
  for (size_t n = 0; n < graph.nodes().size(); ++n) {
    const ir::Node& reader = graph.nodes()[n];
    for (size_t k = 0; k < reader.inputs.size(); ++k) {
      if (reader.inputs[k] != y) continue;
      if (target != -1 || reader.op != ir::OpKind::kIndexCopy || k != 2) return -1;
      target = static_cast<int32_t>(n);
    }
  }
  if (target == -1) return -1;
  const ir::Node& copy = graph.nodes()[static_cast<size_t>(target)];
  if (ctx.plan.of(copy.inputs[0]).kind != StorageKind::kState ||
      !same_bytes(ctx.plan, copy.inputs[0], copy.outputs[0])) {
    return -1;
  }
  const int32_t index_producer = ctx.views.producer.at(static_cast<size_t>(copy.inputs[1]));
  return index_producer < rotary ? target : -1;
}

Status emit_rotary(EmitContext& ctx, int32_t index) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(index)];
  const ir::TensorType& out = ctx.graph.type(node.outputs[0]);
  if (!ctx.open_node(node, "compute")) return Status::ok();
  const int64_t d = out.shape.back(), r = node.attrs.get_int("rotary_dim"), h = r / 2;
  // float for f16, bf16 and f32 (one rounding at the store), double for f64.
  const ComputeType compute =
      out.dtype == ir::DType::kF64 ? ComputeType::kDouble : ComputeType::kFloat;
  const std::string type(storage_type(out.dtype)), ctype(compute_type_name(compute));
  ir::Shape rotated = out.shape;  // x[..., :r], which cos and sin broadcast to
  rotated.back() = r;

  GridKernel kernel{node_kernel_name(ctx.graph, node, index),
                    ctx.describe(node),
                    "",
                    {},
                    {},
                    out.numel(),
                    ctx.label(node)};
  std::vector<StridedView> views;
  const char* names[] = {"x", "cosine", "sine"};  // not cos and sin: those name functions
  for (size_t k = 0; k < 3; ++k) {
    const ValueView view = resolve_view(ctx.graph, ctx.views, node.inputs[k]);
    kernel.params += "const " + type + "* " + names[k] + ", ";
    kernel.args.push_back({names[k], ctx.view_pointer(view)});
    views.push_back(coalesce(k == 0 ? view.view : broadcast_view(view.view, rotated)));
  }
  const int32_t target = rotary_row_target(ctx, index);
  const ir::Node* copy = target < 0 ? nullptr : &ctx.graph.nodes()[static_cast<size_t>(target)];
  if (copy != nullptr) {
    const ir::TensorType& ids = ctx.graph.type(copy->inputs[1]);
    kernel.params += "const " + std::string(storage_type(ids.dtype)) + "* index, ";
    kernel.args.push_back({"index", ctx.pointer(copy->inputs[1])});
    kernel.comment += "\nwrites its rows straight into %" +
                      comment_text(ctx.graph.name(copy->outputs[0]), 60) +
                      " (the in-place index_copy's state) at its index";
  }
  kernel.params += type + "* out";
  kernel.args.push_back({"out", ctx.pointer(copy != nullptr ? copy->outputs[0] : node.outputs[0])});

  // Element indices (i + h, the row * r of cos and sin) stay below numel; they and the views'
  // offsets are ints where every one of them fits (int division is the cheaper), else int64.
  bool fits_int = int_loop_index(out.numel());
  for (const StridedView& view : views) fits_int = fits_int && int_offsets(view);
  const std::string ds = std::to_string(d), rs = std::to_string(r), hs = std::to_string(h);
  const std::string index_type = fits_int ? "int" : "int64_t";
  kernel.body.line("const " + index_type + " e = i, j = e % " + ds + ";");
  std::string at = "i";  // where out takes element e
  if (copy != nullptr) {
    // index_copy's in-place row write (emit_join.cpp): element (o, p, c) of the rotary's output,
    // viewed as [outer, count, inner] around the copy's dim, lands in row index[p] of the cache.
    const auto dim = static_cast<size_t>(copy->attrs.get_int("dim"));
    const ir::Shape& cache = ctx.graph.type(copy->outputs[0]).shape;
    int64_t inner = 1;
    for (size_t k = dim + 1; k < out.shape.size(); ++k) inner *= out.shape[k];
    const std::string n = std::to_string(inner), count = std::to_string(out.shape[dim]),
                      size = std::to_string(cache[dim]);
    kernel.body.line("const int64_t c = e % " + n + ", p = (e / " + n + ") % " + count +
                     ", o = e / " + std::to_string(inner * out.shape[dim]) + ";");
    kernel.body.line("int64_t r = static_cast<int64_t>(index[p]);");
    kernel.body.line("if (r < 0) r += " + size + ";");
    kernel.body.line("if (r < 0 || r >= " + size + ") continue;  // never out of bounds");
    kernel.body.line("const int64_t at = (o * " + size + " + r) * " + n + " + c;");
    at = "at";
  }
  const auto load = [&](size_t k, const std::string& element) {
    return load_expression(out.dtype, compute,
                           std::string(names[k]) + "[" + element_offset(views[k], element) + "]");
  };
  if (r < d) {
    kernel.body.open("if (j >= " + rs + ")");
    kernel.body.line("out[" + at + "] = x[" + element_offset(views[0], "e") +
                     "];  // passes through");
    kernel.body.line("continue;");
    kernel.body.close();
  }
  kernel.body.line("const " + index_type + " t = e / " + ds + " * " + rs +
                   " + j;  // in x[..., :" + rs + "]");
  kernel.body.line("const " + ctype + " partner = j < " + hs + " ? -" + load(0, "e + " + hs) +
                   " : " + load(0, "e - " + hs) + ";");
  kernel.body.line("const " + ctype + " value = " + load(0, "e") + " * " + load(1, "t") +
                   " + partner * " + load(2, "t") + ";");
  kernel.body.line("out[" + at + "] = " + store_expression(out.dtype, compute, "value") + ";");
  emit_grid_kernel(ctx, kernel);
  return Status::ok();
}

void register_rotary_lowerings(LoweringTable& table) {
  table.add(ir::OpKind::kRotary,
            {emit_rotary, no_scratch, never_in_place, Launches::kGridKernelsOnly});
}

}  // namespace inferno::codegen
