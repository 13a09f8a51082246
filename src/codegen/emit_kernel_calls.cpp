#include "codegen/emit_kernel_calls.h"

#include <algorithm>
#include <numeric>

#include "codegen/elementwise_table.h"
#include "codegen/emit_grid_kernel.h"
#include "support/check.h"

namespace inferno::codegen {
namespace {

constexpr int64_t kMaxCopyRank = 8;            // inferno::kernels::kMaxRank
constexpr size_t kMaxCopySpansPerLaunch = 32;  // inferno::kernels::kMaxCopySpans

std::string int_list(const std::vector<int64_t>& values) {
  std::string text = "{";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "}";
}

// A sum or mean as [outer, reduce, inner], with the permutation that makes the reduced dims
// adjacent when they are not (empty when no copy is needed).
struct ReductionShape {
  int64_t outer = 1, reduce = 1, inner = 1;
  std::vector<int64_t> permutation;
};

ReductionShape reduction_shape(const ir::Shape& shape, const ir::IntList& dims) {
  auto reduced = [&](size_t d) {
    return dims.empty() ||
           std::find(dims.begin(), dims.end(), static_cast<int64_t>(d)) != dims.end();
  };
  // Size-1 dims sit anywhere; the others must read kept..., reduced..., kept... in that order.
  int phase = 0;  // 0: before the reduced run, 1: inside it, 2: after it
  bool adjacent = true;
  ReductionShape r;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    if (reduced(d)) {
      if (phase == 2) adjacent = false;
      phase = 1;
    } else if (phase == 1) {
      phase = 2;
    }
  }
  if (adjacent) {
    phase = 0;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] != 1 && reduced(d))
        phase = 1;
      else if (shape[d] != 1 && phase == 1)
        phase = 2;
      (shape[d] == 1 ? r.reduce
       : reduced(d)  ? r.reduce
       : phase == 0  ? r.outer
                     : r.inner) *= shape[d];
    }
    return r;
  }
  for (size_t d = 0; d < shape.size(); ++d) {
    if (!reduced(d)) {
      r.permutation.push_back(static_cast<int64_t>(d));
      r.outer *= shape[d];
    }
  }
  for (size_t d = 0; d < shape.size(); ++d) {
    if (reduced(d)) {
      r.permutation.push_back(static_cast<int64_t>(d));
      r.reduce *= shape[d];
    }
  }
  return r;
}

}  // namespace

void emit_copy(EmitContext& ctx, ir::DType dtype, const StridedView& view, int64_t numel,
               const std::string& in, const std::string& out, const std::string& label,
               const std::string& kernel_name, const std::string& comment) {
  StridedView c = coalesce(view);
  if (c.rank() > kMaxCopyRank) {
    emit_gather_kernel(ctx, kernel_name, comment, dtype, c, numel, in, out, label);
    return;
  }
  if (c.shape.empty()) c = {{1}, {1}};  // one element
  ctx.out.headers.insert("kernels/copy.cuh");
  SourceWriter& run = ctx.out.run;
  run.open("");
  run.line("const int64_t shape[] = " + int_list(c.shape) + ";");
  run.line("const int64_t strides[] = " + int_list(c.strides) + ";");
  run.line("MODEL_CHECK_CUDA(inferno::kernels::strided_copy<" + std::string(storage_type(dtype)) +
           ">(" +
           named_args({{"in", in},
                       {"out", out},
                       {"rank", std::to_string(c.rank())},
                       {"out_shape", "shape"},
                       {"in_strides", "strides"},
                       {"numel", std::to_string(numel)}}) +
           ", stream), " + label + ");");
  run.close();
}

