#include "codegen/emit_gemm.h"

#include <numeric>
#include <set>

#include "codegen/elementwise_table.h"
#include "codegen/emit_gemv.h"
#include "codegen/emit_grid_kernel.h"
#include "codegen/emit_kernel_calls.h"
#include "codegen/strided_view.h"
#include "ir/norm_gemm.h"
#include "ir/text_format.h"
#include "support/check.h"

namespace inferno::codegen {
namespace {

// Caller-owned buffers (graph inputs and outputs) are assumed 16-byte aligned and checked in run();
// the arena and the weights are 256-byte aligned.
constexpr int64_t kCallerAlignment = 16;

// The operands of a GEMM in row-major terms: D[b] (M x N) = L[b] (M x K) @ R[b] (K x N) over
// `batch` matrices.
struct RowMajorGemm {
  int64_t m = 0, n = 0, k = 0;
  int64_t batch = 1;
  int64_t left_stride = 0, right_stride = 0, out_stride = 0;  // elements between batch matrices
  bool right_is_nk = false;  // R is stored transposed, [N, K] (linear's weight, gemm's trans_b)
  ir::ValueId left = ir::kNoValue, right = ir::kNoValue;
  double alpha = 1.0;
};

// One term added to the product: coefficient * the node's input `input`.
struct Addend {
  int32_t input = -1;
  double coefficient = 1.0;
};

// Where the addends and the activation go (the rules in emit_gemm.h).
struct EpiloguePlan {
  int32_t bias = -1;      // input of CUBLASLT_EPILOGUE_BIAS's vector
  int32_t c = -1;         // input read as cuBLASLt's C matrix...
  bool c_copied = false;  // ...from the output, after a broadcast copy into it
  double beta = 0.0;
  int32_t kernel_addend = -1;  // input the in-place kernel adds
  double kernel_coefficient = 1.0;
  bool lt_relu = false;           // CUBLASLT_EPILOGUE_RELU(_BIAS)
  std::string kernel_activation;  // an ir::kGemmActivation in the in-place kernel; "" none

