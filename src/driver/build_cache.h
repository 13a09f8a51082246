// The build cache: model.so (and its weights file, with --weights external) kept under a key
// that covers everything deciding their bytes, so an unchanged compile is a copy, not an nvcc run.
//
// The key is SHA-256 over the build's own inputs, taken after codegen: model.cu, exports.map and
// the weights blob, every file of kernels/ and of the model ABI headers, the exact nvcc command
// line, nvcc's `--version` output and the identity (size, mtime, inode) of the nvcc and host
// compiler files, the environment variables nvcc reads, the weights mode and infernoc's version.
// Whatever flag changes the result changes model.cu or the command, so no list of flags has to
// be kept complete (docs/build-cache.md measures and explains the choice).
//
// An entry is one file `<key>.entry`: a header (magic, the key it was made for, each part's
// kind, size and SHA-256) and the parts' bytes. Entries are untrusted: every size is checked
// against the file, every part against its checksum while it is copied out, and an entry that
// fails is removed and rebuilt, never copied out. Entries are written to a temp file in the cache
// directory, fsynced and renamed into place, so concurrent compiles sharing a cache are safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "codegen/codegen.h"
#include "driver/build.h"
#include "support/status.h"

namespace inferno::driver {

/// The key for building `model` with `options` (64 hex digits). `compiler_version` is
/// infernoc's own (a parameter for the tests). Unreadable kernel files are an I/O error.
Expected<std::string> build_cache_key(const codegen::GeneratedModel& model,
                                      const BuildOptions& options,
                                      std::string_view compiler_version);

/// Where a cache hit is copied: the library, and the weights file (empty when embedded).
struct CacheOutputs {
  std::string library;
  std::string weights;
};

enum class CacheLookup {
  kHit,      ///< the outputs were written from the entry
  kMiss,     ///< no entry
  kCorrupt,  ///< an entry that failed its checks; it was removed, nothing was written
};

class BuildCache {
 public:
  explicit BuildCache(std::string dir) : dir_(std::move(dir)) {}

  const std::string& dir() const { return dir_; }
  std::string entry_path(const std::string& key) const;

  /// Copies the entry of `key` to `outputs` (each atomically, the library last). An entry that
  /// cannot be read counts as a miss; an output that cannot be written is an I/O error.
  Expected<CacheLookup> restore(const std::string& key, const CacheOutputs& outputs) const;

  /// Stores the built library file (and `weights`, when external) as the entry of `key`,
  /// replacing any entry there. Temp files of crashed writers older than a day are removed.
  Status store(const std::string& key, const std::string& library_path,
               const std::vector<std::byte>* weights) const;

 private:
  std::string dir_;
};

/// The default cache directory: $INFERNO_CACHE_DIR, else $XDG_CACHE_HOME/infernoc, else
/// $HOME/.cache/infernoc; empty when none of them is set.
std::string default_cache_dir();

}  // namespace inferno::driver
