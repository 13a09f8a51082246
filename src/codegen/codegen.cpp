// generate(): weights layout, memory plan, one lowering per node, then model.cu assembled
// section by section (emit_abi.h has the host side, emit_*.h the per-node code).
#include "codegen/codegen.h"

#include "codegen/emit_abi.h"
#include "codegen/emit_attention.h"
#include "codegen/emit_context.h"
#include "codegen/emit_conv.h"
#include "codegen/emit_cumsum.h"
#include "codegen/emit_extrema.h"
#include "codegen/emit_fused.h"
#include "codegen/emit_gemm.h"
#include "codegen/emit_join.h"
#include "codegen/emit_kernel_calls.h"
#include "codegen/emit_norm.h"
#include "codegen/emit_pool.h"
#include "codegen/emit_resize.h"
#include "codegen/lowering.h"
#include "codegen/memory_plan.h"
#include "codegen/views.h"
#include "codegen/weights.h"
#include "ir/attr_schema.h"

namespace inferno::codegen {
namespace {

constexpr int64_t kRuntimeMaxRank = 16;  // the runtime's limit on descriptor ranks

Status check_options(const CodegenOptions& options) {
  if (options.sm_archs.empty()) return invalid_input("codegen: no SM architecture to build for");
  for (const int arch : options.sm_archs) {
    if (arch < 10 || arch > 999)
      return invalid_input("codegen: bad SM architecture " + std::to_string(arch));
  }
  const std::string& file = options.external_weights_file;
  if (!file.empty()) {
    bool plain = file != "." && file != ".." && file.size() <= 255;
    for (const char c : file) plain &= c > 0x20 && c < 0x7f && c != '/' && c != '\\';
    if (!plain)
      return invalid_input("external weights file '" + file + "' must be a plain file name");
  }
  return Status::ok();
}

Status check_interface(const ir::Graph& graph) {
  for (const auto* list : {&graph.inputs(), &graph.outputs()}) {
    for (const ir::ValueId v : *list) {
      if (graph.type(v).rank() > kRuntimeMaxRank) {
        return unsupported(
            "%" + graph.name(v) + " has rank " + std::to_string(graph.type(v).rank()) +
            "; model inputs and outputs have at most " + std::to_string(kRuntimeMaxRank) + " dims");
      }
    }
  }
  return Status::ok();
}

}  // namespace

const LoweringTable& lowering_table() {
  static const LoweringTable table = [] {
    LoweringTable t;
    register_gemm_lowerings(t);
    register_kernel_call_lowerings(t);
    register_elementwise_lowerings(t);
    register_conv_lowerings(t);
    register_pool_lowerings(t);
    register_join_lowerings(t);
    register_resize_lowerings(t);
    register_norm_lowerings(t);
    register_attention_lowerings(t);
    register_cumsum_lowerings(t);
    register_extrema_lowerings(t);
    return t;
  }();
  return table;
}

bool has_lowering(ir::OpKind op) {
  return lowering_table().lower[static_cast<size_t>(op)] != nullptr;
}

namespace {

// One node's code, through the lowering its op family registered (check_nodes made sure there
// is one).
Status emit_node(EmitContext& ctx, int32_t index) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(index)];
  return lowering_table().lower[static_cast<size_t>(node.op)](ctx, index);
}

std::string section(const std::string& title) {
  std::string line = "// ---- " + title + " ";
  if (line.size() < 100) line.append(100 - line.size(), '-');
  return line + "\n";
}

// What each node needs from the memory plan: its scratch, and the inputs it may overwrite.
// Layout nodes that are views (views.h) share their input's bytes.
MemoryPlanOptions plan_options(const ir::Graph& graph, const ViewPlan& views) {
  MemoryPlanOptions options;
  for (int32_t n = 0; n < static_cast<int32_t>(graph.nodes().size()); ++n)
    options.aliases_input.push_back(views.aliases_input(n));
  for (const ir::Node& node : graph.nodes()) {
    options.scratch_bytes.push_back(scratch_bytes(graph, node));
    std::vector<int32_t> aligned = elementwise_aligned_inputs(graph, node);
    if (node.op == ir::OpKind::kGemm) {
      const int32_t c = gemm_c_matrix_input(graph, node);
      if (c >= 0) aligned.push_back(c);
    }
    options.aligned_inputs.push_back(std::move(aligned));
  }
  return options;
}

