#include "driver/scratch_dir.h"

#include <stdlib.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "driver/process.h"

namespace inferno::driver {

ScratchDir::~ScratchDir() {
  if (!path_.empty()) remove_tree(path_.string());
}

Status ScratchDir::create(std::string_view prefix, std::string_view purpose) {
  const char* tmpdir = std::getenv("TMPDIR");
  const std::filesystem::path root = tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp";
  std::string pattern = (root / (std::string(prefix) + "XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return io_error("cannot create a directory in '" + root.string() + "' for " +
                    std::string(purpose) + ": " + std::strerror(errno));
  }
  path_ = pattern;
  return Status::ok();
}

}  // namespace inferno::driver
