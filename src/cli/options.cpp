#include "cli/options.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "support/version.h"

namespace inferno::cli {

namespace {

// The flags both commands take, as text until they are checked and turned into CliOptions.
struct SharedFlags {
  std::string passes;
  std::string layout = "auto";
  std::string precision = "fp32";
  std::string io_precision = "model";
  bool tf32 = false;
  int opt_level = 1;
  bool verbose = false, quiet = false;
};

ParsedCommandLine usage_error(const std::string& message) {
  std::fprintf(stderr, "infernoc: error: %s\n", message.c_str());
  return ParsedCommandLine{std::nullopt, static_cast<int>(ErrorCode::kInvalidInput)};
}

// CLI11's own messages in infernoc's form, so every command-line mistake reads the same; --help
// and --version exit 0 after printing their text. Nullopt when parsing succeeded.
std::optional<ParsedCommandLine> parse_or_exit(CLI::App& app, int argc, char** argv,
                                               const std::string& help_command) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return ParsedCommandLine{std::nullopt, app.exit(e)};
    std::fprintf(stderr, "infernoc: error: %s\nrun '%s --help' for the options\n", e.what(),
                 help_command.c_str());
    return ParsedCommandLine{std::nullopt, static_cast<int>(ErrorCode::kInvalidInput)};
  }
  return std::nullopt;
}

void add_input_options(CLI::App& app, CliOptions& o) {
  app.add_option("--input", o.input_specs,
                 "an input's shape and dtype, NAME:DIMS:DTYPE (e.g. x:1x512:f32); one per model "
                 "input, in order. A TorchScript model's dims may be names (x:Bx3x224x224:f32), "
                 "each with its range in --dim (B=1..64): dynamic dims, as a .pt2 exports them")
      ->take_all();
  app.add_option("--data", o.data_files,
                 "an input as a NumPy .npy file; one per model input, in order (a floating-point "
                 "file for an input of another float dtype is converted to it)")
      ->take_all();
}

// What the model is optimized and computed in: the passes, the layout and the precision.
void add_optimizer_options(CLI::App& app, SharedFlags& f) {
  app.add_option("--precision", f.precision,
                 "what the model computes in: fp32 (the default), tf32 (f32 storage, TF32 "
                 "tensor-core GEMMs: about 10 mantissa bits), fp16 or bf16 (16-bit storage and "
                 "tensor cores with f32 accumulation; softmax, f16 range overflows and the model's "
                 "own f32 upcasts stay f32; inputs and outputs keep the model's dtypes; weights "
                 "converted at compile time)")
      ->check(CLI::IsMember({"fp32", "tf32", "fp16", "bf16"}));
  app.add_option("--io-precision", f.io_precision,
                 "the dtypes of the compiled model's inputs and outputs: model (the default: as "
                 "the model has them, the 16-bit conversion cast inside the first and last "
                 "kernels) or compute (with --precision fp16 or bf16, the model's f32 inputs and "
                 "outputs are taken and returned in that 16-bit type; integer and bool inputs "
                 "are unchanged; with fp32 or tf32, compute is the same as model)")
      ->check(CLI::IsMember({"model", "compute"}));
  app.add_flag("--tf32", f.tf32, "the same as --precision tf32");
  app.add_option("--passes", f.passes,
                 "run exactly these passes, comma separated, instead of the default pipeline");
  app.add_option("-O", f.opt_level,
                 "optimization level: -O0 runs no passes, -O1 (the default) the default pipeline")
      ->check(CLI::Range(0, 1));
  app.add_option("--layout", f.layout,
                 "the activation layout of convolutions: auto (the default: channels-last, NHWC, "
                 "where the assign-layout pass expects it to pay off), nchw (as the model has it; "
                 "the pass is off) or nhwc (every conv2d channels-last)")
      ->check(CLI::IsMember({"auto", "nchw", "nhwc"}));
}

// The nvcc build: the archs, the compiler and the build directory.
void add_build_options(CLI::App& app, CliOptions& o) {
  app.add_option("--arch", o.arch,
                 "GPUs to build for, comma separated: sm_90, sm_90a, sm_80,sm_90, ... (default: "
                 "the local GPU's "
                 "arch, or sm_90 when there is no GPU)");
  app.add_option("--nvcc", o.nvcc,
                 "the nvcc to use (default: $CUDACXX, else $CUDA_HOME/bin/nvcc, else "
                 "/usr/local/cuda/bin/nvcc, "
                 "else nvcc on PATH); CUDA 12.0 or newer");
  app.add_option("-j,--jobs", o.jobs,
                 "nvcc processes at once for a large model, built as several objects (default: "
                 "one per CPU this process may use)")
      ->check(CLI::Range(1, 1024));
  app.add_option("--keep-build", o.keep_build_dir,
                 "build in this directory and keep it: model.cu, weights.bin, exports.map, "
                 "nvcc.log and the nvcc "
                 "command (command.txt)");
}

void add_logging_options(CLI::App& app, SharedFlags& f) {
  app.add_flag("-v,--verbose", f.verbose,
               "log more detail to stderr, with the time each compile stage took");
  app.add_flag("-q,--quiet", f.quiet, "log only errors");
}