  bool needs_kernel() const { return kernel_addend >= 0 || !kernel_activation.empty(); }
};

std::string activation_attr(const ir::Node& node) { return node.attrs.get_string("activation"); }

Status unsupported_gemm(const ir::Graph& graph, const ir::Node& node, const std::string& what) {
  return unsupported(std::string(ir::op_name(node.op)) + ": " + what, graph.node_name(node),
                     node.loc);
}

// Left-pads a batch shape with 1s to `rank` dims.
ir::Shape pad(const ir::Shape& shape, size_t rank) {
  ir::Shape out(rank - shape.size(), 1);
  out.insert(out.end(), shape.begin(), shape.end());
  return out;
}

// matmul and gemm: batch dims fold into M or become a strided batch.
Status plan_batched(const ir::Graph& graph, const ir::Node& node, bool trans_b, RowMajorGemm& g) {
  ir::Shape sa = graph.type(node.inputs[0]).shape, sb = graph.type(node.inputs[1]).shape;
  if (sa.size() == 1) sa.insert(sa.begin(), 1);
  if (sb.size() == 1) sb.push_back(1);
  g.left = node.inputs[0];
  g.right = node.inputs[1];
  g.right_is_nk = trans_b;
  g.m = sa[sa.size() - 2];
  g.k = sa.back();
  g.n = trans_b ? sb[sb.size() - 2] : sb.back();
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
    return unsupported_gemm(graph, node,
                            "batch dims " + ir::shape_to_string(batch_a) + " and " +
                                ir::shape_to_string(batch_b) +
                                " broadcast in a way a strided batched GEMM cannot express");
  }
  return Status::ok();
}

Status plan_operands(const ir::Graph& graph, const ir::Node& node, RowMajorGemm& g) {
  g.alpha = node.attrs.get_float("alpha");
  return plan_batched(graph, node, node.attrs.get_bool("trans_b"), g);
}

// The terms added to the product, in input order. A zero coefficient drops its term, as PyTorch's
// addmm ignores the bias (NaNs included) when beta == 0.
// (A norm_gemm's c and d follow the norm's parameters: ir/norm_gemm.h.)
std::vector<Addend> addends(const ir::Node& node) {
  std::vector<Addend> terms;
  int c = node.inputs.size() >= 3 ? 2 : -1, d = node.inputs.size() == 4 ? 3 : -1;
  if (node.op == ir::OpKind::kNormGemm) {
    const std::optional<ir::NormGemmInputs> p =
        ir::norm_gemm_inputs(node.attrs, node.inputs.size());
    INFERNO_CHECK(p.has_value(), "norm_gemm: inputs that do not fit its norm");
    c = p->c;
    d = p->d;
  }
  if (c >= 0) terms.push_back({c, node.attrs.get_float("beta")});
  if (d >= 0) terms.push_back({d, 1.0});
  std::erase_if(terms, [](const Addend& a) { return a.coefficient == 0.0; });
  return terms;
}

// A row vector of the output's N values, in the weights: what CUBLASLT_EPILOGUE_BIAS reads.
bool epilogue_bias(const ir::Graph& graph, ir::ValueId v, const ir::TensorType& out) {
  const ir::TensorType& type = graph.type(v);
  if (type.dtype == ir::DType::kF64 || type.rank() == 0 || out.rank() == 0) return false;
  const int64_t n = out.shape.back();
  return type.shape.back() == n && type.numel() == n &&
         graph.value(v).kind == ir::ValueKind::kConstant;
}

Expected<EpiloguePlan> plan_epilogue(const ir::Graph& graph, const ir::Node& node) {
  const ir::TensorType& out = graph.type(node.outputs[0]);
  const bool lt_epilogues = out.dtype != ir::DType::kF64;
  EpiloguePlan p;
  std::vector<Addend> left;
  for (const Addend& a : addends(node)) {
    const ir::ValueId v = node.inputs[static_cast<size_t>(a.input)];
    if (lt_epilogues && p.bias < 0 && a.coefficient == 1.0 && epilogue_bias(graph, v, out)) {
      p.bias = a.input;
    } else if (p.c < 0 && has_output_layout(graph.type(v), out)) {
      p.c = a.input;
      p.beta = a.coefficient;
    } else {
      left.push_back(a);
    }
  }
  for (const Addend& a : left) {
    if (p.c < 0) {
      p.c = a.input;
      p.c_copied = true;
      p.beta = a.coefficient;
    } else if (p.kernel_addend < 0) {
      p.kernel_addend = a.input;
      p.kernel_coefficient = a.coefficient;
    } else {
      return unsupported_gemm(graph, node,
                              "more addends than the C matrix and the epilogue kernel can take");
    }
  }
  const std::string activation = activation_attr(node);
  if (activation == "relu" && lt_epilogues && p.kernel_addend < 0) {
    p.lt_relu = true;
  } else if (ir::epilogue_activation(activation, ir::kGemmActivation)) {
    p.kernel_activation = activation;
  } else if (activation != "none") {
    return unsupported_gemm(graph, node,
                            "no lowering for activation '" + comment_text(activation, 32) + "'");
  }
  return p;
}

const char* epilogue_name(const EpiloguePlan& p) {
  if (p.bias >= 0) return p.lt_relu ? "CUBLASLT_EPILOGUE_RELU_BIAS" : "CUBLASLT_EPILOGUE_BIAS";
  return p.lt_relu ? "CUBLASLT_EPILOGUE_RELU" : "CUBLASLT_EPILOGUE_DEFAULT";
}

bool caller_buffer(const EmitContext& ctx, ir::ValueId v) {
  const StorageKind kind = ctx.plan.of(v).kind;
  return kind == StorageKind::kInput || kind == StorageKind::kOutput;
}

// run() returns an error before the launch when a caller buffer among `values` is not aligned to
// kCallerAlignment, which the kernels assume.
void check_caller_alignment(EmitContext& ctx, const ir::Node& node,
                            std::initializer_list<ir::ValueId> values) {
  std::set<ir::ValueId> checked;
  for (const ir::ValueId v : values) {
    if (!caller_buffer(ctx, v) || !checked.insert(v).second) continue;
    ctx.out.checks_alignment = true;
    ctx.out.run.line("if (misaligned(" + ctx.pointer(v) + ", " + std::to_string(kCallerAlignment) +
                     ")) return bad_alignment(" + ctx.label(node) + ", " +
                     c_string_literal("%" + ctx.graph.name(v)) + ", " +
                     std::to_string(kCallerAlignment) + ", error, error_size);");
  }
}

// The planned product as the GEMV path sees it.
GemvProduct gemv_product(const ir::Node& node, const RowMajorGemm& g) {
  GemvProduct p{g.left, g.right, g.m, g.n, g.k, g.batch, g.right_is_nk, g.alpha, {}, {}};
  for (const Addend& a : addends(node))
    p.terms.push_back({node.inputs[static_cast<size_t>(a.input)], a.coefficient});
  return p;
}

// A norm_gemm's normalization, from its attributes and inputs.
GemvNorm gemv_norm(const ir::Node& node, const ir::NormGemmInputs& inputs) {
  GemvNorm norm;
  norm.rms = node.attrs.get_string("norm") == "rms_norm";
  norm.weight = node.inputs[static_cast<size_t>(inputs.weight)];
  if (inputs.bias >= 0) norm.bias = node.inputs[static_cast<size_t>(inputs.bias)];
  norm.eps = node.attrs.get_float("eps");
  return norm;
}

// The alignment cuBLASLt may assume for an operand: its base's, reduced by the batch stride.
int64_t alignment(const EmitContext& ctx, ir::ValueId v, int64_t batch, int64_t stride_elements) {
  int64_t align = caller_buffer(ctx, v) ? kCallerAlignment : kBufferAlignment;
  if (batch > 1 && stride_elements > 0) {
    align = std::gcd(align, stride_elements * ir::dtype_size(ctx.graph.type(v).dtype));
  }
  return align;
}

std::string coefficient_text(double c) { return c == 1.0 ? "" : ir::format_attr_float(c) + " * "; }

// "epilogue: + %b (cuBLASLt bias), + 2.0 * %r (C matrix), relu (cuBLASLt)": the kGemms comment's
// second line; empty when the GEMM has no epilogue.
std::string epilogue_text(const EmitContext& ctx, const ir::Node& node, const EpiloguePlan& p,
                          const std::string& kernel) {
  auto value = [&](int32_t input) {
    return "%" + ctx.graph.name(node.inputs[static_cast<size_t>(input)]);
  };
  std::vector<std::string> parts;
  if (p.bias >= 0) parts.push_back("+ " + value(p.bias) + " (cuBLASLt bias)");
  if (p.c >= 0) {
    parts.push_back(
        "+ " + coefficient_text(p.beta) + value(p.c) +
        (p.c_copied ? " (broadcast-copied into the output, read as C)" : " (C matrix)"));
  }
  if (p.lt_relu) parts.push_back("relu (cuBLASLt)");
  if (p.needs_kernel()) {
    std::string what;
    if (p.kernel_addend >= 0)
      what = "+ " + coefficient_text(p.kernel_coefficient) + value(p.kernel_addend);
    if (!p.kernel_activation.empty()) what += (what.empty() ? "" : ", ") + p.kernel_activation;
    parts.push_back(what + " (in-place kernel " + kernel + ")");
  }
  std::string text;
  for (const std::string& part : parts) text += (text.empty() ? "epilogue: " : ", ") + part;
  return text;
}

// The in-place kernel after the GEMM: out = activation(out + coefficient * addend).
void emit_epilogue_kernel(EmitContext& ctx, const ir::Node& node, const EpiloguePlan& p,
                          const std::string& name) {
  const ir::ValueId out = node.outputs[0];
  const ir::TensorType& out_type = ctx.graph.type(out);
  const ir::DType dtype = out_type.dtype;
  const ComputeType compute = choose_compute_type({dtype}, dtype);
  const std::string ctype(compute_type_name(compute));
  const std::string storage(storage_type(dtype));
  GridKernel kernel;
  kernel.name = name;
  kernel.comment =
      ctx.describe(node) + "\nThe epilogue cuBLASLt does not do, in place on the GEMM's output.";
  kernel.params = storage + "* out";
  kernel.args = {{"out", ctx.pointer(out)}};
  kernel.numel = out_type.numel();
  kernel.label = ctx.label(node);
  std::string value = load_expression(dtype, compute, "out[i]");
  if (p.kernel_addend >= 0) {
    const ir::ValueId addend = node.inputs[static_cast<size_t>(p.kernel_addend)];
    const ir::TensorType& type = ctx.graph.type(addend);
    kernel.params += ", const " + std::string(storage_type(type.dtype)) + "* addend";
    kernel.args.push_back({"addend", ctx.pointer(addend)});
    std::string term = load_expression(
        type.dtype, compute,
        "addend[" + offset_expression(coalesce(broadcast_view(type.shape, out_type.shape)), "i") +
            "]");
    if (p.kernel_coefficient != 1.0) {
      term =
          (compute == ComputeType::kFloat ? float_literal(static_cast<float>(p.kernel_coefficient))
                                          : double_literal(p.kernel_coefficient)) +
          " * " + term;
    }
    value += " + " + term;
  }
  std::string result = "a";
  if (!p.kernel_activation.empty()) {
    // The activations are named as the elementwise ops they apply.
    const std::optional<ir::OpKind> op = ir::parse_op_name(p.kernel_activation);
    INFERNO_CHECK(op.has_value(), "gemm epilogue: unknown activation");
    const std::optional<std::string> expr = elementwise_expression(*op, {"a"}, compute);
    INFERNO_CHECK(expr.has_value(), "gemm epilogue: no expression for the activation");
    result = *expr;
    ctx.out.headers.insert("kernels/elementwise.cuh");
  }
  kernel.body.line("const " + ctype + " a = " + value + ";");
  kernel.body.line("out[i] = " + store_expression(dtype, compute, result) + ";");
  emit_grid_kernel(ctx, kernel);
}

// The input cuBLASLt reads as a separate C matrix (rule 2 of emit_gemm.h), if any: C is read at
// the output's own positions, so the output may take its bytes (C == D).
std::vector<int32_t> gemm_in_place_inputs(const ir::Graph& graph, const ir::Node& node) {
  const Expected<EpiloguePlan> p = plan_epilogue(graph, node);
  if (p && !p->c_copied && p->c >= 0) return {p->c};
  return {};
}

}  // namespace

