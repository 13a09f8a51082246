#include "codegen/emit_extrema.h"

#include <algorithm>
#include <string>

#include "codegen/elementwise_table.h"
#include "codegen/emit_grid_kernel.h"

namespace inferno::codegen {
namespace {

/// The loop body's test: does `v` replace `best`? A NaN (never equal to itself; integers have
/// none) wins and sticks.
std::string wins(bool max) {
  return std::string("!(best != best) && (v != v || v ") + (max ? ">" : "<") + " best)";
}

}  // namespace

Status emit_reduce_extremum(EmitContext& ctx, int32_t index) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(index)];
  const ir::TensorType& in = ctx.graph.type(node.inputs[0]);
  const ir::TensorType& out = ctx.graph.type(node.outputs[0]);
  if (!ctx.open_node(node, "compute")) return Status::ok();
  const ir::IntList& dims = node.attrs.get_ints("dims");
  const std::vector<int64_t> strides = ir::contiguous_strides(in.shape);
  std::vector<size_t> kept, reduced;
  int64_t count = 1;
  for (size_t d = 0; d < in.shape.size(); ++d) {
    if (in.shape[d] == 1) continue;  // one coordinate: no offset
    const bool r =
        dims.empty() || std::find(dims.begin(), dims.end(), static_cast<int64_t>(d)) != dims.end();
    (r ? reduced : kept).push_back(d);
    if (r) count *= in.shape[d];
  }
  const std::string type(storage_type(in.dtype));
  const std::string value(compute_type_name(value_type(in.dtype)));
  GridKernel kernel{node_kernel_name(ctx.graph, node, index),
                    ctx.describe(node),
                    "const " + type + "* in, " + type + "* out",
                    {{"in", ctx.pointer(node.inputs[0])}, {"out", ctx.pointer(node.outputs[0])}},
                    {},
                    out.numel(),
                    ctx.label(node)};
  SourceWriter& body = kernel.body;
  // Only the dims of more than one element take part (so there may be no loop at all).
  body.line(kept.empty() ? "const int64_t base = 0;" : "int64_t rest = i, base = 0;");
  for (size_t k = kept.size(); k-- > 0;) {
    const std::string size = std::to_string(in.shape[kept[k]]);
    body.line("base += (rest % " + size + ") * " + std::to_string(strides[kept[k]]) +
              (k > 0 ? "; rest /= " + size + ";" : ";"));
  }
  body.line(value + " best = " + load_value(in.dtype, "in[base]") + ";");
  if (reduced.empty()) {
    body.line("out[i] = " + store_value(in.dtype, "best") + ";");
    emit_grid_kernel(ctx, kernel);
    return Status::ok();
  }
  body.line("for (int64_t r = 1; r < " + std::to_string(count) + "; ++r) {");
  body.line("  int64_t q = r, at = base;");
  for (size_t k = reduced.size(); k-- > 0;) {
    const std::string size = std::to_string(in.shape[reduced[k]]);
    body.line("  at += (q % " + size + ") * " + std::to_string(strides[reduced[k]]) +
              (k > 0 ? "; q /= " + size + ";" : ";"));
  }
  body.line("  const " + value + " v = " + load_value(in.dtype, "in[at]") + ";");
  body.line("  if (" + wins(node.op == ir::OpKind::kReduceMax) + ") best = v;");
  body.line("}");
  body.line("out[i] = " + store_value(in.dtype, "best") + ";");
  emit_grid_kernel(ctx, kernel);
  return Status::ok();
}

Status emit_arg_extremum(EmitContext& ctx, int32_t index) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(index)];
  const ir::TensorType& in = ctx.graph.type(node.inputs[0]);
  const ir::TensorType& out = ctx.graph.type(node.outputs[0]);
  if (!ctx.open_node(node, "compute")) return Status::ok();
  const auto [outer, n, inner] = lines_along(in.shape, node.attrs.get_int("dim"));
  const std::string type(storage_type(in.dtype));
  const std::string value(compute_type_name(value_type(in.dtype)));
  GridKernel kernel{node_kernel_name(ctx.graph, node, index),
                    ctx.describe(node),
                    "const " + type + "* in, int64_t* out",
                    {{"in", ctx.pointer(node.inputs[0])}, {"out", ctx.pointer(node.outputs[0])}},
                    {},
                    out.numel(),
                    ctx.label(node)};
  SourceWriter& body = kernel.body;
  const std::string step = std::to_string(inner);
  body.line("const int64_t base = (static_cast<int64_t>(i) / " + step + ") * " +
            std::to_string(n * inner) + " + static_cast<int64_t>(i) % " + step + ";");
  body.line(value + " best = " + load_value(in.dtype, "in[base]") + ";");
  body.line("int64_t found = 0;");
  body.line("for (int64_t j = 1; j < " + std::to_string(n) + "; ++j) {");
  body.line("  const " + value + " v = " + load_value(in.dtype, "in[base + j * " + step + "]") +
            ";");
  body.line("  if (" + wins(node.op == ir::OpKind::kArgMax) + ") {");
  body.line("    best = v;");
  body.line("    found = j;");
  body.line("  }");
  body.line("}");
  body.line("out[i] = found;");
  emit_grid_kernel(ctx, kernel);
  return Status::ok();
}

void register_extrema_lowerings(LoweringTable& table) {
  table.add(ir::OpKind::kReduceMax,
            {emit_reduce_extremum, no_scratch, never_in_place, Launches::kGridKernelsOnly});
  table.add(ir::OpKind::kReduceMin,
            {emit_reduce_extremum, no_scratch, never_in_place, Launches::kGridKernelsOnly});
  table.add(ir::OpKind::kArgMax,
            {emit_arg_extremum, no_scratch, never_in_place, Launches::kGridKernelsOnly});
  table.add(ir::OpKind::kArgMin,
            {emit_arg_extremum, no_scratch, never_in_place, Launches::kGridKernelsOnly});
}

}  // namespace inferno::codegen
