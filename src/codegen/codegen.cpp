// generate(): weights layout, memory plan, one lowering per node, then model.cu assembled
// section by section (emit_abi.h has the host side, emit_*.h the per-node code).
#include "codegen/codegen.h"

#include <algorithm>

#include "codegen/attention_step.h"
#include "codegen/emit_abi.h"
#include "codegen/emit_attention.h"
#include "codegen/emit_context.h"
#include "codegen/emit_conv.h"
#include "codegen/emit_corruption.h"
#include "codegen/emit_cumsum.h"
#include "codegen/emit_extrema.h"
#include "codegen/emit_fused.h"
#include "codegen/emit_gemm.h"
#include "codegen/emit_join.h"
#include "codegen/emit_kernel_calls.h"
#include "codegen/emit_norm.h"
#include "codegen/emit_pool.h"
#include "codegen/emit_profile.h"
#include "codegen/emit_resize.h"
#include "codegen/emit_rotary.h"
#include "codegen/launch_groups.h"
#include "codegen/lowering.h"
#include "codegen/memory_plan.h"
#include "codegen/profile_plan.h"
#include "codegen/strided_view.h"
#include "codegen/views.h"
#include "codegen/weights.h"
#include "ir/attr_schema.h"
#include "support/check.h"

namespace inferno::codegen {
namespace {

constexpr int64_t kRuntimeMaxRank = 16;  // the runtime's limit on descriptor ranks

Status check_options(const CodegenOptions& options) {
  if (options.target.sm_archs.empty())
    return invalid_input("codegen: no SM architecture to build for");
  for (const int arch : options.target.sm_archs) {
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
    register_rotary_lowerings(t);
    register_cumsum_lowerings(t);
    register_extrema_lowerings(t);
    return t;
  }();
  return table;
}

void LoweringTable::add(ir::OpKind op, const Lowering& lowering) {
  INFERNO_CHECK(lowering.lower && lowering.scratch_bytes && lowering.in_place_inputs,
                std::string(ir::op_name(op)) + ": a lowering states its scratch and in-place rule");
  entries[static_cast<size_t>(op)] = lowering;
}

int64_t no_scratch(const ir::Graph& /*graph*/, const ir::Node& /*node*/) { return 0; }

std::vector<int32_t> never_in_place(const ir::Graph& /*graph*/, const ir::Node& /*node*/) {
  return {};
}

bool has_lowering(ir::OpKind op) { return lowering_table()[op].lower != nullptr; }

namespace {

// One node's code, through the lowering its op family registered (check_nodes made sure there
// is one).
Status emit_node(EmitContext& ctx, int32_t index) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(index)];
  if (const int32_t owner = ctx.attention_step_owner_of(index); owner >= 0) {
    ctx.out.run.line("// " + ctx.describe(node));
    ctx.out.run.line(
        "// (done by the attention kernel of %" +
        comment_text(ctx.graph.name(ctx.graph.nodes()[static_cast<size_t>(owner)].outputs[0]), 60) +
        ", codegen/attention_step.h)");
    return Status::ok();
  }
  return lowering_table()[node.op].lower(ctx, index);
}

std::string section(const std::string& title) {
  std::string line = "// ---- " + title + " ";
  if (line.size() < 100) line.append(100 - line.size(), '-');
  return line + "\n";
}

// What each node needs from the memory plan, as its lowering states it: its scratch, and the
// inputs it may overwrite. Layout nodes that are views (views.h) share their input's bytes.
MemoryPlanOptions plan_options(const ir::Graph& graph, const ViewPlan& views) {
  MemoryPlanOptions options;
  for (int32_t n = 0; n < static_cast<int32_t>(graph.nodes().size()); ++n)
    options.aliases_input.push_back(views.aliases_input(n));
  for (const ir::Node& node : graph.nodes()) {
    const Lowering& lowering = lowering_table()[node.op];
    options.scratch_bytes.push_back(lowering.scratch_bytes(graph, node));
    // An input read through a view that is not its source's bytes in order (views.h) cannot be
    // written over: the output would overwrite elements other threads have yet to read.
    std::vector<int32_t> aligned = lowering.in_place_inputs(graph, node);
    std::erase_if(aligned, [&](int32_t position) {
      const ValueView view = resolve_view(graph, views, node.inputs[static_cast<size_t>(position)]);
      return view.offset != 0 || !is_contiguous(coalesce(view.view));
    });
    options.aligned_inputs.push_back(std::move(aligned));
  }
  return options;
}

struct Generated {
  GeneratedModel model;
  MemoryPlan plan;                  // as model.cu uses it, workspace included
  std::vector<KernelCost> profile;  // the model's steps (profile_plan.h)
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

// Variants share the state: the same states, in order, with the same types and initial values.
Status check_same_state(const std::vector<const ir::Graph*>& graphs) {
  const ir::Graph& first = *graphs.front();
  for (const ir::Graph* graph : graphs) {
    bool same = graph->num_states() == first.num_states();
    for (size_t i = 0; same && i < first.num_states(); ++i) {
      const auto &a = first.state(i).initial, &b = graph->state(i).initial;
      same = graph->type(graph->state_value(i)) == first.type(first.state_value(i)) &&
             graph->name(graph->state_value(i)) == first.name(first.state_value(i)) &&
             (a == nullptr) == (b == nullptr) && (a == nullptr || a->data == b->data);
    }
    if (!same) return invalid_input("codegen: the variants of a model must have the same state");
  }
  return Status::ok();
}

// One variant's code, from its size constants to its descriptors; its plan; what it includes.
struct VariantCode {
  std::string text;
  RunCode run;  // its parts go around the anonymous namespace (emit_abi.h)
  MemoryPlan plan;
  ModelSections sections;
  std::vector<KernelCost> profile;  // its steps, in launch order (profile_plan.h)
};

// The step of the statements run() gained since `begin` (profile_plan.h), if they launch
// anything: recorded, and its statements put between the profiler's hooks (MODEL_PROFILE_STEP,
// kernels/model_support.cuh).
void add_step(VariantCode& code, const ir::Graph& graph, int32_t node, size_t begin,
              const CodegenOptions& options) {
  SourceWriter& run = code.sections.run;
  const std::string_view block = std::string_view(run.text()).substr(begin);
  std::optional<KernelCost> step = make_step(graph, node, block, options.target);
  if (!step) return;
  const std::string index = std::to_string(code.profile.size());
  run.insert_line(begin, "MODEL_PROFILE_STEP(" + index + ", 0);");
  run.line("MODEL_PROFILE_STEP(" + index + ", 1);");
  code.profile.push_back(std::move(*step));
}

// A node's kernel text and the step that launches it (-1: none).
struct KernelChunk {
  size_t begin = 0, end = 0;
  int32_t step = -1;
  bool shared = false;  // file-scope functors, which later nodes reuse by name
};

// The kernels section, each node's kernels under the `#if MODEL_PART_HERE(k)` of the part of
// run_steps() that launches them when there are parts, so that an object compiles only its own.
std::string kernels_by_part(const std::string& text, const std::vector<KernelChunk>& chunks,
                            int32_t num_parts, int32_t first_part) {
  if (num_parts == 0) return text;
  std::string out;
  int32_t open = -1;  // the part whose #if is open
  auto close = [&] {
    if (open >= 0) out += "#endif\n";
    open = -1;
  };
  size_t at = 0;
  for (const KernelChunk& chunk : chunks) {
    if (chunk.begin == chunk.end) continue;
    const int32_t part =
        chunk.shared || chunk.step < 0 ? -1 : first_part + chunk.step / kStepsPerPart;
    if (chunk.begin > at || part != open) close();
    out += text.substr(at, chunk.begin - at);  // nothing unless a chunk went unrecorded
    if (part >= 0 && part != open) {
      out += "#if MODEL_PART_HERE(" + std::to_string(part) + ")\n";
      open = part;
    }
    out += text.substr(chunk.begin, chunk.end - chunk.begin);
    at = chunk.end;
  }
  close();
  return out + text.substr(at);
}

Expected<VariantCode> generate_variant(const ir::Graph& graph, const WeightsLayout& weights,
                                       const CodegenOptions& options, int32_t num_variants,
                                       int32_t first_part, const std::string& ns) {
  VariantCode code;
  const ViewPlan views = plan_views(graph);
  MemoryPlanOptions plan_with = plan_options(graph, views);
  code.plan = plan_memory(graph, plan_with);
  // Attention steps read their rotaries' and cache writes' operands at the attention: planned
  // again with those kept alive until then, and checked again on that plan.
  std::vector<AttentionStep> attention_steps =
      plan_attention_steps(graph, views, code.plan, options.attention_steps);
  if (std::any_of(attention_steps.begin(), attention_steps.end(),
                  [](const AttentionStep& s) { return s.k_write >= 0; })) {
    plan_with.extra_reads = attention_step_reads(graph, attention_steps);
    code.plan = plan_memory(graph, plan_with);
    attention_steps = plan_attention_steps(graph, views, code.plan, options.attention_steps);
  }
  MemoryPlan& plan = code.plan;
  ModelSections& sections = code.sections;
  EmitContext ctx(graph, plan, views, weights, options, sections);
  ctx.num_variants = num_variants;
  ctx.gemv_prefetch = plan_gemv_prefetches(graph, weights);
  ctx.attention_step_owner = attention_step_owners(attention_steps);
  ctx.attention_steps = std::move(attention_steps);
  int32_t corrupted = -1;
  if (!options.corrupt_node.empty()) {
    INFERNO_ASSIGN_OR_RETURN(corrupted, find_corrupted_node(graph, views, options.corrupt_node));
  }
  std::vector<KernelChunk> chunks;
  // The kernels written since `chunk` was begun, and the step added since (`steps` before).
  const auto finish = [&](KernelChunk chunk, size_t functors, size_t steps) {
    chunk.end = sections.kernels.text().size();
    chunk.shared = sections.functors.size() != functors;
    if (code.profile.size() != steps) chunk.step = static_cast<int32_t>(steps);
    chunks.push_back(chunk);
  };
  ctx.launch_group_end = options.launch_groups ? plan_launch_groups(ctx, corrupted)
                                               : std::vector<int32_t>(graph.nodes().size(), -1);
  for (int32_t i = 0; i < static_cast<int32_t>(graph.nodes().size()); ++i) {
    if (i > 0) sections.run.line("");
    const KernelChunk chunk{sections.kernels.text().size(), 0, -1, false};
    const size_t functors = sections.functors.size(), steps = code.profile.size();
    const size_t begin = sections.run.text().size();
    ctx.current_node = i;
    INFERNO_RETURN_IF_ERROR(emit_node(ctx, i));
    ctx.current_node = -1;
    std::vector<std::pair<int32_t, std::string>> grouped;  // a launch group's members, if any
    if (ctx.launch_group_end[static_cast<size_t>(i)] == i) grouped = emit_launch_group(ctx, i);
    add_step(code, graph, i, begin, options);
    if (code.profile.size() != steps) describe_launch_group(code.profile.back(), graph, grouped);
    if (i == corrupted) emit_corruption(ctx, i);
    finish(chunk, functors, steps);
  }
  if (!plan.output_copies.empty()) sections.run.line("");
  const KernelChunk copies{sections.kernels.text().size(), 0, -1, false};
  const size_t functors = sections.functors.size(), steps = code.profile.size();
  const size_t copies_begin = sections.run.text().size();
  emit_output_copies(ctx);
  add_step(code, graph, -1, copies_begin, options);
  finish(copies, functors, steps);
  if (!code.profile.empty() && code.profile.back().node == -1) {
    for (const OutputCopy& copy : plan.output_copies) {  // each reads and writes its value
      code.profile.back().work.bytes_read += graph.type(copy.value).size_bytes();
      code.profile.back().work.bytes_written += graph.type(copy.value).size_bytes();
    }
  }
  if (sections.num_gemms > 0) {  // the workspace goes after the planned buffers
    plan.workspace_bytes = kGemmWorkspaceBytes;
    plan.arena_bytes = plan.workspace_offset + kGemmWorkspaceBytes;
  }
  code.run = emit_run(ctx, sections.run.text(), first_part, ns);
  code.text = emit_size_constants(ctx) + "\n";
  if (!sections.kernels.empty()) {
    code.text += section("Kernels, in node order") + "\n" +
                 kernels_by_part(sections.kernels.text(), chunks, code.run.num_parts, first_part);
  }
  // With parts, what follows the state is the main object's alone (model_prelude.cuh).
  const bool parts = code.run.num_parts > 0;
  code.text += section("The session") + "\n" + emit_state(ctx) + "\n" +
               (parts ? "#if INFERNO_MODEL_MAIN\n" : "") + emit_session_functions(ctx) + "\n" +
               code.run.run + "\n" + section("The model") + "\n" + emit_descriptors(ctx) + "\n" +
               emit_profile(code.profile, num_variants) + (parts ? "#endif\n" : "");
  return code;
}

// The first graph is the model; the others are its variants (model_abi.h), each emitted in a
// namespace of its own (v1, v2, ...; the model in v0) around one weights blob and one kStates.
Expected<Generated> generate_with_plan(const std::vector<const ir::Graph*>& graphs,
                                       const CodegenOptions& options) {
  INFERNO_RETURN_IF_ERROR(check_options(options));
  if (graphs.empty()) return invalid_input("codegen: no graph");
  for (const ir::Graph* graph : graphs) {
    INFERNO_RETURN_IF_ERROR(check_interface(*graph));
    INFERNO_RETURN_IF_ERROR(check_nodes(*graph));
  }
  INFERNO_RETURN_IF_ERROR(check_same_state(graphs));
  INFERNO_ASSIGN_OR_RETURN(std::vector<WeightsLayout> weights, layout_weights(graphs));
  const auto num_variants = static_cast<int32_t>(graphs.size() - 1);
  std::vector<VariantCode> variants;
  ModelSections all;  // what the file includes: every variant's headers and GEMMs
  CodegenOptions variant_options = options;  // --corrupt-node: the model's own graph only
  variant_options.corrupt_node.clear();
  int32_t num_parts = 0;  // run_steps() parts so far, numbered across the variants
  for (size_t k = 0; k < graphs.size(); ++k) {
    const std::string ns = num_variants == 0 ? "" : "v" + std::to_string(k);
    INFERNO_ASSIGN_OR_RETURN(
        variants.emplace_back(),
        generate_variant(*graphs[k], weights[k], k == 0 ? options : variant_options,
                         k == 0 ? num_variants : 0, num_parts, ns));
    num_parts += variants.back().run.num_parts;
    all.num_gemms += variants.back().sections.num_gemms;
    all.headers.insert(variants.back().sections.headers.begin(),
                       variants.back().sections.headers.end());
  }
  const ir::Graph& model = *graphs.front();
  const ViewPlan views = plan_views(model);
  const EmitContext ctx(model, variants.front().plan, views, weights.front(), options, all);

  std::string declarations, parts;  // of run_steps()'s parts, around the anonymous namespace
  for (const VariantCode& variant : variants) {
    declarations += variant.run.declarations;
    parts += variant.run.parts;
  }
  std::string cu =
      emit_file_header(ctx) + "\n" + emit_includes(ctx) + "\n" + emit_weights_embedding(ctx) + "\n";
  if (num_parts > 0) {
    cu +=
        "// run_steps() in parts, defined after the anonymous namespace: the driver may compile\n"
        "// them into several objects at once (MODEL_PART_HERE, kernels/model_prelude.cuh).\n" +
        declarations + "\n";
  }
  cu +=
      "namespace {\n\nusing namespace inferno::model_support;  // "
      "kernels/model_session.cuh, gemm_session.cuh\n\n";
  const std::string states = emit_state_descriptors(model, weights.front());
  if (!states.empty()) cu += states + "\n";
  if (num_variants == 0) {
    cu += variants.front().text;
  } else {
    std::string list, profiles;
    for (int32_t k = 1; k <= num_variants; ++k) {
      const std::string ns = "v" + std::to_string(k);
      cu += section("Variant " + std::to_string(k)) + "\nnamespace " + ns + " {\n\n" +
            variants[static_cast<size_t>(k)].text + "\n}  // namespace " + ns + "\n\n";
      list += (k > 1 ? ", &" : "&") + ns + "::kModel";
      profiles += (k > 1 ? ", &" : "&") + ns + "::kProfile";
    }
    cu += std::string(num_parts > 0 ? "#if INFERNO_MODEL_MAIN\n" : "") +
          "// The model's other entry points (model_abi.h).\nconst inferno_model* const "
          "kVariants[] = {" +
          list + "};\n// Their profile tables (model_profile.h).\n" +
          "const inferno_model_profile* const kProfileVariants[] = {" + profiles + "};\n" +
          (num_parts > 0 ? "#endif\n" : "") + "\n" + section("Variant 0: the model") +
          "\nnamespace v0 {\n\n" + variants.front().text + "\n}  // namespace v0\n";
  }
  cu += "\n}  // namespace\n\n";
  if (num_parts > 0) cu += parts + "#if INFERNO_MODEL_MAIN\n";
  cu += num_variants == 0 ? emit_entry_point() : emit_entry_point("v0::kModel", "v0::kProfile");
  const std::string dims_table = emit_dims_table(options.dynamic_dims);
  if (!dims_table.empty()) cu += "\n" + dims_table;
  if (num_parts > 0) cu += "#endif\n";

  Generated out;
  out.model.cuda_source = std::move(cu);
  out.model.weights = std::move(weights.front().blob);
  out.model.weights_checksum = weights.front().checksum;
  out.model.num_parts = num_parts;
  out.model.exports_map = std::string("{\n  global:\n    inferno_model_describe;\n") +
                          "    inferno_model_describe_profile;\n" +
                          (dims_table.empty() ? "" : "    inferno_model_describe_dims;\n") +
                          "  local:\n    *;\n};\n";
  out.plan = std::move(variants.front().plan);
  out.profile = std::move(variants.front().profile);
  return out;
}

}  // namespace

Expected<GeneratedModel> generate(const ir::Graph& graph, const CodegenOptions& options) {
  INFERNO_ASSIGN_OR_RETURN(Generated generated, generate_with_plan({&graph}, options));
  return std::move(generated.model);
}

Expected<GeneratedModel> generate_variants(const std::vector<const ir::Graph*>& graphs,
                                           const CodegenOptions& options) {
  INFERNO_ASSIGN_OR_RETURN(Generated generated, generate_with_plan(graphs, options));
  return std::move(generated.model);
}

Expected<std::string> describe_memory_plan(const ir::Graph& graph, const CodegenOptions& options) {
  INFERNO_ASSIGN_OR_RETURN(const Generated generated, generate_with_plan({&graph}, options));
  std::string text = "memory plan: " + std::to_string(graph.nodes().size()) + " nodes\n";
  for (size_t n = 0; n < graph.nodes().size(); ++n) {
    const ir::Node& node = graph.nodes()[n];
    text += "node " + std::to_string(n) + ": %" + graph.node_name(node) + " = " +
            std::string(ir::op_name(node.op)) + "\n";
  }
  return text + memory_plan_to_string(graph, generated.plan);
}

Expected<std::vector<KernelCost>> profile_plan(const ir::Graph& graph,
                                               const CodegenOptions& options) {
  INFERNO_ASSIGN_OR_RETURN(Generated generated, generate_with_plan({&graph}, options));
  return std::move(generated.profile);
}

}  // namespace inferno::codegen