// The shared flags into `o`; a usage error's message, or empty.
std::string apply_shared_flags(const CLI::App& app, const SharedFlags& f, CliOptions& o) {
  o.layout = f.layout == "nchw"   ? passes::ConvLayout::kNchw
             : f.layout == "nhwc" ? passes::ConvLayout::kNhwc
                                  : passes::ConvLayout::kAuto;
  o.precision = f.precision == "tf32"   ? target::Precision::kTf32
                : f.precision == "fp16" ? target::Precision::kFp16
                : f.precision == "bf16" ? target::Precision::kBf16
                                        : target::Precision::kFp32;
  o.io_precision =
      f.io_precision == "compute" ? passes::IoPrecision::kCompute : passes::IoPrecision::kModel;
  o.verbosity = f.quiet ? Verbosity::kQuiet : f.verbose ? Verbosity::kVerbose : Verbosity::kNormal;
  const bool o0 = f.opt_level == 0;
  if (o0) {
    o.passes = std::vector<std::string>{};
  } else if (app.count("--passes") > 0) {
    std::vector<std::string> names;
    size_t start = 0;
    while (start <= f.passes.size()) {
      const size_t comma = std::min(f.passes.find(',', start), f.passes.size());
      if (comma > start) names.push_back(f.passes.substr(start, comma - start));
      start = comma + 1;
    }
    o.passes = std::move(names);
  }
  if (o0 && app.count("--passes") > 0) return "-O0 and --passes exclude each other";
  const bool sixteen_bit =
      o.precision == target::Precision::kFp16 || o.precision == target::Precision::kBf16;
  if (o0 && sixteen_bit) {
    return "--precision " + f.precision +
           " converts the model in the optimizer, which -O0 turns off (use --passes to run "
           "convert-precision alone)";
  }
  if (f.tf32) {
    if (app.count("--precision") > 0 && o.precision != target::Precision::kTf32)
      return "--tf32 is --precision tf32 and conflicts with --precision " + f.precision;
    o.precision = target::Precision::kTf32;
  }
  return {};
}

// `infernoc verify MODEL --data X.npy ...` (argv[0] is "verify").
ParsedCommandLine parse_verify(int argc, char** argv) {
  CLI::App app{
      "infernoc verify: compile the model with every intermediate value kept, run it once on the "
      "GPU (with inferno-run) and check each kernel's output against the CPU reference "
      "interpreter, evaluated on the same inputs the kernel got. Prints the first node out of "
      "tolerance (its op, source line, element and error), or \"all N values match\".",
      "infernoc verify"};
  app.footer(
      "Exit codes: 0 every value matches, 6 a node's output is out of tolerance, 1 internal "
      "error,\n2 unsupported, 3 invalid model, input or command line, 4 toolchain or environment "
      "(no\nnvcc, no inferno-run, no usable GPU), 5 I/O error.\n"
      "Environment: INFERNO_RUN names the inferno-run to use (default: beside infernoc, or in "
      "the\nbuild tree's runtime/).");
  CliOptions o;
  o.command = Command::kVerify;
  SharedFlags flags;
  app.add_option("model", o.model,
                 "the model: a torch.export archive (.pt2) or a TorchScript file (.pt)")
      ->required();
  add_input_options(app, o);
  add_optimizer_options(app, flags);
  add_build_options(app, o);
  add_cache_options(app, o.cache);
  add_logging_options(app, flags);
  // Testing verify itself (test/gpu/verify_gpu_test.sh): not for users, so not in --help.
  app.add_option("--corrupt-node", o.corrupt_node)->group("");
  if (auto done = parse_or_exit(app, argc, argv, "infernoc verify")) return std::move(*done);
  if (o.data_files.empty()) return usage_error("verify needs --data for every model input");
  const std::string error = apply_shared_flags(app, flags, o);
  if (!error.empty()) return usage_error(error);
  const std::string cache_error = check_cache_options(app, /*builds_library=*/true);
  if (!cache_error.empty()) return usage_error(cache_error);
  return {std::move(o), 0};
}

}  // namespace

