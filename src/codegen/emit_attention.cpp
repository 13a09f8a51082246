// attention: one launch of kernels/attention.cuh per node (emit_attention.h). The sizes, the
// element strides of q, k, v and out (contiguous here: codegen has no views into attention yet,
// but the kernel takes any batch, head and sequence strides) and the mask's broadcast strides go
// into model.cu as integer literals, the scale as an exact double literal.
#include "codegen/emit_attention.h"

#include <algorithm>
#include <string>

#include "codegen/elementwise_table.h"
#include "codegen/strided_view.h"
#include "support/check.h"

namespace inferno::codegen {
namespace {

constexpr int64_t kMaxHeadDim = 256;  // the kernels' largest head tile
constexpr int64_t kMaxGrid = 65535;   // batch and heads are grid dims y and z
constexpr int64_t kMaxSeq = 0x7fffffff;

std::string n(int64_t v) { return std::to_string(v); }

// "inferno::kernels::AttentionLayout{batch, head, seq}" of a contiguous [B, H, S, E] tensor.
std::string contiguous_layout(const ir::Shape& shape) {
  const int64_t seq = shape[3], head = shape[2] * seq, batch = shape[1] * head;
  return "inferno::kernels::AttentionLayout{" + n(batch) + ", " + n(head) + ", " + n(seq) + "}";
}

// The smallest kernel head tile holding d and dv (kernels/attention.cuh's attention_head_tile).
int64_t head_tile(int64_t d, int64_t dv) {
  const int64_t h = std::max(d, dv);
  return h <= 32 ? 32 : h <= 64 ? 64 : h <= 128 ? 128 : 256;
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
  if (d > kMaxHeadDim || dv > kMaxHeadDim) {
    return ctx.unsupported_node(node, "head dims up to " + n(kMaxHeadDim) + " are supported, got " +
                                          n(d) + " (q, k) and " + n(dv) + " (v)");
  }
  if (batch > kMaxGrid || heads > kMaxGrid) {
    return ctx.unsupported_node(node, "at most " + n(kMaxGrid) + " batches and query heads, got " +
                                          n(batch) + " and " + n(heads));
  }
  if (sq > kMaxSeq || skv > kMaxSeq) {
    return ctx.unsupported_node(
        node, "sequences shorter than 2^31 are supported, got " + n(sq) + " and " + n(skv));
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
           (kind == "bool" ? "1" : "2") + ", {" + n(view.strides[0]) + ", " + n(view.strides[1]) +
           ", " + n(view.strides[2]) + ", " + n(view.strides[3]) + "}}";
  }
  const NamedArgs args = {
      {"q", ctx.pointer(node.inputs[0])},
      {"k", ctx.pointer(node.inputs[1])},
      {"v", ctx.pointer(node.inputs[2])},
      {"out", ctx.pointer(node.outputs[0])},
      {"dims", "inferno::kernels::AttentionDims{" + n(batch) + ", " + n(heads) + ", " +
                   n(kv_heads) + ", " + n(sq) + ", " + n(skv) + ", " + n(d) + ", " + n(dv) + "}"},
      {"q_layout", contiguous_layout(q.shape)},
      {"k_layout", contiguous_layout(k.shape)},
      {"v_layout", contiguous_layout(v.shape)},
      {"out_layout", contiguous_layout(out.shape)},
      {"mask", mask},
      {"scale", double_literal(node.attrs.get_float("scale"))},
      {"causal", node.attrs.get_bool("causal") ? "true" : "false"},
  };
  // Parenthesized: the template arguments and braced sizes hold commas the macro would split at.
  run.line("MODEL_CHECK_CUDA((inferno::kernels::attention<" + std::string(storage_type(q.dtype)) +
           ", " + n(head_tile(d, dv)) + ">(" + named_args(args) + ", stream)), " + ctx.label(node) +
           ");");
  return Status::ok();
}

void register_attention_lowerings(LoweringTable& table) {
  table.add(ir::OpKind::kAttention, emit_attention);
}

}  // namespace inferno::codegen
