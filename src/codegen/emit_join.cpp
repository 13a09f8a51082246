// cat and constant_pad as generated kernels; the literals are sizes from the (checked) shapes.
#include "codegen/emit_join.h"

#include <algorithm>
#include <string>
#include <vector>

#include "codegen/elementwise_table.h"
#include "codegen/emit_grid_kernel.h"
#include "codegen/emit_rotary.h"

namespace inferno::codegen {
Status emit_cat(EmitContext& ctx, int32_t index) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(index)];
  const ir::TensorType& out = ctx.graph.type(node.outputs[0]);
  if (!ctx.open_node(node, "copy")) return Status::ok();
  const auto dim = static_cast<size_t>(node.attrs.get_int("dim"));
  int64_t inner = 1;  // out viewed as [outer, total, inner]
  for (size_t d = dim + 1; d < out.shape.size(); ++d) inner *= out.shape[d];
  const int64_t total = out.shape[dim];
  const std::string type(storage_type(out.dtype));
  GridKernel kernel{node_kernel_name(ctx.graph, node, index),
                    ctx.describe(node),
                    "",
                    {},
                    {},
                    out.numel(),
                    ctx.label(node)};
  const std::string n = std::to_string(inner), t = std::to_string(total);
  kernel.body.line("const int64_t c = i % " + n + ", j = (i / " + n + ") % " + t + ", o = i / " +
                   std::to_string(inner * total) + ";");
  int64_t start = 0;
  std::string chain;
  for (size_t k = 0; k < node.inputs.size(); ++k) {
    const std::string in = "in" + std::to_string(k);
    kernel.params += "const " + type + "* " + in + ", ";
    const ValueView view = resolve_view(ctx.graph, ctx.views, node.inputs[k]);
    kernel.args.push_back({in, ctx.view_pointer(view)});
    const int64_t size = ctx.graph.type(node.inputs[k]).shape[dim];
    if (size == 0) continue;
    const int64_t end = start + size;
    const std::string element =
        "(o * " + std::to_string(size) + " + j - " + std::to_string(start) + ") * " + n + " + c";
    kernel.body.line(chain + "if (j < " + std::to_string(end) + ") out[i] = " + in + "[" +
                     element_offset(coalesce(view.view), element) + "];");
    chain = "else ";
    start = end;
  }
  kernel.params += type + "* out";
  kernel.args.push_back({"out", ctx.pointer(node.outputs[0])});
  emit_grid_kernel(ctx, kernel);
  return Status::ok();
}

namespace {

/// Whether constant_pad only appends to the last dim, whose rows then fill 16 bytes exactly (an
/// image's channels padded to 8 for the tensor-core convolutions: passes/pad_conv_channels.h),
/// into a buffer of the arena (16-byte aligned; a caller's output buffer may not be).
bool pads_rows_to_16_bytes(const ir::Graph& graph, const ir::Node& node) {
  const ir::TensorType& in = graph.type(node.inputs[0]);
  const ir::TensorType& out = graph.type(node.outputs[0]);
  const std::vector<ir::ValueId>& outputs = graph.outputs();
  if (std::find(outputs.begin(), outputs.end(), node.outputs[0]) != outputs.end()) return false;
  const ir::IntList& before = node.attrs.get_ints("before");
  const ir::IntList& after = node.attrs.get_ints("after");
  for (size_t d = 0; d < before.size(); ++d) {
    const bool last = d + 1 == before.size();
    if (before[d] != 0 || (!last && after[d] != 0) || (last && after[d] < 0)) return false;
  }
  return out.rank() >= 1 && in.shape.back() > 0 &&
         out.shape.back() * ir::dtype_size(out.dtype) == 16;
}

/// One thread per output row: its input elements (neighbouring threads read neighbouring rows,
/// which a permuted NCHW view keeps coalesced) and the fill, written as one 16-byte store.
void emit_row_pad(GridKernel& kernel, const ir::TensorType& in, const ir::TensorType& out,
                  const std::vector<int64_t>& strides) {
  const size_t last = out.shape.size() - 1;
  const std::string type(storage_type(out.dtype));
  kernel.numel = out.numel() / out.shape[last];
  kernel.body.line("int64_t rest = i, src = 0;");
  for (size_t d = last; d-- > 0;) {
    kernel.body.line("src += rest % " + std::to_string(out.shape[d]) + " * " +
                     std::to_string(strides[d]) + ";");
    if (d > 0) kernel.body.line("rest /= " + std::to_string(out.shape[d]) + ";");
  }
  kernel.body.line("alignas(16) " + type + " row[" + std::to_string(out.shape[last]) + "];");
  kernel.body.line("#pragma unroll");
  kernel.body.line("for (int k = 0; k < " + std::to_string(out.shape[last]) + "; ++k)");
  kernel.body.line("  row[k] = k < " + std::to_string(in.shape[last]) + " ? in[src + k * " +
                   std::to_string(strides[last]) + "] : fill[0];");
  kernel.body.line("reinterpret_cast<uint4*>(out)[i] = *reinterpret_cast<const uint4*>(row);");
}

}  // namespace

