// build_cache_key (build_cache.h): what decides the bytes of model.so, hashed.
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "driver/build_cache.h"
#include "driver/nvcc_plan.h"
#include "driver/program_search.h"
#include "support/sha256.h"

namespace inferno::driver {
namespace {

namespace fs = std::filesystem;

/// Bumped when what the key covers or the entry format changes, and when the driver starts to
/// make model.so differently from the same inputs and command (stripping it, say).
constexpr std::string_view kKeyFormat = "infernoc build cache key 1";

/// The environment variables nvcc and its host compiler read: the host compiler and the tools
/// it finds on PATH, flags added to every nvcc call, header and library search paths.
constexpr const char* kEnvironment[] = {
    "PATH",  "NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS",  "NVCC_CCBIN",
    "CPATH", "C_INCLUDE_PATH",     "CPLUS_INCLUDE_PATH", "LIBRARY_PATH"};

/// Feeds one named field: its name, its length and its bytes, so no two sequences of fields
/// feed the same bytes.
void field(Sha256& hash, std::string_view name, const void* data, size_t size) {
  hash.update(name);
  hash.update("\0", 1);
  uint8_t length[8];
  for (int i = 0; i < 8; ++i)
    length[i] = static_cast<uint8_t>(static_cast<uint64_t>(size) >> (8 * i));
  hash.update(length, sizeof length);
  hash.update(data, size);
}

void field(Sha256& hash, std::string_view name, std::string_view value) {
  field(hash, name, value.data(), value.size());
}

/// A program file's identity: its resolved path, size, modification time and inode. A
/// reinstalled or replaced program changes it (a needless miss at worst).
std::string file_identity(const std::string& path) {
  std::error_code ec;
  const fs::path resolved = fs::canonical(path, ec);
  struct stat st {};
  if (ec || ::stat(resolved.c_str(), &st) != 0) return "missing: " + path;
  return resolved.string() + " size " + std::to_string(st.st_size) + " mtime " +
         std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) + " inode " +
         std::to_string(st.st_ino);
}

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string("(unset)") : std::string(value);
}

/// Every regular file under `root`, in a fixed order: its path relative to `root` and bytes.
Status hash_tree(Sha256& hash, std::string_view name, const fs::path& root) {
  std::error_code ec;
  std::vector<fs::path> files;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec)) files.push_back(it->path());
  }
  if (ec) return io_error("cannot list '" + root.string() + "': " + ec.message());
  std::sort(files.begin(), files.end());
  field(hash, name, root.filename().string());
  std::vector<char> buffer(1 << 16);
  for (const fs::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return io_error("cannot read '" + file.string() + "'");
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) return io_error("cannot read '" + file.string() + "'");
    field(hash, file.lexically_relative(root).string(), bytes);
  }
  return Status::ok();
}

}  // namespace

Expected<std::string> build_cache_key(const codegen::GeneratedModel& model,
                                      const BuildOptions& options,
                                      std::string_view compiler_version) {
  Sha256 hash;
  field(hash, "format", kKeyFormat);
  field(hash, "infernoc", compiler_version);
  for (const std::string& arg : nvcc_command(options)) field(hash, "argv", arg);
  field(hash, "nvcc --version", options.toolchain.version_output);
  field(hash, "nvcc file", file_identity(options.toolchain.nvcc));
  const std::string path_list = env("PATH");
  const char* ccbin = std::getenv("NVCC_CCBIN");
  std::vector<std::string> host_compilers = {"gcc", "g++", "c++"};
  if (ccbin != nullptr && *ccbin != '\0') host_compilers = {ccbin};
  for (const std::string& compiler : host_compilers) {
    const std::string found =
        compiler.find('/') != std::string::npos ? compiler : find_in_path(compiler, path_list);
    field(hash, "host compiler " + compiler, found.empty() ? "none" : file_identity(found));
  }
  for (const char* name : kEnvironment) field(hash, name, env(name));
  field(hash, "weights", options.external_weights.empty() ? "embedded" : "external");
  field(hash, "model.cu", model.cuda_source);
  field(hash, "exports.map", model.exports_map);
  field(hash, "weights.bin", model.weights.data(), model.weights.size());
  INFERNO_RETURN_IF_ERROR(
      hash_tree(hash, "kernels", fs::path(options.source_dirs.kernels_root) / "kernels"));
  INFERNO_RETURN_IF_ERROR(
      hash_tree(hash, "include", fs::path(options.source_dirs.include_dir) / "inferno"));
  return to_hex(hash.finish());
}

}  // namespace inferno::driver