struct Generated {
  GeneratedModel model;
  MemoryPlan plan;  // as model.cu uses it, workspace included
};

// Before anything reads a node: each has one output, attributes that fit its op's schema, and
// an op codegen lowers (a graph that was not legalized names the pass that is missing).
Status check_nodes(const ir::Graph& graph) {
  for (const ir::Node& node : graph.nodes()) {
    const std::string name = graph.node_name(node);
    const std::string op(ir::op_name(node.op));
    if (Status s = ir::check_attributes(node.op, node.attrs); !s) {
      return Status(s.code(), s.message(), name, node.loc);
    }
    if (node.outputs.size() != 1) {
      return unsupported(op + ": ops with several outputs have no lowering", name, node.loc);
    }
    if (!has_lowering(node.op)) {
      const std::string_view note = ir::op_backend_note(node.op);
      return unsupported(
          op + ": no lowering" +
              (note.empty() ? "" : " (" + std::string(note) + ": run the legalize pass first)"),
          name, node.loc);
    }
  }
  return Status::ok();
}

Expected<Generated> generate_with_plan(const ir::Graph& graph, const CodegenOptions& options) {
  INFERNO_RETURN_IF_ERROR(check_options(options));
  INFERNO_RETURN_IF_ERROR(check_interface(graph));
  INFERNO_RETURN_IF_ERROR(check_nodes(graph));
  INFERNO_ASSIGN_OR_RETURN(WeightsLayout weights, layout_weights(graph));
  const ViewPlan views = plan_views(graph);
  MemoryPlan plan = plan_memory(graph, plan_options(graph, views));

  ModelSections sections;
  EmitContext ctx(graph, plan, views, weights, options, sections);
  for (int32_t i = 0; i < static_cast<int32_t>(graph.nodes().size()); ++i) {
    if (i > 0) sections.run.line("");
    INFERNO_RETURN_IF_ERROR(emit_node(ctx, i));
  }
  if (!plan.output_copies.empty()) sections.run.line("");
  emit_output_copies(ctx);
  if (sections.num_gemms > 0) {  // the workspace goes after the planned buffers
    plan.workspace_bytes = kGemmWorkspaceBytes;
    plan.arena_bytes = plan.workspace_offset + kGemmWorkspaceBytes;
  }

  std::string cu = emit_file_header(ctx) + "\n" + emit_includes(ctx) + "\n" +
                   emit_weights_embedding(ctx) +
                   "\nnamespace {\n\nusing namespace inferno::model_support;  // "
                   "kernels/model_session.cuh, gemm_session.cuh\n\n" +
                   emit_size_constants(ctx) + "\n";
  if (!sections.kernels.empty())
    cu += section("Kernels, in node order") + "\n" + sections.kernels.text();
  cu += section("The session") + "\n" + emit_state(ctx) + "\n" + emit_session_create(ctx) + "\n" +
        emit_run(ctx, sections.run.text()) + "\n" + emit_session_destroy(ctx) + "\n" +
        section("The model") + "\n" + emit_descriptors(ctx) + "\n}  // namespace\n\n" +
        emit_entry_point();

  Generated out;
  out.model.cuda_source = std::move(cu);
  out.model.weights = std::move(weights.blob);
  out.model.weights_checksum = weights.checksum;
  out.model.exports_map = "{\n  global:\n    inferno_model_describe;\n  local:\n    *;\n};\n";
  out.plan = std::move(plan);
  return out;
}

}  // namespace

Expected<GeneratedModel> generate(const ir::Graph& graph, const CodegenOptions& options) {
  INFERNO_ASSIGN_OR_RETURN(Generated generated, generate_with_plan(graph, options));
  return std::move(generated.model);
}

Expected<std::string> describe_memory_plan(const ir::Graph& graph, const CodegenOptions& options) {
  INFERNO_ASSIGN_OR_RETURN(const Generated generated, generate_with_plan(graph, options));
  std::string text = "memory plan: " + std::to_string(graph.nodes().size()) + " nodes\n";
  for (size_t n = 0; n < graph.nodes().size(); ++n) {
    const ir::Node& node = graph.nodes()[n];
    text += "node " + std::to_string(n) + ": %" + graph.node_name(node) + " = " +
            std::string(ir::op_name(node.op)) + "\n";
  }
  return text + memory_plan_to_string(graph, generated.plan);
}

}  // namespace inferno::codegen