Status emit_constant_pad(EmitContext& ctx, int32_t index) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(index)];
  const ir::TensorType& in = ctx.graph.type(node.inputs[0]);
  const ir::TensorType& out = ctx.graph.type(node.outputs[0]);
  if (!ctx.open_node(node, "copy")) return Status::ok();
  const ir::IntList& before = node.attrs.get_ints("before");
  // x read in place (views.h): a channels-last image padded to 8 channels is one pass over the
  // NCHW input, not a permute copy and then a pad copy.
  const ValueView view = resolve_view(ctx.graph, ctx.views, node.inputs[0]);
  const std::vector<int64_t>& strides = view.view.strides;
  const std::string type(storage_type(out.dtype));
  GridKernel kernel{node_kernel_name(ctx.graph, node, index),
                    ctx.describe(node),
                    "const " + type + "* in, const " + type + "* fill, " + type + "* out",
                    {{"in", ctx.view_pointer(view)},
                     {"fill", ctx.pointer(node.inputs[1])},
                     {"out", ctx.pointer(node.outputs[0])}},
                    {},
                    out.numel(),
                    ctx.label(node)};
  if (pads_rows_to_16_bytes(ctx.graph, node)) {
    emit_row_pad(kernel, in, out, strides);
    emit_grid_kernel(ctx, kernel);
    return Status::ok();
  }
  kernel.body.line("int64_t rest = i, src = 0;");
  kernel.body.line("bool inside = true;");
  for (size_t d = out.shape.size(); d-- > 0;) {
    // The input index along d: the output's, less the padding before it.
    const std::string k = "k" + std::to_string(d);
    kernel.body.line("const int64_t " + k + " = rest % " + std::to_string(out.shape[d]) + " - " +
                     std::to_string(before[d]) + ";");
    if (d > 0) kernel.body.line("rest /= " + std::to_string(out.shape[d]) + ";");
    kernel.body.line("inside = inside && " + k + " >= 0 && " + k + " < " +
                     std::to_string(in.shape[d]) + ";");
    kernel.body.line("src += " + k + " * " + std::to_string(strides[d]) + ";");
  }
  kernel.body.line("out[i] = inside ? in[src] : fill[0];");
  emit_grid_kernel(ctx, kernel);
  return Status::ok();
}

// index_select: out viewed as [outer, count, inner] reads x as [outer, size, inner] at the row
// its index names, wrapped once when negative and clamped into [0, size) (never out of bounds).
Status emit_index_select(EmitContext& ctx, int32_t index) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(index)];
  const ir::TensorType& x = ctx.graph.type(node.inputs[0]);
  const ir::TensorType& ids = ctx.graph.type(node.inputs[1]);
  const ir::TensorType& out = ctx.graph.type(node.outputs[0]);
  if (!ctx.open_node(node, "copy")) return Status::ok();
  const auto dim = static_cast<size_t>(node.attrs.get_int("dim"));
  int64_t inner = 1;
  for (size_t d = dim + 1; d < x.shape.size(); ++d) inner *= x.shape[d];
  const std::string type(storage_type(out.dtype)), id_type(storage_type(ids.dtype));
  GridKernel kernel{node_kernel_name(ctx.graph, node, index),
                    ctx.describe(node),
                    "const " + type + "* in, const " + id_type + "* index, " + type + "* out",
                    {{"in", ctx.pointer(node.inputs[0])},
                     {"index", ctx.pointer(node.inputs[1])},
                     {"out", ctx.pointer(node.outputs[0])}},
                    {},
                    out.numel(),
                    ctx.label(node)};
  const std::string n = std::to_string(inner), count = std::to_string(ids.numel()),
                    size = std::to_string(x.shape[dim]);
  kernel.body.line("const int64_t c = i % " + n + ", p = (i / " + n + ") % " + count +
                   ", o = i / " + std::to_string(inner * ids.numel()) + ";");
  kernel.body.line("int64_t r = static_cast<int64_t>(index[p]);");
  kernel.body.line("if (r < 0) r += " + size + ";");
  kernel.body.line("r = r < 0 ? 0 : (r >= " + size + " ? " + size + " - 1 : r);");
  kernel.body.line("out[i] = in[(o * " + size + " + r) * " + n + " + c];");
  emit_grid_kernel(ctx, kernel);
  return Status::ok();
}

bool rows_written_by_rotary(const EmitContext& ctx, int32_t index) {
  const ir::ValueId source = ctx.graph.nodes()[static_cast<size_t>(index)].inputs[2];
  const int32_t producer = ctx.views.producer.at(static_cast<size_t>(source));
  return producer >= 0 && rotary_row_target(ctx, producer) == index;
}

