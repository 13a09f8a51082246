#include "codegen/emit_rotary.h"

#include <string>

#include "codegen/elementwise_table.h"
#include "codegen/emit_grid_kernel.h"
#include "codegen/strided_view.h"
#include "codegen/views.h"

namespace inferno::codegen {
namespace {

constexpr int64_t kIntRange = int64_t{1} << 31;

// The offset in a view-read input of its element at row-major index `element`: `element` itself
// when the input is its own contiguous bytes.
std::string element_offset(const StridedView& coalesced, const std::string& element) {
  if (is_contiguous(coalesced)) return element;
  return offset_expression(coalesced, "(" + element + ")");
}

}  // namespace

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
  kernel.params += type + "* out";
  kernel.args.push_back({"out", ctx.pointer(node.outputs[0])});

  // Element indices (i + h, the row * r of cos and sin) stay below numel; they and the views'
  // offsets are ints where every one of them fits (int division is the cheaper), else int64.
  bool fits_int = out.numel() + kMaxBlocks * kBlockThreads < kIntRange;
  for (const StridedView& view : views) fits_int = fits_int && max_offset(view) < kIntRange;
  const std::string ds = std::to_string(d), rs = std::to_string(r), hs = std::to_string(h);
  const std::string index_type = fits_int ? "int" : "int64_t";
  kernel.body.line("const " + index_type + " e = i, j = e % " + ds + ";");
  const auto load = [&](size_t k, const std::string& element) {
    return load_expression(out.dtype, compute,
                           std::string(names[k]) + "[" + element_offset(views[k], element) + "]");
  };
  if (r < d) {
    kernel.body.open("if (j >= " + rs + ")");
    kernel.body.line("out[i] = x[" + element_offset(views[0], "e") + "];  // passes through");
    kernel.body.line("continue;");
    kernel.body.close();
  }
  kernel.body.line("const " + index_type + " t = e / " + ds + " * " + rs +
                   " + j;  // in x[..., :" + rs + "]");
  kernel.body.line("const " + ctype + " partner = j < " + hs + " ? -" + load(0, "e + " + hs) +
                   " : " + load(0, "e - " + hs) + ";");
  kernel.body.line("const " + ctype + " value = " + load(0, "e") + " * " + load(1, "t") +
                   " + partner * " + load(2, "t") + ";");
  kernel.body.line("out[i] = " + store_expression(out.dtype, compute, "value") + ";");
  emit_grid_kernel(ctx, kernel);
  return Status::ok();
}

void register_rotary_lowerings(LoweringTable& table) {
  table.add(ir::OpKind::kRotary, {emit_rotary, no_scratch, never_in_place});
}

}  // namespace inferno::codegen
