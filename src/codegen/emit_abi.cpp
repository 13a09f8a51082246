#include "codegen/emit_abi.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "codegen/elementwise_table.h"
#include "inferno/model_dims.h"
#include "support/version.h"

namespace inferno::codegen {
namespace {

bool has_gemms(const EmitContext& ctx) { return ctx.out.num_gemms > 0; }
bool embedded_weights(const EmitContext& ctx) {
  return ctx.options.external_weights_file.empty() && ctx.weights.bytes > 0;
}

// `code` without its string literals and // comments, whose text may hold any name.
std::string strip_strings_and_comments(const std::string& code) {
  std::string out;
  for (size_t i = 0; i < code.size(); ++i) {
    if (code[i] == '"') {
      for (++i; i < code.size() && code[i] != '"'; ++i) i += code[i] == '\\' ? 1 : 0;
      out += "\"\"";
    } else if (code.compare(i, 2, "//") == 0) {
      while (i < code.size() && code[i] != '\n') ++i;
      out += '\n';
    } else {
      out += code[i];
    }
  }
  return out;
}

// True when `word` occurs in `text` as a whole identifier.
bool uses_identifier(const std::string& text, const std::string& word) {
  auto is_id = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  };
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const bool start = at == 0 || !is_id(text[at - 1]);
    const bool end = at + word.size() == text.size() || !is_id(text[at + word.size()]);
    if (start && end) return true;
  }
  return false;
}

std::string hex64(uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%016" PRIx64 "ull", value);
  return text;
}

// The declaration of one value's pointer in run(), from its storage.
std::string value_declaration(const EmitContext& ctx, ir::ValueId v) {
  const Storage& storage = ctx.plan.of(v);
  const std::string type(storage_type(ctx.graph.type(v).dtype));
  const int64_t bytes = ctx.graph.type(v).size_bytes();
  std::string decl, where;
  switch (storage.kind) {
    case StorageKind::kInput:
      decl = "const " + type + "* const " + ctx.pointer(v) + " = static_cast<const " + type +
             "*>(args->inputs[" + std::to_string(storage.index) + "]);";
      where = "input " + std::to_string(storage.index);
      break;
    case StorageKind::kConstant: {
      const int64_t offset = ctx.weights.offset.at(static_cast<size_t>(storage.root));
      decl = "const " + type + "* const " + ctx.pointer(v) + " = reinterpret_cast<const " + type +
             "*>(weights + " + std::to_string(offset) + ");";
      where = "weights [" + std::to_string(offset) + ", " + std::to_string(offset + bytes) + ")";
      break;
    }
    case StorageKind::kArena: {
      const int64_t offset = ctx.plan.buffers.at(static_cast<size_t>(storage.index)).offset;
      decl = type + "* const " + ctx.pointer(v) + " = reinterpret_cast<" + type + "*>(arena + " +
             std::to_string(offset) + ");";
      where = "arena [" + std::to_string(offset) + ", " + std::to_string(offset + bytes) + ")";
      break;
    }
    case StorageKind::kOutput:
      decl = type + "* const " + ctx.pointer(v) + " = static_cast<" + type + "*>(args->outputs[" +
             std::to_string(storage.index) + "]);";
      where = "output " + std::to_string(storage.index);
      break;
    case StorageKind::kState:
      decl = type + "* const " + ctx.pointer(v) + " = static_cast<" + type + "*>(args->states[" +
             std::to_string(storage.index) + "]);";
      where =
          "state " + std::to_string(storage.index) + " (" +
          comment_text(ctx.graph.name(ctx.graph.state_value(static_cast<size_t>(storage.index)))) +
          ")";
      break;
  }
  if (storage.root != v) where += ", the bytes of %" + ctx.graph.name(storage.root);
  return decl + "  // " + comment_text(where);
}

// The smallest length of a state dim that index_copy writes by position (an LLM's KV cache):
// the bound of the model's position inputs; 0 when no state is written that way.
int64_t max_positions(const EmitContext& ctx) {
  int64_t bound = 0;
  for (const ir::Node& node : ctx.graph.nodes()) {
    if (node.op != ir::OpKind::kIndexCopy ||
        ctx.plan.of(node.inputs[0]).kind != StorageKind::kState)
      continue;
    const int64_t size =
        ctx.graph.type(node.inputs[0]).shape.at(static_cast<size_t>(node.attrs.get_int("dim")));
    bound = bound == 0 ? size : std::min(bound, size);
  }
  return bound;
}

}  // namespace

