// The infernoc command line: what the user asked for, parsed and validated.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/cache_options.h"
#include "passes/pass.h"
#include "support/status.h"

namespace inferno::cli {

/// `infernoc MODEL ...` compiles (or emits, or runs the reference); `infernoc verify MODEL ...`
/// compiles with every intermediate kept, runs once on the GPU and checks each kernel
/// (cli/verify.h).
enum class Command { kCompile, kVerify };
enum class Emit { kSharedObject, kCuda, kIr, kDot, kPlan, kProfilePlan };
enum class WeightsMode { kEmbedded, kExternal };
enum class Verbosity { kQuiet, kNormal, kVerbose };

struct CliOptions {
  Command command = Command::kCompile;
  std::string model;
  std::vector<std::string> input_specs;  ///< --input NAME:DIMS:DTYPE, in graph input order
  /// --specialize SYMBOL=V1,V2,...: one variant of the library per value of a dynamic dim.
  std::vector<std::string> specialize;
  /// --dim SYMBOL=LO..HI: a dynamic dim's range, narrowed (bounding an unbounded one).
  std::vector<std::string> dim_ranges;
  Emit emit = Emit::kSharedObject;
  std::string output;  ///< -o; empty: stdout for text emits, <model stem>.so for so
  std::string arch;    ///< --arch sm_90a,...; empty: the local GPU's, else sm_90
  std::string nvcc;    ///< --nvcc; empty: $CUDACXX, $CUDA_HOME/bin/nvcc, ... PATH
  /// --precision fp32|tf32|fp16|bf16 (--tf32 is --precision tf32)
  target::Precision precision = target::Precision::kFp32;
  /// --io-precision model|compute: with fp16/bf16, compute makes the f32 inputs and outputs 16-bit
  passes::IoPrecision io_precision = passes::IoPrecision::kModel;
  WeightsMode weights = WeightsMode::kEmbedded;  ///< --weights embedded|external
  std::string keep_build_dir;                    ///< --keep-build
  int jobs = 0;                                  ///< --jobs; 0: one per available CPU
  bool full_constants = false;                   ///< --full-constants: print every constant's data
  bool reference = false;                        ///< --reference: run on the reference interpreter
  std::vector<std::string> data_files;           ///< --data, in graph input order
  std::string save_outputs_dir;                  ///< --save-outputs
  std::optional<std::vector<std::string>> passes;  ///< --passes=a,b; -O0 gives an empty list
  bool print_after_all = false;
  passes::ConvLayout layout = passes::ConvLayout::kAuto;  ///< --layout auto|nchw|nhwc
  std::string dump_graph_dir;  ///< --dump-graph: before.dot/after.dot (+ .png) here
  Verbosity verbosity = Verbosity::kNormal;
  CacheFlags cache;  ///< --cache-dir, --no-cache (cache_options.h)
  /// verify --corrupt-node NAME (testing verify itself): codegen corrupts this node's output
  /// (codegen::CodegenOptions::corrupt_node).
  std::string corrupt_node;
};

/// The result of parsing argv: options to run, or an exit code to return at once (after --help
/// or --version, which print their text; or a usage error, already printed to stderr).
struct ParsedCommandLine {
  std::optional<CliOptions> options;
  int exit_code = 0;
};

ParsedCommandLine parse_command_line(int argc, char** argv);

}  // namespace inferno::cli
