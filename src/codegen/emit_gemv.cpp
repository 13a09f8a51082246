#include "codegen/emit_gemv.h"

#include <optional>

#include "codegen/elementwise_table.h"
#include "codegen/emit_grid_kernel.h"
#include "codegen/gemv_pairs.h"
#include "codegen/strided_view.h"
#include "ir/op.h"
#include "ir/text_format.h"
#include "support/check.h"
#include "target/target.h"

namespace inferno::codegen {
namespace {

// Where each term goes: the kernel's row (a bias) and full (a residual) slots.
struct Slots {
  std::optional<GemvTerm> row, full;
};

std::optional<Slots> assign_slots(const ir::Graph& graph, const ir::TensorType& out,
                                  const GemvProduct& p) {
  std::vector<ir::Shape> shapes;
  for (const GemvTerm& term : p.terms) shapes.push_back(graph.type(term.value).shape);
  const std::optional<std::vector<target::GemvAddendSlot>> chosen =
      target::gemv_addend_slots(shapes, out.shape);
  if (!chosen) return std::nullopt;
  Slots slots;
  for (size_t i = 0; i < p.terms.size(); ++i)
    ((*chosen)[i] == target::GemvAddendSlot::kRow ? slots.row : slots.full) = p.terms[i];
  return slots;
}

std::string coefficient_text(double c) { return c == 1.0 ? "" : ir::format_attr_float(c) + " * "; }

}  // namespace

bool has_output_layout(const ir::TensorType& addend, const ir::TensorType& out) {
  return addend.numel() == out.numel() &&
         is_contiguous(coalesce(broadcast_view(addend.shape, out.shape)));
}

bool gemv_fits(const ir::Graph& graph, const ir::Node& node, const GemvProduct& p) {
  const ir::TensorType& out = graph.type(node.outputs[0]);
  const ir::DType dtype = out.dtype;
  if (dtype != ir::DType::kF32 && dtype != ir::DType::kF16 && dtype != ir::DType::kBF16)
    return false;
  const target::GemvLimits& limits = target::kGemvLimits;
  if (p.batch != 1 || p.m < 1 || p.m > limits.max_rows || p.n < 1 || p.n > limits.max_extent ||
      p.k < 1 || p.k > limits.max_extent)
    return false;
  if (graph.type(p.left).dtype != dtype || graph.type(p.right).dtype != dtype) return false;
  for (const GemvTerm& term : p.terms) {
    if (graph.type(term.value).dtype != dtype) return false;
  }
  const std::string activation = node.attrs.get_string("activation");
  if (activation != "none" && !ir::epilogue_activation(activation, ir::kGemmActivation))
    return false;
  if (p.norm && (!p.right_is_nk || !target::gemv_norm_fits(p.m, p.k, ir::dtype_size(dtype)) ||
                 graph.type(p.norm->weight).dtype != dtype ||
                 (p.norm->bias != ir::kNoValue && graph.type(p.norm->bias).dtype != dtype)))
    return false;
  return assign_slots(graph, out, p).has_value();
}

Status emit_gemv(EmitContext& ctx, int32_t index, const GemvProduct& p) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(index)];
  const ir::ValueId out = node.outputs[0];
  const ir::TensorType& out_type = ctx.graph.type(out);
  const ir::DType dtype = out_type.dtype;
  const std::optional<Slots> slots = assign_slots(ctx.graph, out_type, p);
  INFERNO_CHECK(slots.has_value(), "gemv: an epilogue the kernel cannot take");
  const std::string type(storage_type(dtype));
  const ir::ValueId next =
      ctx.gemv_prefetch.empty() ? ir::kNoValue : ctx.gemv_prefetch.at(static_cast<size_t>(index));
  const std::string m = decimal(p.m), n = decimal(p.n), k = decimal(p.k);
  const char* layout = p.right_is_nk ? "nk" : "kn";
  const char* norm_name = !p.norm ? "" : p.norm->rms ? "rms_norm_" : "layer_norm_";
  // A gated MLP's elementwise node the epilogue computes instead of storing the product.
  const int32_t pairs = gemv_pair_target(ctx, index);
  const ir::ValueId written =
      pairs >= 0 ? ctx.graph.nodes()[static_cast<size_t>(pairs)].outputs[0] : out;
  const std::string name = "k" + std::to_string(index) + "_gemv_" + layout + "_" + norm_name +
                           std::string(dtype_tag(dtype)) + "_" + m + "x" + k + "x" + n +
                           (pairs >= 0 ? "_pairs" : "");

  // The activation, as the elementwise op it names, on the f32 value.
  std::string activation = "a";
  const std::string activation_name = node.attrs.get_string("activation");
  if (const std::optional<ir::OpKind> op =
          ir::epilogue_activation(activation_name, ir::kGemmActivation)) {
    const std::optional<std::string> expr =
        elementwise_expression(*op, {"a"}, choose_compute_type({dtype}, dtype));
    INFERNO_CHECK(expr.has_value(), "gemv: no expression for the activation");
    activation = *expr;
    ctx.out.headers.insert("kernels/elementwise.cuh");
  }
  ctx.out.headers.insert("kernels/gemv.cuh");

  // What it computes, for the kernel's comment.
  auto value = [&](ir::ValueId v) { return "%" + ctx.graph.name(v); };
  std::string left = value(p.left);
  if (p.norm) {
    left = (p.norm->rms ? "rms_norm(" : "layer_norm(") + left + ", " + value(p.norm->weight) +
           (p.norm->bias != ir::kNoValue ? ", " + value(p.norm->bias) : "") +
           ", eps = " + ir::format_attr_float(p.norm->eps) + ")";
  }
  std::string what =
      coefficient_text(p.alpha) + left + " @ " + value(p.right) + (p.right_is_nk ? "^T" : "");
  if (slots->row)
    what += " + " + coefficient_text(slots->row->coefficient) + value(slots->row->value) + "[n]";
  if (slots->full)
    what +=
        " + " + coefficient_text(slots->full->coefficient) + value(slots->full->value) + "[m, n]";
  if (activation_name != "none") what = activation_name + "(" + what + ")";

  SourceWriter& kernels = ctx.out.kernels;
  const std::string threads =
      p.right_is_nk ? std::string("inferno::kernels::kGemvNkThreads")
                    : "inferno::kernels::gemv_kn_threads<" + type + ">(" + n + ", " + m + ")";
  kernels.line("// " + ctx.describe(node));
  kernels.line("// GEMV, M " + m + ", N " + n + ", K " + k + ", weight stored " +
               (p.right_is_nk ? "[N, K]" : "[K, N]") + ": " + comment_text(what, 400));
  kernels.line(
      std::string("// (") +
      (p.norm ? "x's rows normalized in f32 and rounded, as the norm's kernel does; " : "") +
      "f32 sums, the epilogue fused, one rounding to " + std::string(ir::dtype_name(dtype)) + ")");
  if (pairs >= 0) {
    kernels.line("// Pairs (codegen/gemv_pairs.h): writes " + value(written) + " = f(" +
                 value(out) + "[..., :" + decimal(p.n / 2) + "], " + value(out) + "[..., " +
                 decimal(p.n / 2) + ":]) instead of " + value(out) +
                 ", f as its node computes it.");
  }
  if (next != ir::kNoValue) {
    kernels.line("// Asks L2 for " + value(next) +
                 ", the next GEMV's weight, as it starts (kernels/l2_prefetch.cuh).");
  }
  std::string params = "const " + type + "* x, const " + type + "* w";
  NamedArgs args = {{"x", ctx.pointer(p.left)}, {"w", ctx.pointer(p.right)}};
  if (p.norm) {
    params += ", const " + type + "* norm_weight";
    args.push_back({"norm_weight", ctx.pointer(p.norm->weight)});
    if (p.norm->bias != ir::kNoValue) {
      params += ", const " + type + "* norm_bias";
      args.push_back({"norm_bias", ctx.pointer(p.norm->bias)});
    }
  }
  if (slots->row) {
    params += ", const " + type + "* row";
    args.push_back({"row", ctx.pointer(slots->row->value)});
  }
  if (slots->full) {  // may be the output itself (read before the same thread writes it)
    params += ", const " + type + "* full";
    args.push_back({"full", ctx.pointer(slots->full->value)});
  }
  params += ", " + type + "* out";
  args.push_back({"out", ctx.pointer(written)});
  std::string prefetch;  // the call's last argument: the next GEMV's weight, for L2
  if (next != ir::kNoValue) {
    params += ", const void* next_weight, long long next_bytes";
    args.push_back({"next_weight", ctx.pointer(next)});
    args.push_back({"next_bytes", "inferno::kernels::l2_prefetch_bytes(" +
                                      decimal(ctx.graph.type(next).size_bytes()) + ")"});
    prefetch = ", {next_weight, next_bytes}";
  }
  kernels.open("__global__ void __launch_bounds__(" + threads + ") " + name + "(" + params + ")");
  kernels.line(
      "const inferno::kernels::GemvEpilogue<" + type + "> epilogue{" +
      float_literal(static_cast<float>(p.alpha)) + ", " + (slots->row ? "row" : "nullptr") + ", " +
      float_literal(static_cast<float>(slots->row ? slots->row->coefficient : 1.0)) + ", " +
      (slots->full ? "full" : "nullptr") + ", " +
      float_literal(static_cast<float>(slots->full ? slots->full->coefficient : 1.0)) + "};");
  const std::string contiguous = p.right_is_nk ? k : n;  // W's contiguous run
  // gemv_nk without a norm or pairs may give a long row's column several warps
  // (gemv_nk_split_lanes); its lanes, loads in flight and blocks then all say so.
  const std::string nk_plan = p.right_is_nk && !p.norm && pairs < 0 ? "split_" : "";
  const std::string shape_args = "<" + type + ">(" + n + ", " + k + ")";
  const std::string lanes = nk_plan.empty()
                                ? "inferno::kernels::gemv_nk_lanes<" + type + ">(" + k + ")"
                                : "inferno::kernels::gemv_nk_split_lanes" + shape_args;
  const std::string tiles =
      p.right_is_nk ? lanes : "inferno::kernels::gemv_kn_tx<" + type + ">(" + n + "), " + threads;
  const std::string unroll =  // gemv_nk's and gemv_nk_norm's loads in flight
      ", inferno::kernels::gemv_nk_" + (p.norm ? std::string("norm_") : nk_plan) + "unroll" +
      shape_args;
  const std::string pack = "inferno::kernels::gemv_pack<" + type + ">(" + contiguous + ")";
  const std::string act = "[](float a) { return " + activation + "; }";
  if (pairs >= 0) {  // the functor, then the call's last two arguments: the prefetch and it
    ctx.out.headers.insert("kernels/elementwise.cuh");
    INFERNO_RETURN_IF_ERROR(write_gemv_pair_functor(ctx, index, pairs, kernels));
    prefetch = (prefetch.empty() ? std::string(", {}") : prefetch) + ", pair";
  }
  if (p.norm) {  // gemv_nk_norm: K is a template argument (the staged rows' size)
    kernels.line("inferno::kernels::gemv_nk_norm<" + type + ", " + m + ", " + pack + ", " + tiles +
                 ", " + k + ", " + (p.norm->rms ? "true" : "false") + unroll + ">(x, w, " + n +
                 ", norm_weight, " + (p.norm->bias != ir::kNoValue ? "norm_bias" : "nullptr") +
                 ", " + float_literal(static_cast<float>(p.norm->eps)) + ", out, epilogue, " + act +
                 prefetch + ");");
  } else {
    kernels.line(std::string("inferno::kernels::gemv_") + layout + "<" + type + ", " + m + ", " +
                 pack + ", " + tiles + (p.right_is_nk ? unroll : "") + ">(x, w, " + n + ", " + k +
                 ", out, epilogue, " + act + prefetch + ");");
  }
  kernels.close();
  kernels.line("");

  const std::string blocks = p.right_is_nk
                                 ? "inferno::kernels::gemv_nk_" + nk_plan + "blocks" + shape_args
                                 : "inferno::kernels::gemv_kn_blocks<" + type + ">(" + n + ")";
  emit_launch(ctx, name, blocks, threads, args, ctx.label(node));
  return Status::ok();
}

}  // namespace inferno::codegen
