// attention: one launch of kernels/attention.cuh per node (emit_attention.h). The sizes, the
// element strides of q, k, v and out and the mask's broadcast strides go into model.cu as integer
// literals, the scale as an exact double literal. q, k and v are read through the slices,
// reshapes, permutes and expands that views.h makes views (a fused QKV projection's output is
// read in place), and out is written in the layout of a permute that is its only reader.
#include "codegen/emit_attention.h"

#include <algorithm>
#include <string>

#include "codegen/elementwise_table.h"
#include "codegen/strided_view.h"
#include "codegen/views.h"
#include "support/check.h"
#include "target/target.h"

namespace inferno::codegen {
namespace {

// "inferno::kernels::AttentionLayout{batch, head, seq}" of a 4-D view (the last dim contiguous).
std::string layout(const StridedView& view) {
  INFERNO_CHECK(view.rank() == 4 && (view.shape[3] == 1 || view.strides[3] == 1),
                "attention: a view without a contiguous last dim");
  return "inferno::kernels::AttentionLayout{" + decimal(view.strides[0]) + ", " +
         decimal(view.strides[1]) + ", " + decimal(view.strides[2]) + "}";
}

// The smallest kernel head tile holding d and dv (kernels/attention.cuh's attention_head_tile).
int64_t head_tile(int64_t d, int64_t dv) {
  const int64_t h = std::max(d, dv);
  return h <= 32 ? 32 : h <= 64 ? 64 : h <= 128 ? 128 : 256;
}

// The decode step's form (attention_step.h): q before its rotary, the caches written in place,
// and the update's operands; `args` as the plain call has them.
Status emit_attention_step(EmitContext& ctx, int32_t index, NamedArgs args, std::string_view type,
                           int64_t tile, const std::string& decode) {
  const ir::Graph& graph = ctx.graph;
  const ir::Node& node = graph.nodes()[static_cast<size_t>(index)];
  const AttentionStep& step = ctx.attention_steps[static_cast<size_t>(index)];
  const ir::Node& k_copy = graph.nodes()[static_cast<size_t>(step.k_write)];
  const ir::Node& v_copy = graph.nodes()[static_cast<size_t>(step.v_write)];
  const ir::Node* q_rotary =
      step.q_rotary >= 0 ? &graph.nodes()[static_cast<size_t>(step.q_rotary)] : nullptr;
  const ir::Node* k_rotary =
      step.k_rotary >= 0 ? &graph.nodes()[static_cast<size_t>(step.k_rotary)] : nullptr;
  const ir::Node* rotary = q_rotary != nullptr ? q_rotary : k_rotary;
  auto view_of = [&](ir::ValueId v) { return resolve_view(graph, ctx.views, v); };
  const ValueView q_rows = view_of(q_rotary != nullptr ? q_rotary->inputs[0] : node.inputs[0]);
  const ValueView k_rows = view_of(k_rotary != nullptr ? k_rotary->inputs[0] : k_copy.inputs[2]);
  const ValueView v_rows = view_of(v_copy.inputs[2]);
  std::string cosine = "nullptr", sine = "nullptr", batch_stride = "0";
  if (rotary != nullptr) {
    ir::Shape rotated = graph.type(rotary->outputs[0]).shape;
    rotated.back() = rotary->attrs.get_int("rotary_dim");
    const ValueView c = view_of(rotary->inputs[1]), s = view_of(rotary->inputs[2]);
    cosine = ctx.view_pointer(c);
    sine = ctx.view_pointer(s);
    // The planner made sure sine's batch stride is cosine's.
    batch_stride = decimal(rotated[0] == 1 ? 0 : broadcast_view(c.view, rotated).strides[0]);
  }
  auto rotary_dim = [](const ir::Node* r) {
    return r == nullptr ? std::string("0") : decimal(r->attrs.get_int("rotary_dim"));
  };
  const std::string t(type);
  args[0] = {"q", ctx.view_pointer(q_rows)};
  args[1] = {"k_cache", ctx.pointer(k_copy.outputs[0])};
  args[2] = {"v_cache", ctx.pointer(v_copy.outputs[0])};
  args[5] = {"q_layout", layout(q_rows.view)};
  args.erase(args.end() - 1);  // causal: never (attention_step.h)
  args.push_back({"update", "inferno::kernels::AttentionDecodeUpdate<" + t + ">{" +
                                ctx.view_pointer(k_rows) + ", " + layout(k_rows.view) + ", " +
                                ctx.view_pointer(v_rows) + ", " + layout(v_rows.view) + ", " +
                                ctx.view_pointer(view_of(k_copy.inputs[1])) + ", " + cosine + ", " +
                                sine + ", " + batch_stride + ", " + rotary_dim(q_rotary) + ", " +
                                rotary_dim(k_rotary) + "}"});
  ctx.out.run.line("// (with the rotary and cache writes of the step: codegen/attention_step.h)");
  ctx.out.run.line("MODEL_CHECK_CUDA((inferno::kernels::attention_step<" + t + ", " +
                   decimal(tile) + ">(" + named_args(args) + ", stream" + decode + ")), " +
                   ctx.label(node) + ");");
  return Status::ok();
}

}  // namespace

Status emit_attention(EmitContext& ctx, int32_t index) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(index)];
  const ir::TensorType& q = ctx.graph.type(node.inputs[0]);
  const ir::TensorType& k = ctx.graph.type(node.inputs[1]);
  const ir::TensorType& v = ctx.graph.type(node.inputs[2]);
  const ir::TensorType& out = ctx.graph.type(node.outputs[0]);
  INFERNO_CHECK(q.rank() == 4 && k.rank() == 4 && v.rank() == 4, "attention: bad node");
  if (!ir::is_floating(q.dtype)) {
    return ctx.unsupported_node(node, "expects floating-point operands, got " + q.to_string());
  }
  const int64_t batch = q.shape[0], heads = q.shape[1], sq = q.shape[2], d = q.shape[3];
  const int64_t kv_heads = k.shape[1], skv = k.shape[2], dv = v.shape[3];
  const target::AttentionLimits& limits = target::kAttentionLimits;
  if (d > limits.max_head_dim || dv > limits.max_head_dim) {
    return ctx.unsupported_node(node, "head dims up to " + decimal(limits.max_head_dim) +
                                          " are supported, got " + decimal(d) + " (q, k) and " +
                                          decimal(dv) + " (v)");
  }
  if (batch > limits.max_grid || heads > limits.max_grid) {
    return ctx.unsupported_node(node, "at most " + decimal(limits.max_grid) +
                                          " batches and query heads, got " + decimal(batch) +
                                          " and " + decimal(heads));
  }
  if (sq > limits.max_seq || skv > limits.max_seq) {
    return ctx.unsupported_node(node, "sequences shorter than 2^31 are supported, got " +
                                          decimal(sq) + " and " + decimal(skv));
  }
  SourceWriter& run = ctx.out.run;
  run.line("// " + ctx.describe(node));
  if (out.numel() == 0) {
    run.line("// (no elements: nothing to compute)");
    return Status::ok();
  }
  ctx.out.headers.insert("kernels/attention.cuh");
  const std::string kind = node.attrs.get_string("mask");
  std::string mask = "inferno::kernels::AttentionMask{nullptr, 0, {0, 0, 0, 0}}";
  if (kind != "none") {
    INFERNO_CHECK(node.inputs.size() == 4 && (kind == "bool" || kind == "additive"),
                  "attention: bad mask");
    const StridedView view =
        broadcast_view(ctx.graph.type(node.inputs[3]).shape, {batch, heads, sq, skv});
    mask = "inferno::kernels::AttentionMask{" + ctx.pointer(node.inputs[3]) + ", " +
           (kind == "bool" ? "1" : "2") + ", {" + decimal(view.strides[0]) + ", " +
           decimal(view.strides[1]) + ", " + decimal(view.strides[2]) + ", " +
           decimal(view.strides[3]) + "}}";
  }
  // q, k and v through the layout nodes codegen skips (views.h); out in the layout of the
  // permute that reads it, when that permute is a view.
  const ValueView qv = resolve_view(ctx.graph, ctx.views, node.inputs[0]);
  const ValueView kv = resolve_view(ctx.graph, ctx.views, node.inputs[1]);
  const ValueView vv = resolve_view(ctx.graph, ctx.views, node.inputs[2]);
  ValueView ov = ctx.views.output_view.at(static_cast<size_t>(index));
  if (ov.source == ir::kNoValue) {
    ov = {node.outputs[0], 0, {out.shape, ir::contiguous_strides(out.shape)}};
  } else {
    run.line("// (out is written in the layout of %" + ctx.graph.name(ov.source) + ")");
  }
  const NamedArgs args = {
      {"q", ctx.view_pointer(qv)},
      {"k", ctx.view_pointer(kv)},
      {"v", ctx.view_pointer(vv)},
      {"out", ctx.view_pointer(ov)},
      {"dims", "inferno::kernels::AttentionDims{" + decimal(batch) + ", " + decimal(heads) + ", " +
                   decimal(kv_heads) + ", " + decimal(sq) + ", " + decimal(skv) + ", " +
                   decimal(d) + ", " + decimal(dv) + "}"},
      {"q_layout", layout(qv.view)},
      {"k_layout", layout(kv.view)},
      {"v_layout", layout(vv.view)},
      {"out_layout", layout(ov.view)},
      {"mask", mask},
      {"scale", double_literal(node.attrs.get_float("scale"))},
      {"causal", node.attrs.get_bool("causal") ? "true" : "false"},
  };
  // A decode step's kernel (attention_decode.cuh) may be a dependent launch where run() allows one.
  const std::string decode = sq <= limits.decode_max_rows && batch * sq <= limits.max_grid
                                 ? ", inferno::kernels::AttentionDecodeLaunch{dependent_launch}"
                                 : "";
  if (static_cast<size_t>(index) < ctx.attention_steps.size() &&
      ctx.attention_steps[static_cast<size_t>(index)].k_write >= 0) {
    return emit_attention_step(ctx, index, args, storage_type(q.dtype), head_tile(d, dv), decode);
  }
  // Parenthesized: the template arguments and braced sizes hold commas the macro would split at.
  run.line("MODEL_CHECK_CUDA((inferno::kernels::attention<" + std::string(storage_type(q.dtype)) +
           ", " + decimal(head_tile(d, dv)) + ">(" + named_args(args) + ", stream" + decode +
           ")), " + ctx.label(node) + ");");
  return Status::ok();
}

void register_attention_lowerings(LoweringTable& table) {
  table.add(ir::OpKind::kAttention, {emit_attention, no_scratch, never_in_place});
}

}  // namespace inferno::codegen