std::string dtype_enum(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::kF32:
      return "INFERNO_DTYPE_F32";
    case ir::DType::kF16:
      return "INFERNO_DTYPE_F16";
    case ir::DType::kBF16:
      return "INFERNO_DTYPE_BF16";
    case ir::DType::kF64:
      return "INFERNO_DTYPE_F64";
    case ir::DType::kI64:
      return "INFERNO_DTYPE_I64";
    case ir::DType::kI32:
      return "INFERNO_DTYPE_I32";
    case ir::DType::kBool:
      return "INFERNO_DTYPE_BOOL";
  }
  return "?";
}

std::string emit_file_header(const EmitContext& ctx) {
  const MemoryPlan& plan = ctx.plan;
  SourceWriter w;
  w.line("// model.cu: generated by infernoc " + std::string(kInfernoVersion) + " from model " +
         comment_text(ctx.options.source_model_hash, 128) + ". Do not edit.");
  w.line("// " + std::to_string(ctx.graph.inputs().size()) + " inputs, " +
         std::to_string(ctx.graph.outputs().size()) + " outputs, " +
         std::to_string(ctx.graph.nodes().size()) + " nodes; weights " +
         std::to_string(ctx.weights.bytes) + " bytes" +
         (ctx.options.external_weights_file.empty() ? "" : " (external)") + "; arena " +
         std::to_string(plan.arena_bytes) + " bytes (" + std::to_string(plan.planned_bytes) +
         " planned, " + std::to_string(plan.unshared_bytes) + " without reuse, " +
         std::to_string(plan.workspace_bytes) + " cuBLASLt workspace).");
  return w.text();
}

std::string emit_includes(const EmitContext& ctx) {
  SourceWriter w;
  w.line("#include \"kernels/model_prelude.cuh\"  // CUDA, the model ABI, the session helpers");
  if (has_gemms(ctx)) w.line("#include \"kernels/gemm_session.cuh\"");
  for (const std::string& header : ctx.out.headers) w.line("#include \"" + header + "\"");
  return w.text();
}

std::string emit_weights_embedding(const EmitContext& ctx) {
  SourceWriter w;
  if (!ctx.options.external_weights_file.empty()) {
    w.line("// The weights are in " + comment_text(ctx.options.external_weights_file) +
           " beside the .so.");
    return w.text();
  }
  if (ctx.weights.bytes == 0) {
    w.line("// The model has no weights.");
    return w.text();
  }
  w.line("// The weights blob, weights.bin in the build directory, embedded into the host object");
  w.line("// (the main one when the model is built as several: model_prelude.cuh).");
  w.line("#if !defined(__CUDA_ARCH__) && INFERNO_MODEL_MAIN");
  w.line(R"cu(INFERNO_MODEL_EMBED_WEIGHTS(".incbin \"weights.bin\"\n");)cu");
  w.line("#endif");
  return w.text();
}

std::string emit_size_constants(const EmitContext& ctx) {
  SourceWriter w;
  w.line("constexpr uint64_t kWeightsBytes = " + std::to_string(ctx.weights.bytes) + ";");
  w.line("constexpr uint64_t kArenaBytes = " + std::to_string(ctx.plan.arena_bytes) + ";");
  if (has_gemms(ctx)) {
    w.line("constexpr uint64_t kWorkspaceOffset = " + std::to_string(ctx.plan.workspace_offset) +
           ";  // the cuBLASLt workspace, at the end of the arena");
  }
  w.line("constexpr uint64_t kWorkspaceBytes = " + std::to_string(ctx.plan.workspace_bytes) + ";");
  return w.text();
}

