// Building model.so from generated code: a build directory with everything nvcc reads, one nvcc
// run in it, and the result moved into place atomically.
//
// No path we do not control reaches nvcc's command line: nvcc hands its arguments to a shell
// for its sub-steps, and rejects or mangles quotes, backquotes and '$' in them. So nvcc runs
// inside the build directory (a fresh one under $TMPDIR, or --keep-build DIR) on relative names
// only (model.cu, exports.map, -o model.so), with the kernels and the model ABI header copied in
// beside model.cu. The library is then moved to a temp file `.<name>.tmpXXXXXX` in the output's
// directory and renamed over the output: a failed or interrupted build leaves no output and no
// temp file behind, whatever characters the output path holds.
#pragma once

#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "driver/arch.h"
#include "driver/process.h"
#include "driver/toolchain.h"
#include "support/status.h"

namespace inferno::driver {

struct BuildOptions {
  Toolchain toolchain;     ///< from check_toolchain
  SourceDirs source_dirs;  ///< from find_source_dirs
  std::vector<SmArch> archs = {SmArch{}};
  std::string output;  ///< the .so to write
  std::string
      external_weights;        ///< non-empty: write the weights blob to this path, not into the .so
  std::string keep_build_dir;  ///< non-empty: build in this directory and keep it
  bool verbose = false;        ///< log the nvcc command and its output
  /// nvcc processes at once for a model in parts (nvcc_plan.h); 0: one per available CPU.
  int jobs = 0;
  /// non-empty: the build cache's directory (build_cache.h); a hit copies model.so (and the
  /// weights) out of it instead of building, a miss stores the result. --keep-build always builds.
  std::string cache_dir;
};

/// What the build cache did.
enum class CacheOutcome {
  kOff,       ///< no cache directory
  kHit,       ///< the outputs were copied out of the cache
  kMiss,      ///< built, then stored
  kCorrupt,   ///< the entry failed its checks: removed, built, stored again
  kBypassed,  ///< --keep-build: built (the build directory was asked for), then stored
};
const char* to_string(CacheOutcome outcome);

/// Where a build's time went, and what the cache did (infernoc -v prints it).
struct BuildReport {
  CacheOutcome cache = CacheOutcome::kOff;
  std::string cache_key;
  double cache_lookup_ms = 0;  ///< the key (hashing the inputs) and the lookup or copy out
  double build_dir_ms = 0;     ///< writing the build directory
  double nvcc_ms = 0;
  double output_ms = 0;  ///< moving the library (and writing the weights) into place
  double cache_store_ms = 0;
};

/// The files written into a build directory.
inline constexpr const char* kSourceFile = "model.cu";
inline constexpr const char* kWeightsFile = "weights.bin";
inline constexpr const char* kExportsFile = "exports.map";
inline constexpr const char* kLogFile = "nvcc.log";
inline constexpr const char* kCommandFile = "command.txt";
inline constexpr const char* kLibraryFile = "model.so";

/// Writes the build directory `dir` (created if needed): model.cu, weights.bin (unless
/// external), exports.map, kernels/, include/inferno/model_abi.h and command.txt, the exact
/// commands to run there (nvcc_plan.h). I/O errors name the file.
Status write_build_dir(const std::string& dir, const codegen::GeneratedModel& model,
                       const BuildOptions& options);

/// Builds options.output from `model`. nvcc failing on generated code is an internal error
/// (exit 1) quoting nvcc's first lines and keeping the build directory; files that cannot be
/// written are I/O errors (exit 5). A SIGINT, SIGTERM or SIGHUP during the build stops nvcc,
/// removes the temp files, then ends the process with that signal.
/// With a cache directory, an entry for the same inputs is copied out instead (see
/// build_cache.h); only a successful build is stored. `report`, when given, gets the timings.
Status build_shared_object(const codegen::GeneratedModel& model, const BuildOptions& options,
                           BuildReport* report = nullptr);

/// Writes `bytes` to `path` atomically (temp file beside it, then rename).
Status write_bytes_atomic(const std::string& path, const std::vector<std::byte>& bytes);

/// "1.2 MiB".
std::string format_size(uint64_t bytes);

}  // namespace inferno::driver
