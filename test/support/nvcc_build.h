// Generated code compiled by the real nvcc in the tests labelled nvcc: the driver's build directory
// and commands, run with every warning an error (of nvcc's front end and of the host compiler).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "driver/build.h"

namespace inferno::test {

/// The real nvcc and the kernel sources, found as infernoc finds them.
struct Nvcc {
  driver::Toolchain toolchain;
  driver::SourceDirs sources;

  /// Codegen options for sm_90 and this nvcc's CUDA version.
  codegen::CodegenOptions codegen_options() const;
};

/// The real nvcc, or nullopt after a WARN("SKIPPED: no nvcc ...") when there is none; the kernel
/// sources must be found (REQUIRE).
std::optional<Nvcc> find_nvcc();

/// A build directory under /tmp holding `generated` for sm_90 (driver::write_build_dir), removed at
/// the end of its scope unless a failed REQUIRE ends the test (then kept, as the message names it).
class NvccBuildDir {
 public:
  NvccBuildDir(const Nvcc& nvcc, const codegen::GeneratedModel& generated, const std::string& tag);
  ~NvccBuildDir();
  NvccBuildDir(const NvccBuildDir&) = delete;
  NvccBuildDir& operator=(const NvccBuildDir&) = delete;

  /// Runs `argv` (one of the driver's commands) in the directory, every warning an error; fails
  /// the test with nvcc's output when it does.
  void run_strict(std::vector<std::string> argv) const;

  driver::BuildOptions build;  ///< the toolchain, sources, sm_90 and output (dir/model.so)
  std::string dir;
};

}  // namespace inferno::test