std::string emit_state(const EmitContext& ctx) {
  SourceWriter w;
  if (has_gemms(ctx)) {
    w.line("constexpr int kNumGemms = " + std::to_string(ctx.out.num_gemms) + ";");
    w.line("");
    w.line(
        "// The GEMMs: A is the row-major right operand, B the left one, D the result (see "
        "GemmSpec).");
    w.open("const GemmSpec kGemms[kNumGemms] =");
    w.append(ctx.out.gemm_specs);
    w.close("};");
    w.line("");
  }
  // The fixed parts of the session are in kernels/model_session.cuh and gemm_session.cuh.
  if (has_gemms(ctx)) {
    w.line(
        "// What session_create makes and run() reads: the weights, cuBLASLt's handle, each plan.");
    w.line("using State = GemmState<kNumGemms>;");
  } else {
    w.line("// What session_create makes and run() reads: the weights.");
    w.line("using State = WeightsState;");
  }
  return w.text();
}

std::string emit_session_functions(const EmitContext& ctx) {
  return "// session_create and session_destroy (kernels/model_session.cuh).\n"
         "INFERNO_MODEL_SESSION_FUNCTIONS(State, kWeightsBytes" +
         std::string(has_gemms(ctx) ? ", kGemms, kWorkspaceBytes" : "") + ")\n";
}

namespace {

// `body` cut before every kStepsPerPart-th step (a "MODEL_PROFILE_STEP(k, 0);" line); one piece
// when it has no more steps than that.
std::vector<std::string> split_steps(const std::string& body) {
  std::vector<std::string> parts(1);
  int steps = 0;
  for (size_t at = 0; at < body.size();) {
    size_t end = body.find('\n', at);
    end = end == std::string::npos ? body.size() : end + 1;
    const std::string_view line = std::string_view(body).substr(at, end - at);
    if (line.rfind("MODEL_PROFILE_STEP(", 0) == 0 && line.find(", 0);") != std::string_view::npos) {
      if (steps > 0 && steps % kStepsPerPart == 0) parts.emplace_back();
      ++steps;
    }
    parts.back() += line;
    at = end;
  }
  return parts;
}

// What a function's statements (`code`: strings and comments stripped) need declared: the
// pointer of every value they mention, and `used`, those declarations' text and `code`, in which
// the other locals are looked up.
struct Uses {
  SourceWriter values;
  std::string used;
};

Uses uses_of(const EmitContext& ctx, const std::string& code) {
  Uses uses;
  for (ir::ValueId v = 0; v < ctx.graph.num_values(); ++v) {
    if (uses_identifier(code, ctx.pointer(v))) uses.values.line(value_declaration(ctx, v));
  }
  uses.used = strip_strings_and_comments(uses.values.text()) + code;
  return uses;
}

// The locals a function's statements use: the state, stream, arena, weights and values.
void emit_locals(const Uses& uses, bool hooks, SourceWriter& w) {
  const std::string& used = uses.used;
  const bool uses_arena = uses_identifier(used, "arena") || uses_identifier(used, "workspace");
  const bool uses_weights = uses_identifier(used, "weights");
  // Generated kernels' launches read the session's dependent-launch choice (MODEL_LAUNCH).
  const bool launches = uses_identifier(used, "MODEL_LAUNCH");
  const bool uses_state = uses_weights || launches || uses_identifier(used, "state");
  if (uses_state) w.line("const State* const state = static_cast<const State*>(state_ptr);");
  w.line("const cudaStream_t stream = static_cast<cudaStream_t>(args->stream);");
  if (launches) {  // a profiled run times each kernel alone: no overlap
    w.line(std::string("const bool dependent_launch = state->dependent_launch") +
           (hooks ? " && hook == nullptr;" : ";"));
  }
  if (uses_arena) w.line("unsigned char* const arena = static_cast<unsigned char*>(args->arena);");
  if (uses_identifier(used, "workspace"))
    w.line("void* const workspace = arena + kWorkspaceOffset;");
  if (uses_weights) w.line("const unsigned char* const weights = state->weights;");
  if (!uses.values.empty()) {
    w.line("");
    w.line("// Where each value lives.");
    w.append(uses.values);
  }
}

// The run arguments begin_run checks for null: those the statements read.
std::string run_reads(const Uses& uses) {
  const std::string& used = uses.used;
  std::string reads;
  if (uses_identifier(used, "inputs")) reads += " | kRunInputs";
  if (uses_identifier(used, "outputs")) reads += " | kRunOutputs";
  if (uses_identifier(used, "arena") || uses_identifier(used, "workspace")) reads += " | kRunArena";
  if (uses_identifier(used, "states")) reads += " | kRunStates";
  return reads.empty() ? "0" : reads.substr(3);
}

}  // namespace

