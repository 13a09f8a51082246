// A private temporary directory (mkdtemp under $TMPDIR, else /tmp), removed with everything in it
// when the object goes: where infernoc and the programs it runs exchange files.
#pragma once

#include <filesystem>
#include <string_view>

#include "support/status.h"

namespace inferno::driver {

class ScratchDir {
 public:
  ScratchDir() = default;
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  /// remove_tree, not std::filesystem::remove_all (process.h says why).
  ~ScratchDir();

  /// Creates `<tmp>/<prefix>XXXXXX`; `purpose` completes the I/O error's "cannot create a
  /// directory in '<tmp>' for ...".
  Status create(std::string_view prefix, std::string_view purpose);
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace inferno::driver