Status emit_gemm(EmitContext& ctx, int32_t index) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(index)];
  const ir::ValueId out = node.outputs[0];
  const ir::TensorType& out_type = ctx.graph.type(out);
  const ir::DType dtype = out_type.dtype;
  if (!ir::is_floating(dtype)) {
    return ctx.unsupported_node(
        node, "integer GEMMs are not supported (" + std::string(ir::dtype_name(dtype)) + ")");
  }
  RowMajorGemm g;
  INFERNO_RETURN_IF_ERROR(plan_operands(ctx.graph, node, g));
  const GemvProduct product = gemv_product(node, g);
  const bool gemv = gemv_fits(ctx.graph, node, product);
  EpiloguePlan p;
  if (!gemv) {
    INFERNO_ASSIGN_OR_RETURN(p, plan_epilogue(ctx.graph, node));
  }
  if (g.batch > INT32_MAX) return ctx.unsupported_node(node, "more than 2^31 batched matrices");

  SourceWriter& run = ctx.out.run;
  run.line("// " + ctx.describe(node));
  if (out_type.numel() == 0) {
    run.line("// (no elements: nothing to compute)");
    return Status::ok();
  }
  if (g.k == 0) return ctx.unsupported_node(node, "an empty inner dimension (K = 0)");
  if (gemv) {  // decode-shaped: the GEMV kernel with its epilogue (emit_gemv.h)
    check_caller_alignment(ctx, node, {g.left, g.right});
    return emit_gemv(ctx, index, product);
  }

  const char* data_type = dtype == ir::DType::kF32    ? "CUDA_R_32F"
                          : dtype == ir::DType::kF16  ? "CUDA_R_16F"
                          : dtype == ir::DType::kBF16 ? "CUDA_R_16BF"
                                                      : "CUDA_R_64F";
  const bool f64 = dtype == ir::DType::kF64;
  const char* compute = f64 ? "CUBLAS_COMPUTE_64F"
                        : (dtype == ir::DType::kF32 && ctx.options.target.tf32())
                            ? "CUBLAS_COMPUTE_32F_FAST_TF32"
                            : "CUBLAS_COMPUTE_32F";
  auto input = [&](int32_t i) { return node.inputs[static_cast<size_t>(i)]; };
  const ir::ValueId c = p.c >= 0 && !p.c_copied ? input(p.c) : out;  // what cuBLASLt reads as C
  const std::string m = std::to_string(g.m), n = std::to_string(g.n), k = std::to_string(g.k);
  const int64_t align_a = alignment(ctx, g.right, g.batch, g.right_stride);
  const int64_t align_b = alignment(ctx, g.left, g.batch, g.left_stride);
  const int64_t align_c = alignment(ctx, c, g.batch, g.out_stride);
  const int64_t align_d = alignment(ctx, out, g.batch, g.out_stride);
  const int64_t bias_offset =
      p.bias >= 0 ? ctx.weights.offset.at(static_cast<size_t>(input(p.bias))) : -1;
  INFERNO_CHECK(p.bias < 0 || bias_offset >= 0,
                "gemm: an epilogue bias that is not in the weights");
  const std::string kernel = "k" + std::to_string(index) + "_" + std::string(ir::op_name(node.op)) +
                             "_epilogue_" + (p.kernel_addend >= 0 ? "add_" : "") +
                             (p.kernel_activation.empty() ? "" : p.kernel_activation + "_") +
                             std::string(dtype_tag(dtype)) + "_" + shape_tag(out_type.shape);

  // The kGemms entry, with comments saying what it computes in row-major terms, and how.
  std::string what = ctx.graph.type(g.left).to_string() + " @ " +
                     ctx.graph.type(g.right).to_string() + (g.right_is_nk ? "^T" : "");
  if (g.alpha != 1.0) what = ir::format_attr_float(g.alpha) + " * " + what;
  what += " -> " + out_type.to_string() + ": M " + m + ", N " + n + ", K " + k;
  if (g.batch > 1) what += ", " + std::to_string(g.batch) + " batches";
  const int32_t gemm = ctx.out.num_gemms++;
  SourceWriter& spec = ctx.out.gemm_specs;
  spec.line("// " + std::to_string(gemm) + ": %" + comment_text(ctx.graph.node_name(node)) + " = " +
            comment_text(what));
  const std::string epilogue = epilogue_text(ctx, node, p, kernel);
  if (!epilogue.empty()) spec.line("//    " + comment_text(epilogue, 400));
  spec.line("{" + ctx.label(node) + ", " + data_type + ", " + compute + ", " +
            (f64 ? "CUDA_R_64F" : "CUDA_R_32F") + ", " +
            (g.right_is_nk ? "CUBLAS_OP_T" : "CUBLAS_OP_N") + ",");
  spec.line(" /* A */ " + (g.right_is_nk ? k + ", " + n + ", " + k : n + ", " + k + ", " + n) +
            ", /* B */ " + k + ", " + m + ", " + k + ", /* D */ " + n + ", " + m + ", " + n + ",");
  spec.line(" /* batch */ " + std::to_string(g.batch) + ", " + std::to_string(g.right_stride) +
            ", " + std::to_string(g.left_stride) + ", " + std::to_string(g.out_stride) +
            ", /* epilogue */ " + epilogue_name(p) + ", /* bias */ " + std::to_string(bias_offset) +
            ",");
  spec.line(" /* alpha, beta */ " + double_literal(g.alpha) + ", " +
            double_literal(p.c >= 0 ? p.beta : 0.0) + ", /* alignment A, B, C, D */ " +
            std::to_string(align_a) + ", " + std::to_string(align_b) + ", " +
            std::to_string(align_c) + ", " + std::to_string(align_d) + "},");

  // run(): check caller buffers' alignment, copy a broadcast addend, multiply, finish in place.
  check_caller_alignment(ctx, node, {g.left, g.right, c, out});
  if (p.c_copied) {
    const ir::ValueId addend = input(p.c);
    const StridedView view = broadcast_view(ctx.graph.type(addend).shape, out_type.shape);
    const std::string name = "k" + std::to_string(index) + "_" + std::string(ir::op_name(node.op)) +
                             "_addend_" + std::string(dtype_tag(dtype)) + "_" +
                             shape_tag(out_type.shape);
    emit_copy(ctx, dtype, view, out_type.numel(), ctx.pointer(addend), ctx.pointer(out),
              ctx.label(node), name, ctx.describe(node) + ": the addend, broadcast");
  }
  run.line("MODEL_CHECK_CUBLAS(run_gemm(state->lt, kGemms[" + std::to_string(gemm) +
           "], state->gemms[" + std::to_string(gemm) + "], " + ctx.pointer(g.right) + ", " +
           ctx.pointer(g.left) + ", " + ctx.pointer(c) + ", " + ctx.pointer(out) +
           ", workspace, kWorkspaceBytes, stream), " + ctx.label(node) + ");");
  if (p.needs_kernel()) emit_epilogue_kernel(ctx, node, p, kernel);
  return Status::ok();
}