// Why parts (kStepsPerPart): g++'s optimizer time grows faster than a function's length, and one
// run_steps() of a large model was most of nvcc's host compile. DenseNet-121 (253 steps) on 2
// cores: nvcc 14.2 s -> 12.6 s in parts of 48, 11.5 s with the parts unoptimized. The parts also
// let the driver build a large model as several objects at once.
RunCode emit_run(const EmitContext& ctx, const std::string& body, int32_t first_part,
                 const std::string& ns) {
  const std::string body_code = strip_strings_and_comments(body);
  // The steps call the profiler's hook (kernels/model_support.cuh); without steps it is unused.
  const bool hooks = body_code.find("MODEL_PROFILE_STEP(") != std::string::npos;
  const std::string hook_params =
      hooks ? "inferno_profile_hook hook, void* user" : "inferno_profile_hook, void*";
  const std::vector<std::string> pieces = split_steps(body);
  const Uses uses = uses_of(ctx, body_code);
  RunCode code;
  const auto part_name = [&](size_t k) {
    return "run_steps_part" + std::to_string(first_part + static_cast<int32_t>(k));
  };
  const std::string part_params =
      "(void* state_ptr, const inferno_model_run_args* args, inferno_profile_hook hook, void* "
      "user, char* error, size_t error_size)";
  if (pieces.size() > 1) {
    code.num_parts = static_cast<int32_t>(pieces.size());
    SourceWriter declarations, parts;
    for (size_t k = 0; k < pieces.size(); ++k) {
      declarations.line("MODEL_RUN_PART int32_t " + part_name(k) + part_params + ";");
      parts.line("#if MODEL_PART_HERE(" + std::to_string(first_part + static_cast<int32_t>(k)) +
                 ")");
      parts.open("MODEL_RUN_PART int32_t " + part_name(k) +
                 "([[maybe_unused]] void* state_ptr, const inferno_model_run_args* args, " +
                 "[[maybe_unused]] inferno_profile_hook hook, [[maybe_unused]] void* user, " +
                 "[[maybe_unused]] char* error, [[maybe_unused]] size_t error_size)");
      if (!ns.empty()) parts.line("using namespace " + ns + ";");
      emit_locals(uses_of(ctx, strip_strings_and_comments(pieces[k])), true, parts);
      parts.line("");
      parts.lines(pieces[k]);
      parts.line("return INFERNO_MODEL_OK;");
      parts.close();
      parts.line("#endif");
      parts.line("");
    }
    code.declarations = declarations.text();
    code.parts = parts.text();
  }
  SourceWriter w;
  w.line("// Enqueues one inference on args->stream: never allocates, never synchronizes. With a");
  w.line("// hook, calls it around each step (inferno/model_profile.h).");
  w.open("int32_t run_steps(void* state_ptr, const inferno_model_run_args* args, " + hook_params +
         ", char* error, size_t error_size)");
  w.line("const int32_t ready = begin_run(state_ptr, args, " + run_reads(uses) +
         ", error, error_size);");
  w.line("if (ready != INFERNO_MODEL_OK) return ready;");
  if (pieces.size() > 1) {
    w.line("// In parts of " + std::to_string(kStepsPerPart) +
           " steps, after the anonymous namespace (MODEL_RUN_PART).");
    for (size_t k = 0; k < pieces.size(); ++k) {
      w.line("if (const int32_t status = " + part_name(k) +
             "(state_ptr, args, hook, user, error, error_size); status != INFERNO_MODEL_OK)");
      w.line("  return status;");
    }
  } else {
    emit_locals(uses, hooks, w);
    if (!body.empty()) w.line("");
    w.lines(body);
  }
  w.line("return INFERNO_MODEL_OK;");
  w.close();
  w.line("");
  w.open(
      "int32_t run(void* state_ptr, const inferno_model_run_args* args, char* error, size_t "
      "error_size)");
  w.line("return run_steps(state_ptr, args, nullptr, nullptr, error, error_size);");
  w.close();
  code.run = w.text();
  return code;
}