ParsedCommandLine parse_command_line(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "verify") return parse_verify(argc - 1, argv + 1);
  CLI::App app{
      "infernoc: compile a PyTorch model (torch.export .pt2 or TorchScript .pt) for NVIDIA GPUs",
      "infernoc"};
  app.set_version_flag("--version", std::string("infernoc ") + kInfernoVersion);
  app.footer(
      "Exit codes: 0 ok, 1 internal error, 2 unsupported op, feature or model format (ONNX), 3\n"
      "invalid model, input or command line, 4 toolchain or environment, 5 I/O error.\n"
      "Environment: INFERNO_DEBUG=1 prints the IR after every pass to stderr; CUDACXX, CUDA_HOME "
      "and\n"
      "PATH locate nvcc (see --nvcc); INFERNO_KERNELS_DIR overrides where the CUDA kernels are; "
      "TMPDIR\n"
      "holds the temporary build directory; INFERNO_LAUNCH_GROUPS=0 launches every kernel on "
      "its own\n(no launch groups), INFERNO_GEMV_PAIRS=0 keeps a gated MLP's elementwise "
      "kernel and\nINFERNO_ATTENTION_STEP=0 keeps a decode step's rotary and cache writes out of "
      "its\nattention kernel, for comparisons. Without --arch, the GPUs the CUDA driver reports "
      "set the\n"
      "target (CUDA_VISIBLE_DEVICES applies); with no GPU or driver the target is sm_90.\n"
      "'infernoc verify MODEL --data X.npy ...' checks every kernel of the compiled model on the "
      "GPU\nagainst the CPU reference (see 'infernoc verify --help').");

  CliOptions o;
  SharedFlags flags;
  std::string emit = "so";
  std::string weights = "embedded";
  app.add_option("model", o.model,
                 "the model: a torch.export archive (.pt2) or a TorchScript file (.pt)")
      ->required();
  add_input_options(app, o);
  app.add_option("--specialize", o.specialize,
                 "SYMBOL=V1,V2,...: compile one variant per value of the model's dynamic dim "
                 "SYMBOL (e.g. s0=1,16,64) into one library; several dims: every combination "
                 "(at most 16); the first is the model's own interface, the others are picked at "
                 "run time by the inputs' shapes (see docs/llm.md)")
      ->take_all();
  app.add_option("--dim", o.dim_ranges,
                 "SYMBOL=LO..HI: the range of the model's dynamic dim SYMBOL (e.g. s77=1..64), "
                 "or of a dim --input names; within the one it was exported for: bounds a dim "
                 "exported without an upper "
                 "bound (infernoc refuses those otherwise) and sets the sizes a split batch is "
                 "compiled for (see docs/runtime.md)")
      ->take_all();
  app.add_option("--emit", emit,
                 "what to write: so (a CUDA shared library, the default), cu (the generated CUDA "
                 "source, not "
                 "compiled), ir (IR text), dot (Graphviz) or plan (the arena memory plan: every "
                 "buffer's offset, size "
                 "and lifetime) or profile-plan (each kernel launch's source op, FLOPs, bytes and "
                 "kernel; no GPU needed)")
      ->check(CLI::IsMember({"so", "cu", "ir", "dot", "plan", "profile-plan"}));
  app.add_option(
      "-o,--output", o.output,
      "the output file (default for so: the model's file name with .so, in the current directory; "
      "the other emits go to stdout without it or with -o -)");
  add_build_options(app, o);
  add_optimizer_options(app, flags);
  app.add_option("--weights", weights,
                 "embedded (the default: inside the .so) or external (in <output stem>.weights "
                 "beside the .so)")
      ->check(CLI::IsMember({"embedded", "external"}));
  app.add_flag("--full-constants", o.full_constants,
               "with --emit ir: print the data of every constant");
  app.add_flag(
      "--reference", o.reference,
      "run the optimized graph on the CPU reference interpreter (needs --data and --save-outputs)");
  app.add_option("--save-outputs", o.save_outputs_dir,
                 "with --reference: write out0.npy, out1.npy, ... here");
  app.add_flag("--print-after-all", o.print_after_all, "print the IR after every pass to stderr");
  app.add_option("--dump-graph", o.dump_graph_dir,
                 "write the graph before and after optimization to DIR/before.dot and "
                 "DIR/after.dot, and render "
                 "them to PNG when Graphviz's dot is on PATH");
  add_cache_options(app, o.cache);
  add_logging_options(app, flags);
  if (auto done = parse_or_exit(app, argc, argv, "infernoc")) return std::move(*done);

  o.emit = emit == "ir"             ? Emit::kIr
           : emit == "dot"          ? Emit::kDot
           : emit == "cu"           ? Emit::kCuda
           : emit == "plan"         ? Emit::kPlan
           : emit == "profile-plan" ? Emit::kProfilePlan
                                    : Emit::kSharedObject;
  o.weights = weights == "external" ? WeightsMode::kExternal : WeightsMode::kEmbedded;
  if (o.reference && o.data_files.empty())
    return usage_error("--reference needs --data for every model input");
  if (o.reference && o.save_outputs_dir.empty())
    return usage_error("--reference needs --save-outputs DIR");
  if (!o.reference && !o.save_outputs_dir.empty())
    return usage_error("--save-outputs is only used with --reference");
  const std::string error = apply_shared_flags(app, flags, o);
  if (!error.empty()) return usage_error(error);
  const bool compiles = !o.reference && (o.emit == Emit::kSharedObject || o.emit == Emit::kCuda);
  for (const char* flag : {"--arch", "--nvcc", "--tf32", "--weights", "--keep-build", "--jobs"}) {
    if (!compiles && app.count(flag) > 0)
      return usage_error(std::string(flag) + " is only used with --emit so or cu");
  }
  const std::string cache_error =
      check_cache_options(app, !o.reference && o.emit == Emit::kSharedObject);
  if (!cache_error.empty()) return usage_error(cache_error);
  return {std::move(o), 0};
}

}  // namespace inferno::cli
