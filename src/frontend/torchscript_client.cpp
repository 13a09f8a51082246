// load_torchscript: infernoc does not link LibTorch. A TorchScript file is read by the loader
// executable, infernoc-torchscript (src/torchscript_loader_main.cpp), run as a child process with
// no shell and a timeout; it hands the graph back through a result file
// (frontend/torchscript_protocol.h). A loader that crashes, hangs or writes no readable result
// is an invalid-input error about the file, never a crash of infernoc.
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "driver/process.h"
#include "frontend/frontend.h"
#include "frontend/torchscript_protocol.h"
#include "support/file_io.h"

namespace inferno::frontend {

#if INFERNO_HAVE_TORCHSCRIPT

namespace {

namespace fs = std::filesystem;
namespace protocol = torchscript_protocol;

constexpr const char* kLoaderName = INFERNO_TORCHSCRIPT_LOADER_NAME;
constexpr const char* kLoaderVariable = "INFERNO_TORCHSCRIPT_LOADER";
/// LibTorch loads a ResNet-50 in seconds; a loader still busy after this long is stuck.
constexpr std::chrono::minutes kLoaderTimeout{10};
/// The result holds the model's weights in text (about 15 bytes per f32 element).
constexpr uint64_t kMaxResultBytes = uint64_t{64} << 30;

bool is_executable(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

/// $INFERNO_TORCHSCRIPT_LOADER, else infernoc-torchscript beside infernoc (the build tree), else
/// in <prefix>/libexec/inferno (an installed infernoc in <prefix>/bin; src/CMakeLists.txt).
Expected<std::string> find_loader() {
  const char* override_path = std::getenv(kLoaderVariable);
  if (override_path != nullptr && *override_path != '\0') {
    if (!is_executable(override_path)) {
      return toolchain_error(std::string(kLoaderVariable) + " is '" + override_path +
                             "', which is not an executable file");
    }
    return std::string(override_path);
  }
  const fs::path dir = driver::executable_dir();
  const fs::path beside = dir / kLoaderName;
  const fs::path installed =
      dir.parent_path() / INFERNO_TORCHSCRIPT_LOADER_INSTALL_DIR / kLoaderName;
  for (const fs::path& candidate : {beside, installed}) {
    if (!dir.empty() && is_executable(candidate)) return candidate.string();
  }
  return toolchain_error(std::string("cannot find the TorchScript loader ") + kLoaderName +
                         ": it is neither '" + beside.string() + "' nor '" + installed.string() +
                         "'; set " + kLoaderVariable + " to its path");
}

/// A private directory for the result file, removed with everything in it.
class ScratchDir {
 public:
  ScratchDir() = default;
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  // driver::remove_tree, not std::filesystem::remove_all: the tests that run the loader link
  // LibTorch, where remove_all can be torch's broken copy (docs/gpu-build.md).
  ~ScratchDir() {
    if (!path_.empty()) driver::remove_tree(path_.string());
  }

  Status create() {
    const char* tmpdir = std::getenv("TMPDIR");
    const fs::path root = tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp";
    std::string pattern = (root / "infernoc-torchscript-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      return io_error("cannot create a directory in '" + root.string() +
                      "' for the TorchScript loader: " + std::strerror(errno));
    }
    path_ = pattern;
    return Status::ok();
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

/// The last non-empty line of what the loader printed (an abort's message, a LibTorch error).
std::string last_line(std::string_view output) {
  while (!output.empty() && (output.back() == '\n' || output.back() == ' '))
    output.remove_suffix(1);
  const size_t start = output.rfind('\n');
  return std::string(start == std::string_view::npos ? output : output.substr(start + 1));
}

Status loader_failed(const std::string& path, const std::string& why,
                     const driver::ProcessResult& run) {
  std::string message = "the TorchScript loader failed on this file: '" + path + "': " + why;
  const std::string said = last_line(run.output);
  if (!said.empty()) message += " (it printed: " + said + ")";
  return invalid_input(message);
}

}  // namespace

Expected<ir::Graph> load_torchscript(const std::string& path, const LoadOptions& options) {
  INFERNO_ASSIGN_OR_RETURN(const std::string loader, find_loader());
  ScratchDir scratch;
  INFERNO_RETURN_IF_ERROR(scratch.create());
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