Status emit_layout(EmitContext& ctx, int32_t index) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(index)];
  const ir::ValueId in = node.inputs[0], out = node.outputs[0];
  const ir::TensorType& in_type = ctx.graph.type(in);
  const ir::TensorType& out_type = ctx.graph.type(out);
  ctx.out.run.line("// " + ctx.describe(node));
  switch (ctx.views.lowering.at(static_cast<size_t>(index))) {
    case LayoutLowering::kVirtual:
      ctx.out.run.line("// (a view of %" + ctx.graph.name(in) +
                       " that its readers read in place: nothing to copy)");
      return Status::ok();
    case LayoutLowering::kWrittenByProducer:
      ctx.out.run.line("// (written in this layout by the producer of %" + ctx.graph.name(in) +
                       ": nothing to copy)");
      return Status::ok();
    case LayoutLowering::kAlias:
    case LayoutLowering::kMaterialized:
      break;
  }
  if (out_type.numel() == 0) {
    ctx.out.run.line("// (no elements: nothing to copy)");
    return Status::ok();
  }
  StridedView view;
  std::string source = ctx.pointer(in);
  switch (node.op) {
    case ir::OpKind::kPermute:
      view = permute_view(in_type.shape, node.attrs.get_ints("dims"));
      break;
    case ir::OpKind::kExpand:
      view = broadcast_view(in_type.shape, out_type.shape);
      break;
    case ir::OpKind::kSlice: {
      view = slice_view(in_type.shape, out_type.shape, node.attrs.get_ints("steps"));
      const int64_t offset = slice_offset(in_type.shape, node.attrs.get_ints("starts"));
      if (offset != 0) source = "(" + source + " + " + std::to_string(offset) + ")";
      break;
    }
    default:
      INFERNO_CHECK(false, "emit_layout: not a copying layout op");
      break;
  }
  const std::string name = "k" + std::to_string(index) + "_" + std::string(ir::op_name(node.op)) +
                           "_" + std::string(dtype_tag(out_type.dtype)) + "_" +
                           shape_tag(out_type.shape);
  emit_copy(ctx, out_type.dtype, view, out_type.numel(), source, ctx.pointer(out), ctx.label(node),
            name, ctx.describe(node));
  return Status::ok();
}

namespace {

// A sum or mean over dims that are not adjacent permutes its input into scratch first.
int64_t reduction_scratch_bytes(const ir::Graph& graph, const ir::Node& node) {
  const ir::TensorType& in = graph.type(node.inputs[0]);
  if (!ir::is_floating(in.dtype) || in.numel() == 0) return 0;
  return reduction_shape(in.shape, node.attrs.get_ints("dims")).permutation.empty()
             ? 0
             : in.size_bytes();
}

}  // namespace

Status emit_reduction(EmitContext& ctx, int32_t index) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(index)];
  const ir::ValueId in = node.inputs[0], out = node.outputs[0];
  const ir::TensorType& in_type = ctx.graph.type(in);
  const ir::TensorType& out_type = ctx.graph.type(out);
  if (!ir::is_floating(in_type.dtype)) {
    return ctx.unsupported_node(
        node, "integer and bool reductions are not supported (" + in_type.to_string() + ")");
  }
  const ReductionShape r = reduction_shape(in_type.shape, node.attrs.get_ints("dims"));
  const bool mean = node.op == ir::OpKind::kMean;
  SourceWriter& run = ctx.out.run;
  run.line("// " + ctx.describe(node));
  if (out_type.numel() == 0) {
    run.line("// (no elements: nothing to compute)");
    return Status::ok();
  }
  ctx.out.headers.insert("kernels/reduction.cuh");
  const std::string type(storage_type(in_type.dtype));
  std::string source = ctx.pointer(in);
  if (!r.permutation.empty()) {
    run.line("// the reduced dims are not adjacent: permute them last, into scratch");
    source = "reinterpret_cast<" + type + "*>(" + ctx.scratch(index) + ")";
    const std::string name = "k" + std::to_string(index) + "_" + std::string(ir::op_name(node.op)) +
                             "_permute_" + std::string(dtype_tag(in_type.dtype)) + "_" +
                             shape_tag(in_type.shape);
    emit_copy(ctx, in_type.dtype, permute_view(in_type.shape, r.permutation), in_type.numel(),
              ctx.pointer(in), source, ctx.label(node), name, ctx.describe(node));
  }
  // A mean over no elements is 0 * inf = NaN, as in PyTorch.
  const std::string scale =
      !mean           ? "1.0f"
      : r.reduce == 0 ? "__builtin_inff()"
                      : float_literal(static_cast<float>(1.0 / static_cast<double>(r.reduce)));
  run.line("MODEL_CHECK_CUDA(inferno::kernels::reduce_sum<" + type + ">(" +
           named_args({{"in", source},
                       {"out", ctx.pointer(out)},
                       {"outer", std::to_string(r.outer)},
                       {"reduce", std::to_string(r.reduce)},
                       {"inner", std::to_string(r.inner)},
                       {"scale", scale}}) +
           ", stream), " + ctx.label(node) + ");");
  return Status::ok();
}

