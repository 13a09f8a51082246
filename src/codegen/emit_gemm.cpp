#include "codegen/emit_gemm.h"

#include <numeric>

#include "codegen/elementwise_table.h"
#include "codegen/emit_kernel_calls.h"
#include "codegen/strided_view.h"
#include "ir/text_format.h"
#include "support/check.h"

namespace inferno::codegen {
namespace {

// Caller-owned buffers (graph inputs and outputs) are assumed 16-byte aligned and checked in run();
// the arena and the weights are 256-byte aligned.
constexpr int64_t kCallerAlignment = 16;

// A GEMM in row-major terms: D[b] (M x N) = L[b] (M x K) @ R[b] (K x N) over `batch` matrices.
struct RowMajorGemm {
  int64_t m = 0, n = 0, k = 0;
  int64_t batch = 1;
  int64_t left_stride = 0, right_stride = 0, out_stride = 0;  // elements between batch matrices
  bool right_is_nk = false;  // R is stored transposed, [N, K] (linear's weight)
  ir::ValueId left = ir::kNoValue, right = ir::kNoValue, bias = ir::kNoValue;
  int64_t bias_offset = -1;  // weights offset of an epilogue bias
  bool bias_copy = false;    // the bias is broadcast-copied into the output first
  double alpha = 1.0, beta = 0.0;
};

int64_t product(const ir::Shape& shape, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t d = begin; d < end; ++d) p *= shape[d];
  return p;
}

// Left-pads a batch shape with 1s to `rank` dims.
ir::Shape pad(const ir::Shape& shape, size_t rank) {
  ir::Shape out(rank - shape.size(), 1);
  out.insert(out.end(), shape.begin(), shape.end());
  return out;
}

Status plan_matmul(const EmitContext& ctx, const ir::Node& node, RowMajorGemm& g) {
  ir::Shape sa = ctx.graph.type(node.inputs[0]).shape, sb = ctx.graph.type(node.inputs[1]).shape;
  if (sa.size() == 1) sa.insert(sa.begin(), 1);
  if (sb.size() == 1) sb.push_back(1);
  g.left = node.inputs[0];
  g.right = node.inputs[1];
  g.m = sa[sa.size() - 2];
  g.k = sa.back();
  g.n = sb.back();
  const ir::Shape batch_a(sa.begin(), sa.end() - 2), batch_b(sb.begin(), sb.end() - 2);
  const int64_t na = ir::shape_numel(batch_a), nb = ir::shape_numel(batch_b);
  const size_t rank = std::max(batch_a.size(), batch_b.size());
  if (nb == 1) {
    g.m *= na;  // the left operand's batch folds into M: one [na*M, K] matrix
  } else if (na == 1) {
    g.batch = nb;
    g.right_stride = g.k * g.n;
    g.out_stride = g.m * g.n;
  } else if (pad(batch_a, rank) == pad(batch_b, rank)) {
    g.batch = na;
    g.left_stride = g.m * g.k;
    g.right_stride = g.k * g.n;
    g.out_stride = g.m * g.n;
  } else {
    return ctx.unsupported_node(node, "batch dims " + ir::shape_to_string(batch_a) + " and " +
                                          ir::shape_to_string(batch_b) +
                                          " broadcast in a way a strided batched GEMM cannot express");
  }
  return Status::ok();
}

// True when `bias` is a row vector of length n (shape [n] or [1, ..., 1, n]) stored in the weights.
bool epilogue_bias(const EmitContext& ctx, ir::ValueId bias, int64_t n) {
  const ir::TensorType& type = ctx.graph.type(bias);
  if (type.dtype == ir::DType::kF64 || type.rank() == 0 || type.shape.back() != n || type.numel() != n) return false;
  return ctx.graph.value(bias).kind == ir::ValueKind::kConstant && ctx.weights.stored(bias);
}

Status plan_gemm(const EmitContext& ctx, const ir::Node& node, RowMajorGemm& g) {
  switch (node.op) {
    case ir::OpKind::kMatMul: return plan_matmul(ctx, node, g);
    case ir::OpKind::kLinear: {
      const ir::Shape& x = ctx.graph.type(node.inputs[0]).shape;
      const ir::Shape& w = ctx.graph.type(node.inputs[1]).shape;
      g.left = node.inputs[0];
      g.right = node.inputs[1];
      g.right_is_nk = true;
      g.m = product(x, 0, x.size() - 1);
      g.n = w[0];
      g.k = w[1];
      if (node.inputs.size() == 3) {
        g.bias = node.inputs[2];
        if (epilogue_bias(ctx, g.bias, g.n)) {
          g.bias_offset = ctx.weights.offset.at(static_cast<size_t>(g.bias));
        } else {
          g.bias_copy = true;
          g.beta = 1.0;
        }
      }
      return Status::ok();
    }
    case ir::OpKind::kAddMM: {
      g.bias = node.inputs[0];
      g.left = node.inputs[1];
      g.right = node.inputs[2];
      const ir::Shape& a = ctx.graph.type(g.left).shape;
      g.m = a[0];
      g.k = a[1];
      g.n = ctx.graph.type(g.right).shape[1];
      g.alpha = node.attrs.get_float("alpha");
      const double beta = node.attrs.get_float("beta");
      if (beta == 1.0 && epilogue_bias(ctx, g.bias, g.n)) {
        g.bias_offset = ctx.weights.offset.at(static_cast<size_t>(g.bias));
      } else if (beta != 0.0) {
        g.bias_copy = true;
        g.beta = beta;
      }
      return Status::ok();
    }
    default: INFERNO_CHECK(false, "plan_gemm: not a GEMM"); return Status::ok();
  }
}

bool caller_buffer(const EmitContext& ctx, ir::ValueId v) {
  const StorageKind kind = ctx.plan.of(v).kind;
  return kind == StorageKind::kInput || kind == StorageKind::kOutput;
}

// The alignment cuBLASLt may assume for an operand: its base's, reduced by the batch stride.
int64_t alignment(const EmitContext& ctx, ir::ValueId v, int64_t batch, int64_t stride_elements) {
  int64_t align = caller_buffer(ctx, v) ? kCallerAlignment : kBufferAlignment;
  if (batch > 1 && stride_elements > 0) {
    align = std::gcd(align, stride_elements * ir::dtype_size(ctx.graph.type(v).dtype));
  }
  return align;
}

std::string operand_text(const EmitContext& ctx, ir::ValueId v) { return ctx.graph.type(v).to_string(); }

}  // namespace

