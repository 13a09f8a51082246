// The .pt2 path end to end, as infernoc runs it short of nvcc: archive -> JSON graph -> weights ->
// IR -> the default pipeline -> CUDA source. Each input is written to a file of this process and
// loaded by path, as the CLI does. Refusals (unsupported, invalid, I/O) are fine; an internal
// error, a crash, a sanitizer report or an exception that escapes is a finding. The seed corpus is
// the .pt2 fixtures; fuzz_pt2_mutator.cpp mutates inside the archive's records.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "frontend/frontend.h"
#include "fuzz_compile.h"
#include "fuzz_target.h"

namespace {

const std::string& scratch_file() {
  static const std::string path = (std::filesystem::temp_directory_path() /
                                   ("inferno_fuzz_pt2_" + std::to_string(::getpid()) + ".pt2"))
                                      .string();
  return path;
}

// Removes the scratch file when the process ends normally.
struct ScratchCleanup {
  ~ScratchCleanup() { ::unlink(scratch_file().c_str()); }
} cleanup;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using inferno::fuzz::require_not_internal;
  {
    std::ofstream out(scratch_file(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  inferno::Expected<inferno::ir::Graph> graph = inferno::frontend::load_pt2(scratch_file(), {});
  if (!graph) {
    require_not_internal(graph.status(), "loading");
    return 0;
  }
  inferno::fuzz::optimize_and_generate(*graph);
  return 0;
}
