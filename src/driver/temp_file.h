// Writing a file atomically: a temp file `.<name>.tmpXXXXXX` beside the target, renamed over it
// once complete, so a reader sees the old file or the whole new one, never a part. Shared by the
// build (model.so, the weights) and the build cache (its entries, and copies out of it).
#pragma once

#include <filesystem>
#include <string>

#include "support/status.h"

namespace inferno::driver {

/// Writes all of [data, data + size) to fd, retrying short writes and EINTR.
bool write_all(int fd, const void* data, size_t size);

/// A temp file beside a target; removed unless committed (renamed over the target).
class TempFile {
 public:
  TempFile() = default;
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() { discard(); }

  /// Creates the temp file for `target`, open as fd(), with the mode a plain new file would have
  /// (not mkstemp's 0600).
  Status create(const std::filesystem::path& target);
  int fd() const { return fd_; }
  const std::filesystem::path& path() const { return path_; }
  const std::filesystem::path& target() const { return target_; }

  /// Closes it (reporting late write errors) and renames it over the target.
  Status commit();
  void discard();

 private:
  std::filesystem::path target_;
  std::filesystem::path path_;
  int fd_ = -1;
};

}  // namespace inferno::driver