std::string emit_descriptors(const EmitContext& ctx) {
  SourceWriter w;
  auto tensors = [&](const char* role, const std::vector<ir::ValueId>& values, const char* array) {
    for (size_t i = 0; i < values.size(); ++i) {
      const ir::Shape& shape = ctx.graph.type(values[i]).shape;
      if (shape.empty()) continue;
      std::string dims;
      for (size_t d = 0; d < shape.size(); ++d) dims += (d ? ", " : "") + std::to_string(shape[d]);
      w.line("const int64_t k" + std::string(role) + std::to_string(i) + "Shape[] = {" + dims +
             "};");
    }
    if (values.empty()) return;
    w.open("const inferno_tensor_desc " + std::string(array) + "[] =");
    for (size_t i = 0; i < values.size(); ++i) {
      const ir::TensorType& type = ctx.graph.type(values[i]);
      w.line("{" + c_string_literal(ctx.graph.name(values[i])) + ", " + dtype_enum(type.dtype) +
             ", " + std::to_string(type.rank()) + ", " +
             (type.rank() == 0 ? std::string("nullptr")
                               : "k" + std::string(role) + std::to_string(i) + "Shape") +
             "},");
    }
    w.close("};");
  };
  const ir::Graph& g = ctx.graph;
  const std::vector<ir::ValueId> inputs(
      g.inputs().begin(), g.inputs().begin() + static_cast<std::ptrdiff_t>(g.num_user_inputs()));
  const std::vector<ir::ValueId> outputs(
      g.outputs().begin(), g.outputs().begin() + static_cast<std::ptrdiff_t>(g.num_user_outputs()));
  tensors("Input", inputs, "kInputs");
  tensors("Output", outputs, "kOutputs");
  std::string archs;
  for (size_t i = 0; i < ctx.options.target.sm_archs.size(); ++i)
    archs += (i ? ", " : "") + std::to_string(ctx.options.target.sm_archs[i]);
  w.line("const int32_t kSmArchs[] = {" + archs + "};");
  w.line("");
  const bool external = !ctx.options.external_weights_file.empty();
  w.open("const inferno_model kModel =");
  w.line("INFERNO_MODEL_ABI_VERSION,");
  w.line("sizeof(inferno_model),");
  w.line("{" + c_string_literal(kInfernoVersion) + ", " +
         c_string_literal(ctx.options.cuda_version) + ", kSmArchs, " +
         std::to_string(ctx.options.target.sm_archs.size()) + ", " +
         c_string_literal(ctx.options.source_model_hash) + ", " + hex64(ctx.weights.checksum) +
         "},  // compiler, CUDA, archs, source model hash, weights checksum");
  w.line(std::to_string(inputs.size()) + ", " + (inputs.empty() ? "nullptr" : "kInputs") + ",");
  w.line(std::to_string(outputs.size()) + ", " + (outputs.empty() ? "nullptr" : "kOutputs") + ",");
  w.line("kArenaBytes, kWorkspaceBytes, kWeightsBytes,");
  w.line(std::string(embedded_weights(ctx) ? "inferno_weights_begin" : "nullptr") + ", " +
         (external ? c_string_literal(ctx.options.external_weights_file) : "nullptr") + ",");
  w.line("session_create, run, session_destroy,");
  w.line(std::to_string(g.num_states()) + ", " + (g.num_states() ? "kStates" : "nullptr") + ", " +
         std::to_string(max_positions(ctx)) + ",  // states, max positions");
  w.line(ctx.num_variants == 0 ? std::string("0, nullptr,  // variants")
                               : std::to_string(ctx.num_variants) + ", kVariants,  // variants");
  w.close("};");
  return w.text();
}

