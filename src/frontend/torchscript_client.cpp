// load_torchscript: infernoc does not link LibTorch. A TorchScript file is read by the loader
// executable, infernoc-torchscript (src/torchscript_loader_main.cpp), run as a child process with
// no shell and a timeout; it hands the graph back through a result file
// (frontend/torchscript_protocol.h). A loader that crashes, hangs or writes no readable result
// is an invalid-input error about the file, never a crash of infernoc.
#include <chrono>
#include <string>

#include "driver/helper_program.h"
#include "driver/process.h"
#include "driver/scratch_dir.h"
#include "frontend/frontend.h"
#include "frontend/torchscript_protocol.h"
#include "support/file_io.h"

namespace inferno::frontend {

#if INFERNO_HAVE_TORCHSCRIPT

namespace {

namespace protocol = torchscript_protocol;

/// LibTorch loads a ResNet-50 in seconds; a loader still busy after this long is stuck.
constexpr std::chrono::minutes kLoaderTimeout{10};
/// The result holds the model's weights in text (about 15 bytes per f32 element).
constexpr uint64_t kMaxResultBytes = uint64_t{64} << 30;

/// $INFERNO_TORCHSCRIPT_LOADER, else infernoc-torchscript beside infernoc (the build tree), else
/// in <prefix>/libexec/inferno (an installed infernoc in <prefix>/bin; src/CMakeLists.txt).
Expected<std::string> find_loader() {
  return driver::find_helper_program(
      {"the TorchScript loader",
       INFERNO_TORCHSCRIPT_LOADER_NAME,
       "INFERNO_TORCHSCRIPT_LOADER",
       {".", std::string("../") + INFERNO_TORCHSCRIPT_LOADER_INSTALL_DIR}});
}

Status loader_failed(const std::string& path, const std::string& why,
                     const driver::ProcessResult& run) {
  std::string message = "the TorchScript loader failed on this file: '" + path + "': " + why;
  const std::string said = run.last_line();
  if (!said.empty()) message += " (it printed: " + said + ")";
  return invalid_input(message);
}

}  // namespace

Expected<ir::Graph> load_torchscript(const std::string& path, const LoadOptions& options) {
  INFERNO_ASSIGN_OR_RETURN(const std::string loader, find_loader());
  driver::ScratchDir scratch;
  INFERNO_RETURN_IF_ERROR(scratch.create("infernoc-torchscript-", "the TorchScript loader"));
  const std::string result_file = (scratch.path() / "result").string();
  driver::RunOptions run_options;
  run_options.timeout = kLoaderTimeout;
  run_options.max_captured_bytes = 64 << 10;
  INFERNO_ASSIGN_OR_RETURN(
      const driver::ProcessResult run,
      driver::run_program({loader, path, result_file, protocol::encode_input_specs(options.inputs)},
                          run_options));
  if (run.signal != 0 || run.timed_out)
    return loader_failed(path, "it ended with " + run.describe_end(), run);
  Expected<std::vector<std::byte>> bytes = read_file_bytes(result_file, kMaxResultBytes);
  if (!bytes) {
    return loader_failed(path, "it ended with " + run.describe_end() + " and no result", run);
  }
  Expected<protocol::Result> result = protocol::decode_result(
      std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()));
  if (!result) return loader_failed(path, result.status().message(), run);
  if (run.exit_code != static_cast<int>(result->status.code())) {
    return loader_failed(path,
                         "it ended with " + run.describe_end() + " after reporting '" +
                             result->status.to_string() + "'",
                         run);
  }
  if (options.note) {
    for (const std::string& note : result->notes) options.note(note);
  }
  if (!result->status.is_ok()) return result->status;
  if (options.reads_sizes) *options.reads_sizes = result->reads_sizes;
  return std::move(result->graph);
}

#else  // !INFERNO_HAVE_TORCHSCRIPT

Expected<ir::Graph> load_torchscript(const std::string& path, const LoadOptions& /*options*/) {
  return unsupported("'" + path +
                     "' is a TorchScript file, and this infernoc was built without TorchScript "
                     "support (INFERNO_TORCHSCRIPT=OFF): export the model with torch.export "
                     "(.pt2), or use an infernoc built with LibTorch");
}

#endif

}  // namespace inferno::frontend