namespace {

// norm_gemm: the GEMV with x's rows normalized first (emit_gemv.h); fuse-norm-gemv makes it only
// where that path runs, so anything else is refused rather than run unfused.
Status emit_norm_gemm(EmitContext& ctx, int32_t index) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(index)];
  const std::optional<ir::NormGemmInputs> inputs =
      ir::norm_gemm_inputs(node.attrs, node.inputs.size());
  INFERNO_CHECK(inputs.has_value(), "norm_gemm: inputs that do not fit its norm");
  RowMajorGemm g;
  INFERNO_RETURN_IF_ERROR(plan_operands(ctx.graph, node, g));
  GemvProduct product = gemv_product(node, g);
  product.norm = gemv_norm(node, *inputs);
  const GemvNorm& norm = *product.norm;
  if (!gemv_fits(ctx.graph, node, product)) {
    return ctx.unsupported_node(
        node,
        "a norm folded into a product the GEMV does not run (norm_gemm needs a "
        "decode-shaped f32/f16/bf16 product with a [N, K] weight and x's rows within the "
        "GEMV's shared memory)");
  }
  ctx.out.run.line("// " + ctx.describe(node));
  check_caller_alignment(
      ctx, node,
      {g.left, g.right, norm.weight, norm.bias != ir::kNoValue ? norm.bias : norm.weight});
  return emit_gemv(ctx, index, product);
}

}  // namespace