std::string emit_state_descriptors(const ir::Graph& graph, const WeightsLayout& weights) {
  if (graph.num_states() == 0) return "";
  SourceWriter w;
  w.line("// The states: the session's buffers that runs update in place (ir::StateInfo).");
  for (size_t i = 0; i < graph.num_states(); ++i) {
    const ir::Shape& shape = graph.type(graph.state_value(i)).shape;
    if (shape.empty()) continue;
    std::string dims;
    for (size_t d = 0; d < shape.size(); ++d) dims += (d ? ", " : "") + std::to_string(shape[d]);
    w.line("const int64_t kState" + std::to_string(i) + "Shape[] = {" + dims + "};");
  }
  w.open("const inferno_state_desc kStates[] =");
  for (size_t i = 0; i < graph.num_states(); ++i) {
    const ir::ValueId v = graph.state_value(i);
    const ir::TensorType& type = graph.type(v);
    const int64_t init = weights.state_offset.at(i);
    w.line("{{" + c_string_literal(graph.name(v)) + ", " + dtype_enum(type.dtype) + ", " +
           std::to_string(type.rank()) + ", " +
           (type.rank() == 0 ? std::string("nullptr") : "kState" + std::to_string(i) + "Shape") +
           "}, " +
           (init < 0 ? std::string("INFERNO_STATE_INIT_ZERO") : std::to_string(init) + "u") + "},");
  }
  w.close("};");
  return w.text();
}

std::string emit_entry_point(const std::string& model, const std::string& profile) {
  return "extern \"C\" __attribute__((visibility(\"default\"))) const inferno_model* "
         "inferno_model_describe() {\n"
         "  return &" +
         model +
         ";\n"
         "}\n\n"
         "extern \"C\" __attribute__((visibility(\"default\"))) const inferno_model_profile* "
         "inferno_model_describe_profile() {\n"
         "  return &" +
         profile +
         ";\n"
         "}\n";
}

std::string emit_dims_table(const std::vector<ModelDim>& all) {
  // The dims a reader accepts (model_dims.h): a name of printable ASCII within
  // INFERNO_MODEL_DIM_NAME_MAX bytes (a derived dim is named by its expression, which may be
  // longer), and some input that has it.
  std::vector<ModelDim> dims;
  for (const ModelDim& dim : all) {
    const bool readable = !dim.name.empty() && dim.name.size() <= INFERNO_MODEL_DIM_NAME_MAX &&
                          std::all_of(dim.name.begin(), dim.name.end(),
                                      [](char c) { return c >= 0x20 && c <= 0x7e; });
    if (readable && !dim.uses.empty()) dims.push_back(dim);
  }
  if (dims.empty()) return "";
  SourceWriter w;
  w.line("// The model's dynamic dims, as exported, and the input dims that have them");
  w.line("// (inferno/model_dims.h). The code above is compiled for fixed sizes of them.");
  w.line("namespace {");
  w.line("");
  w.open("const inferno_model_dim kDims[] =");
  std::string uses;
  int32_t num_uses = 0;
  for (size_t d = 0; d < dims.size(); ++d) {
    w.line("{" + c_string_literal(dims[d].name) + ", " + std::to_string(dims[d].min) + ", " +
           std::to_string(dims[d].max) + "},");
    for (const auto& [input, axis] : dims[d].uses) {
      uses += "{" + std::to_string(input) + ", " + std::to_string(axis) + ", " + std::to_string(d) +
              "}, ";
      ++num_uses;
    }
  }
  w.close("};");
  // Every dim kept has a use: the list is never empty.
  w.line("const inferno_model_dim_use kDimUses[] = {" + uses.substr(0, uses.size() - 2) + "};");
  const auto split =
      std::find_if(dims.begin(), dims.end(), [](const ModelDim& d) { return d.split; });
  const int64_t split_dim = split == dims.end() ? -1 : split - dims.begin();
  w.line(
      "const inferno_model_dims kModelDims = {INFERNO_MODEL_DIMS_VERSION, "
      "sizeof(inferno_model_dims), " +
      std::to_string(dims.size()) + ", kDims, " + std::to_string(num_uses) + ", kDimUses, " +
      std::to_string(split_dim) + "};");
  w.line("");
  w.line("}  // namespace");
  w.line("");
  w.line(
      "extern \"C\" __attribute__((visibility(\"default\"))) const inferno_model_dims* "
      "inferno_model_describe_dims() {");
  w.line("  return &kModelDims;");
  w.line("}");
  return w.text();
}

}  // namespace inferno::codegen