namespace {

// index_copy: over x's own bytes (a KV cache state, memory_plan.h), one thread per source element
// writes its row (nothing when the index is out of range). (A layer's K and V cache writes, back
// to back, go out in one launch as a launch group, launch_groups.h.) Otherwise one thread per
// output element takes x's value or the last source row whose index names its row; that reads the
// index count times per element, fine for the short indexes this fallback sees.
Status emit_index_copy(EmitContext& ctx, int32_t index) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(index)];
  const ir::TensorType& x = ctx.graph.type(node.inputs[0]);
  const ir::TensorType& ids = ctx.graph.type(node.inputs[1]);
  const ir::TensorType& source = ctx.graph.type(node.inputs[2]);
  if (!ctx.open_node(node, "write")) return Status::ok();
  const ir::ValueId source_value = node.inputs[2];
  if (rows_written_by_rotary(ctx, index)) {
    ctx.out.run.line("// (its rows written in place by the rotary kernel of %" +
                     comment_text(ctx.graph.name(source_value), 60) + ")");
    return Status::ok();
  }
  const bool in_place = same_bytes(ctx.plan, node.inputs[0], node.outputs[0]);
  const auto dim = static_cast<size_t>(node.attrs.get_int("dim"));
  int64_t inner = 1;
  for (size_t d = dim + 1; d < x.shape.size(); ++d) inner *= x.shape[d];
  const std::string type(storage_type(x.dtype)), id_type(storage_type(ids.dtype));
  const std::string n = std::to_string(inner), count = std::to_string(ids.numel()),
                    size = std::to_string(x.shape[dim]);
  const ValueView source_view = resolve_view(ctx.graph, ctx.views, node.inputs[2]);
  GridKernel kernel{node_kernel_name(ctx.graph, node, index),
                    ctx.describe(node) + (in_place ? " (in place)" : ""),
                    "const " + type + "* in, const " + id_type + "* index, const " + type +
                        "* source, " + type + "* out",
                    {{"in", ctx.pointer(node.inputs[0])},
                     {"index", ctx.pointer(node.inputs[1])},
                     {"source", ctx.view_pointer(source_view)},
                     {"out", ctx.pointer(node.outputs[0])}},
                    {},
                    in_place ? source.numel() : x.numel(),
                    ctx.label(node)};
  if (source.numel() == 0 && in_place) {
    ctx.out.run.line("// (no rows to write)");
    return Status::ok();
  }
  if (in_place) {
    kernel.body.line("(void)in;  // the same bytes as out");
    const std::string read =
        "source[" + loop_offset_expression(coalesce(source_view.view), source.numel()) + "]";
    kernel.body.line("const int64_t c = i % " + n + ", p = (i / " + n + ") % " + count +
                     ", o = i / " + std::to_string(inner * ids.numel()) + ";");
    kernel.body.line("int64_t r = static_cast<int64_t>(index[p]);");
    kernel.body.line("if (r < 0) r += " + size + ";");
    kernel.body.line("if (r < 0 || r >= " + size + ") continue;  // never out of bounds");
    kernel.body.line("out[(o * " + size + " + r) * " + n + " + c] = " + read + ";");
  } else {
    kernel.body.line("const int64_t c = i % " + n + ", r = (i / " + n + ") % " + size +
                     ", o = i / " + std::to_string(inner * x.shape[dim]) + ";");
    kernel.body.line(type + " value = in[i];");
    kernel.body.line("for (int64_t p = 0; p < " + count + "; ++p) {");
    kernel.body.line("  int64_t q = static_cast<int64_t>(index[p]);");
    kernel.body.line("  if (q < 0) q += " + size + ";");
    kernel.body.line(
        "  if (q == r) value = source[" +
        element_offset(coalesce(source_view.view), "(o * " + count + " + p) * " + n + " + c") +
        "];");
    kernel.body.line("}");
    kernel.body.line("out[i] = value;");
  }
  emit_grid_kernel(ctx, kernel);
  return Status::ok();
}

// index_copy may write over its input x: in place it writes only the indexed rows.
std::vector<int32_t> index_copy_over_x(const ir::Graph& /*graph*/, const ir::Node& /*node*/) {
  return {0};
}

}  // namespace

void register_join_lowerings(LoweringTable& table) {
  table.add(ir::OpKind::kIndexSelect,
            {emit_index_select, no_scratch, never_in_place, Launches::kGridKernelsOnly});
  table.add(ir::OpKind::kIndexCopy,
            {emit_index_copy, no_scratch, index_copy_over_x, Launches::kGridKernelsOnly});
  table.add(ir::OpKind::kCat, {emit_cat, no_scratch, never_in_place, Launches::kGridKernelsOnly});
  table.add(ir::OpKind::kConstantPad,
            {emit_constant_pad, no_scratch, never_in_place, Launches::kGridKernelsOnly});
}

}  // namespace inferno::codegen
