#include "codegen/profile_plan.h"

#include <cctype>
#include <cinttypes>
#include <cstdio>

#include "codegen/source_walk.h"
#include "support/check.h"

namespace inferno::codegen {
namespace {

bool has(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

// Whether an identifier in `code` begins with `prefix`: model names reach identifiers too
// (`v_<name>`), so "MODEL_CHECK_" inside one is not a call.
bool has_identifier_starting(std::string_view code, std::string_view prefix) {
  for (size_t at = code.find(prefix); at != std::string_view::npos;
       at = code.find(prefix, at + 1)) {
    if (at == 0 || !is_identifier_char(code[at - 1])) return true;
  }
  return false;
}

// "k18_gemm_epilogue_gelu_f32_4x32" -> "gemm_epilogue_gelu_f32_4x32": a generated kernel's name
// without its node-number prefix (emit_grid_kernel.h names them k<node>_<what>_<dtype>_<shape>),
// from its launch "<name><<<..." or "MODEL_LAUNCH(<name>, ...".
std::string generated_kernel(std::string_view line) {
  constexpr std::string_view kLaunch = "MODEL_LAUNCH(";
  if (starts_with(line, kLaunch)) {
    line.remove_prefix(kLaunch.size());
    line = line.substr(0, line.find(','));
  } else {
    line = line.substr(0, line.find("<<<"));
  }
  size_t begin = line.size();
  while (begin > 0 && is_identifier_char(line[begin - 1])) --begin;
  std::string_view name = line.substr(begin);
  if (name.size() > 1 && name[0] == 'k') {
    size_t digits = 1;
    while (digits < name.size() && std::isdigit(static_cast<unsigned char>(name[digits]))) ++digits;
    if (digits > 1 && digits < name.size() && name[digits] == '_') name.remove_prefix(digits + 1);
  }
  return std::string(name);
}

// "conv2d_igemm<float, inferno::kernels::IgemmPlan::kNhwcVecAW>" -> "conv2d_igemm<float,
// kNhwcVecAW>": every qualified name reduced to its last component.
std::string unqualified(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "::") == 0) {
      while (!out.empty() && is_identifier_char(out.back())) out.pop_back();
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

// "inferno::kernels::attention<float, 32>(..." -> "attention<float, 32>": a hand-written
// kernel's launcher with its template arguments (which say the dtype and the tile).
std::string library_kernel(std::string_view line) {
  constexpr std::string_view kNamespace = "inferno::kernels::";
  size_t i = line.find(kNamespace) + kNamespace.size();
  const size_t begin = i;
  while (i < line.size() && is_identifier_char(line[i])) ++i;
  if (i < line.size() && line[i] == '<') {
    int depth = 0;
    for (; i < line.size(); ++i) {
      depth += line[i] == '<' ? 1 : line[i] == '>' ? -1 : 0;
      if (depth == 0) {
        ++i;
        break;
      }
    }
  }
  return unqualified(line.substr(begin, i - begin));
}

std::string_view trim(std::string_view line) {
  while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
  return line;
}

bool is_tensor_core_dtype(ir::DType dtype) {
  return dtype == ir::DType::kF16 || dtype == ir::DType::kBF16;
}

std::string with_units(double value, const char* const* units) {
  int u = 0;
  while (value >= 1000.0 && units[u + 1] != nullptr) {
    value /= 1000.0;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.2f %s", value, units[u]);
  return text;
}

std::string flops_text(double flops) {
  static const char* const kUnits[] = {"", "K", "M", "G", "T", nullptr};
  return with_units(flops, kUnits) + "FLOP";
}

std::string bytes_text(double bytes) {
  static const char* const kUnits[] = {"B", "KB", "MB", "GB", "TB", nullptr};
  return with_units(bytes, kUnits);
}

std::string pad(std::string text, size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

}  // namespace

std::vector<std::string> launched_kernels(std::string_view run_block) {
  // Names and source files reach comments and string literals (an alignment error's message, a
  // comment naming the node) and, sanitized, identifiers: read the code without the first two,
  // and only whole identifiers, or a name could pose as a launch.
  const std::string code = code_skeleton(run_block);
  INFERNO_CHECK(!starts_with(code, "unparsable: "), "profile plan: " + code);
  std::string_view rest = code;
  std::vector<std::string> kernels;
  size_t checks = 0, grid_launches = 0;
  while (!rest.empty()) {
    const size_t eol = rest.find('\n');
    const std::string_view line = trim(rest.substr(0, eol));
    rest.remove_prefix(eol == std::string_view::npos ? rest.size() : eol + 1);
    if (starts_with(line, "MODEL_CHECK_LAUNCH(")) {
      ++checks;
      continue;
    }
    if (starts_with(line, "MODEL_LAUNCH(")) {  // a launch and its check in one
      kernels.push_back(generated_kernel(line));
      ++checks;
    } else if (has(line, "<<<")) {
      kernels.push_back(generated_kernel(line));
      ++grid_launches;
    } else if (starts_with(line, "MODEL_CHECK_CUBLAS(run_gemm(")) {
      kernels.emplace_back("cublasLt");
      ++checks;
    } else if (starts_with(line, "MODEL_CHECK_CUDA(") && has(line, "inferno::kernels::")) {
      kernels.push_back(library_kernel(line));
      ++checks;
    } else {
      INFERNO_CHECK(!has_identifier_starting(line, "MODEL_CHECK_"),
                    "profile plan: a launch it cannot name: " + std::string(line.substr(0, 80)));
    }
  }
  INFERNO_CHECK(checks == kernels.size() && grid_launches <= checks,
                "profile plan: launches and their checks do not pair up");
  return kernels;
}

std::string kernel_choice(const std::vector<std::string>& kernels, ir::DType dtype,
                          bool decode_attention, const target::Target& target) {
  bool all_sm80 = true;
  for (const int arch : target.sm_archs) all_sm80 &= arch >= 80;
  std::string text;
  for (const std::string& kernel : kernels) {
    if (!text.empty()) text += " + ";
    text += kernel;
    if (kernel == "cublasLt") {
      text += is_tensor_core_dtype(dtype)                            ? " (tensor cores)"
              : dtype == ir::DType::kF32 && target.tf32()            ? " (tf32 tensor cores)"
              : dtype == ir::DType::kF32 || dtype == ir::DType::kF64 ? " (no tensor cores)"
                                                                     : "";
    } else if (starts_with(kernel, "conv2d_igemm<")) {
      text += kernel.find("kPipe") != std::string::npos ? " (mma tensor cores, cp.async pipeline)"
              : is_tensor_core_dtype(dtype)             ? " (mma tensor cores)"
                                                        : " (FMA tiles)";
    } else if (starts_with(kernel, "gemv_nk_layer_norm_") ||
               starts_with(kernel, "gemv_nk_rms_norm_")) {
      text += " (weight-streaming GEMV, FMA, norm fused)";
    } else if (starts_with(kernel, "gemv_")) {
      text += " (weight-streaming GEMV, FMA)";
    } else if (starts_with(kernel, "attention_step<")) {
      text += " (decode, split keys, with the step's rotary and cache writes)";
    } else if (starts_with(kernel, "attention<")) {
      text += decode_attention                          ? " (decode, split keys)"
              : is_tensor_core_dtype(dtype) && all_sm80 ? " (flash, mma tensor cores)"
                                                        : " (flash, FMA)";
    }
  }
  return text;
}

void describe_node(KernelCost& step, const ir::Graph& graph, int32_t node) {
  const ir::Node& n = graph.nodes().at(static_cast<size_t>(node));
  step.node = node;
  step.node_name = graph.node_name(n);
  step.op = std::string(ir::op_name(n.op));
  step.loc = n.loc;
  step.dtype = graph.type(n.outputs[0]).dtype;
  step.work = node_work(graph, n);
}

void describe_launch_group(KernelCost& step, const ir::Graph& graph,
                           const std::vector<std::pair<int32_t, std::string>>& members) {
  if (members.empty()) return;
  if (members.size() == 1) {  // the one member that launched: its own step
    describe_node(step, graph, members.front().first);
    return;
  }
  NodeWork work;
  std::string kernels;
  for (const auto& [node, kernel] : members) {
    const NodeWork w = node_work(graph, graph.nodes().at(static_cast<size_t>(node)));
    work.flops += w.flops;
    work.bytes_read += w.bytes_read;
    work.bytes_written += w.bytes_written;
    kernels += (kernels.empty() ? "" : " + ") + generated_kernel(kernel);
  }
  step.op = "launch group";
  step.work = work;
  step.choice = "one launch: " + kernels;
}

std::optional<KernelCost> make_step(const ir::Graph& graph, int32_t node,
                                    std::string_view run_block, const target::Target& target) {
  std::vector<std::string> kernels = launched_kernels(run_block);
  if (kernels.empty()) return std::nullopt;
  KernelCost step;
  step.node = node;
  if (node >= 0) {
    describe_node(step, graph, node);
  } else {
    step.node_name = "outputs";
    step.op = "copy";
  }
  // A few query rows take attention_decode.cuh's kernel.
  const bool decode_attention =
      node >= 0 && graph.nodes().at(static_cast<size_t>(node)).op == ir::OpKind::kAttention &&
      graph.type(graph.nodes().at(static_cast<size_t>(node)).inputs[0]).shape[2] <=
          target::kAttentionLimits.decode_max_rows;
  step.choice = kernel_choice(kernels, step.dtype, decode_attention, target);
  step.kernels = std::move(kernels);
  return step;
}

std::string profile_plan_to_string(const std::vector<KernelCost>& plan) {
  size_t name_width = 4, where_width = 6;
  for (const KernelCost& step : plan) {
    name_width = std::max(name_width, step.node_name.size() + 1);
    where_width = std::max(where_width, step.loc.to_string().size());
  }
  std::string text = "profile plan: " + std::to_string(plan.size()) + " steps\n";
  text += pad("node", name_width) + "  " + pad("op", 18) + "  " + pad("source", where_width) +
          "  " + pad("dtype", 5) + "  " + pad("FLOPs", 12) + "  " + pad("read", 10) + "  " +
          pad("written", 10) + "  kernels\n";
  double flops = 0, read = 0, written = 0;
  size_t launches = 0;
  for (const KernelCost& step : plan) {
    const std::string name = step.node >= 0 ? "%" + step.node_name : "(" + step.node_name + ")";
    text += pad(name, name_width) + "  " + pad(step.op, 18) + "  " +
            pad(step.loc.to_string(), where_width) + "  " +
            pad(std::string(ir::dtype_name(step.dtype)), 5) + "  " +
            pad(flops_text(step.work.flops), 12) + "  " +
            pad(bytes_text(static_cast<double>(step.work.bytes_read)), 10) + "  " +
            pad(bytes_text(static_cast<double>(step.work.bytes_written)), 10) + "  " + step.choice +
            "\n";
    flops += step.work.flops;
    read += static_cast<double>(step.work.bytes_read);
    written += static_cast<double>(step.work.bytes_written);
    launches += step.kernels.size();
  }
  text += "total: " + std::to_string(launches) + " launches, " + flops_text(flops) + ", " +
          bytes_text(read) + " read, " + bytes_text(written) + " written\n";
  return text;
}

}  // namespace inferno::codegen