std::optional<GemvProduct> planned_gemv(const ir::Graph& graph, int32_t index) {
  const ir::Node& node = graph.nodes()[static_cast<size_t>(index)];
  if (node.op != ir::OpKind::kGemm && node.op != ir::OpKind::kNormGemm) return std::nullopt;
  if (graph.type(node.outputs[0]).numel() == 0) return std::nullopt;
  RowMajorGemm g;
  if (!plan_operands(graph, node, g).is_ok() || g.k == 0) return std::nullopt;
  GemvProduct product = gemv_product(node, g);
  if (node.op == ir::OpKind::kNormGemm) {
    const std::optional<ir::NormGemmInputs> inputs =
        ir::norm_gemm_inputs(node.attrs, node.inputs.size());
    if (!inputs) return std::nullopt;
    product.norm = gemv_norm(node, *inputs);
  }
  if (!gemv_fits(graph, node, product)) return std::nullopt;
  return product;
}

std::vector<ir::ValueId> plan_gemv_prefetches(const ir::Graph& graph,
                                              const WeightsLayout& weights) {
  std::vector<int32_t> gemvs;  // nodes whose GEMV streams a stored weight, in run order
  std::vector<ir::ValueId> streamed(graph.nodes().size(), ir::kNoValue);
  for (int32_t i = 0; i < static_cast<int32_t>(graph.nodes().size()); ++i) {
    const std::optional<GemvProduct> product = planned_gemv(graph, i);
    const ir::ValueId w = product ? product->right : ir::kNoValue;
    if (w == ir::kNoValue || !weights.stored(w)) continue;
    gemvs.push_back(i);
    streamed[static_cast<size_t>(i)] = w;
  }
  std::vector<ir::ValueId> next(graph.nodes().size(), ir::kNoValue);
  for (size_t g = 0; g < gemvs.size(); ++g) {
    const ir::ValueId mine = streamed[static_cast<size_t>(gemvs[g])];
    const ir::ValueId after = streamed[static_cast<size_t>(gemvs[(g + 1) % gemvs.size()])];
    if (after != mine) next[static_cast<size_t>(gemvs[g])] = after;
  }
  return next;
}

void register_gemm_lowerings(LoweringTable& table) {
  table.add(ir::OpKind::kGemm, {emit_gemm, no_scratch, gemm_in_place_inputs});
  // Every block reads all of x (and the norm's parameters): the output takes no input's bytes.
  table.add(ir::OpKind::kNormGemm, {emit_norm_gemm, no_scratch, never_in_place});
}

}  // namespace inferno::codegen