Status emit_gemm(EmitContext& ctx, int32_t index) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(index)];
  const ir::ValueId out = node.outputs[0];
  const ir::TensorType& out_type = ctx.graph.type(out);
  const ir::DType dtype = out_type.dtype;
  if (!ir::is_floating(dtype)) {
    return ctx.unsupported_node(node, "integer GEMMs are not supported (" + std::string(ir::dtype_name(dtype)) + ")");
  }
  RowMajorGemm g;
  INFERNO_RETURN_IF_ERROR(plan_gemm(ctx, node, g));
  if (g.batch > INT32_MAX) return ctx.unsupported_node(node, "more than 2^31 batched matrices");

  SourceWriter& run = ctx.out.run;
  run.line("// " + ctx.describe(node));
  if (out_type.numel() == 0) {
    run.line("// (no elements: nothing to compute)");
    return Status::ok();
  }
  if (g.k == 0) return ctx.unsupported_node(node, "an empty inner dimension (K = 0)");

  const char* data_type = dtype == ir::DType::kF32    ? "CUDA_R_32F"
                          : dtype == ir::DType::kF16  ? "CUDA_R_16F"
                          : dtype == ir::DType::kBF16 ? "CUDA_R_16BF"
                                                      : "CUDA_R_64F";
  const bool f64 = dtype == ir::DType::kF64;
  const char* compute = f64 ? "CUBLAS_COMPUTE_64F"
                        : (dtype == ir::DType::kF32 && ctx.options.tf32) ? "CUBLAS_COMPUTE_32F_FAST_TF32"
                                                                         : "CUBLAS_COMPUTE_32F";
  const std::string m = std::to_string(g.m), n = std::to_string(g.n), k = std::to_string(g.k);
  const int64_t align_a = alignment(ctx, g.right, g.batch, g.right_stride);
  const int64_t align_b = alignment(ctx, g.left, g.batch, g.left_stride);
  const int64_t align_d = alignment(ctx, out, g.batch, g.out_stride);

  // The kGemms entry, with a line saying what it computes in row-major terms.
  std::string what = operand_text(ctx, g.left) + " @ " + operand_text(ctx, g.right) + (g.right_is_nk ? "^T" : "");
  if (g.bias_offset >= 0) what += " + bias (epilogue)";
  if (g.bias_copy) what += " + bias (copied into the output, beta " + ir::format_attr_float(g.beta) + ")";
  what += " -> " + out_type.to_string() + ": M " + m + ", N " + n + ", K " + k;
  if (g.batch > 1) what += ", " + std::to_string(g.batch) + " batches";
  const int32_t gemm = ctx.out.num_gemms++;
  SourceWriter& spec = ctx.out.gemm_specs;
  spec.line("// " + std::to_string(gemm) + ": %" + comment_text(ctx.graph.node_name(node)) + " = " + comment_text(what));
  spec.line("{" + ctx.label(node) + ", " + data_type + ", " + compute + ", " + (f64 ? "CUDA_R_64F" : "CUDA_R_32F") +
            ", " + (g.right_is_nk ? "CUBLAS_OP_T" : "CUBLAS_OP_N") + ",");
  spec.line(" /* A */ " + (g.right_is_nk ? k + ", " + n + ", " + k : n + ", " + k + ", " + n) + ", /* B */ " + k + ", " +
            m + ", " + k + ", /* D */ " + n + ", " + m + ", " + n + ",");
  spec.line(" /* batch */ " + std::to_string(g.batch) + ", " + std::to_string(g.right_stride) + ", " +
            std::to_string(g.left_stride) + ", " + std::to_string(g.out_stride) + ", /* bias */ " +
            std::to_string(g.bias_offset) + ", /* alpha, beta */ " + double_literal(g.alpha) + ", " +
            double_literal(g.beta) + ", /* alignment */ " + std::to_string(align_a) + ", " + std::to_string(align_b) +
            ", " + std::to_string(align_d) + "},");

  // run(): check caller buffers' alignment, copy a broadcast bias, multiply.
  for (const ir::ValueId v : {g.left, g.right, out}) {
    if (!caller_buffer(ctx, v) || (v == g.right && g.right == g.left)) continue;
    ctx.out.checks_alignment = true;
    run.line("if (misaligned(" + ctx.pointer(v) + ", " + std::to_string(kCallerAlignment) + ")) return bad_alignment(" +
             ctx.label(node) + ", " + c_string_literal("%" + ctx.graph.name(v)) + ", " +
             std::to_string(kCallerAlignment) + ", error, error_size);");
  }
  if (g.bias_copy) {
    const ir::TensorType& bias = ctx.graph.type(g.bias);
    const StridedView view = broadcast_view(bias.shape, {g.m, g.n});
    const std::string name = "k" + std::to_string(index) + "_" + std::string(ir::op_name(node.op)) + "_bias_" +
                             std::string(dtype_tag(dtype)) + "_" + std::to_string(g.m) + "x" + std::to_string(g.n);
    emit_copy(ctx, dtype, view, g.m * g.n, ctx.pointer(g.bias), ctx.pointer(out), ctx.label(node), name,
              ctx.describe(node) + ": the bias, broadcast");
  }
  run.line("MODEL_CHECK_CUBLAS(run_gemm(state->lt, kGemms[" + std::to_string(gemm) + "], state->gemms[" +
           std::to_string(gemm) + "], " + ctx.pointer(g.right) + ", " + ctx.pointer(g.left) + ", " + ctx.pointer(out) +
           ", workspace, kWorkspaceBytes, stream), " + ctx.label(node) + ");");
  return Status::ok();
}

}  // namespace inferno::codegen