Status emit_softmax(EmitContext& ctx, int32_t index) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(index)];
  const ir::ValueId in = node.inputs[0], out = node.outputs[0];
  const ir::TensorType& type = ctx.graph.type(in);
  if (!ir::is_floating(type.dtype))
    return ctx.unsupported_node(node, "expects a floating-point input");
  const auto [outer, n, inner] = lines_along(type.shape, node.attrs.get_int("dim"));
  SourceWriter& run = ctx.out.run;
  run.line("// " + ctx.describe(node));
  if (type.numel() == 0) {
    run.line("// (no elements: nothing to compute)");
    return Status::ok();
  }
  ctx.out.headers.insert("kernels/softmax.cuh");
  run.line("MODEL_CHECK_CUDA(inferno::kernels::softmax<" + std::string(storage_type(type.dtype)) +
           ">(" +
           named_args({{"in", ctx.pointer(in)},
                       {"out", ctx.pointer(out)},
                       {"outer", std::to_string(outer)},
                       {"dim", std::to_string(n)},
                       {"inner", std::to_string(inner)},
                       {"log", node.op == ir::OpKind::kLogSoftmax ? "true" : "false"}}) +
           ", stream), " + ctx.label(node) + ");");
  return Status::ok();
}

void emit_output_copies(EmitContext& ctx) {
  // Every copy goes into one launch of copy_spans (kMaxCopySpans a launch): an LLM's step has a
  // counter state per layer, and a launch per copy cost more than the copies.
  const auto user_outputs = static_cast<int32_t>(ctx.graph.num_user_outputs());
  std::vector<std::string> spans;
  auto flush = [&] {
    if (spans.empty()) return;
    ctx.out.headers.insert("kernels/copy_spans.cuh");
    SourceWriter& run = ctx.out.run;
    run.open("");
    run.line("const inferno::kernels::CopySpan spans[] = {");
    for (const std::string& span : spans) run.line("    " + span + ",");
    run.line("};");
    run.line("MODEL_CHECK_CUDA(inferno::kernels::copy_spans(spans, " +
             std::to_string(spans.size()) + ", stream), \"the outputs' and states' copies\");");
    run.close();
    spans.clear();
  };
  for (const OutputCopy& copy : ctx.plan.output_copies) {
    const ir::TensorType& type = ctx.graph.type(copy.value);
    const bool state = copy.output >= user_outputs;  // a state's update, into its buffer
    const std::string j = std::to_string(state ? copy.output - user_outputs : copy.output);
    const std::string where = (state ? "state " : "output ") + j;
    const std::string what =
        where + " is %" + ctx.graph.name(copy.value) + ", which no node writes there: copy it";
    ctx.out.run.line("// " + comment_text(what));
    if (type.numel() == 0) continue;
    spans.push_back("{" + ctx.pointer(copy.value) + ", args->" + (state ? "states[" : "outputs[") +
                    j + "], " + std::to_string(type.size_bytes()) + "}");
    if (spans.size() == kMaxCopySpansPerLaunch) flush();
  }
  flush();
}

Status emit_view(EmitContext& ctx, int32_t index) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(index)];
  ctx.out.run.line("// " + ctx.describe(node));
  if (ctx.views.lowering.at(static_cast<size_t>(index)) == LayoutLowering::kVirtual) {
    ctx.out.run.line("// (a view of %" + ctx.graph.name(node.inputs[0]) +
                     " that its readers read in place: nothing to copy)");
    return Status::ok();
  }
  ctx.out.run.line("// (a view: the same bytes as %" + ctx.graph.name(node.inputs[0]) + ")");
  return Status::ok();
}

void register_kernel_call_lowerings(LoweringTable& table) {
  table.add(ir::OpKind::kReshape, {emit_view, no_scratch, never_in_place});
  for (const ir::OpKind op : {ir::OpKind::kPermute, ir::OpKind::kExpand, ir::OpKind::kSlice})
    table.add(op, {emit_layout, no_scratch, never_in_place});
  for (const ir::OpKind op : {ir::OpKind::kSum, ir::OpKind::kMean})
    table.add(op, {emit_reduction, reduction_scratch_bytes, never_in_place});
  for (const ir::OpKind op : {ir::OpKind::kSoftmax, ir::OpKind::kLogSoftmax})
    table.add(op, {emit_softmax, no_scratch, never_in_place});
}

}  // namespace inferno::codegen
