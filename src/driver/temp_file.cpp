#include "driver/temp_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace inferno::driver {
namespace {

std::string errno_text() { return std::strerror(errno); }

}  // namespace

bool write_all(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

Status TempFile::create(const std::filesystem::path& target) {
  target_ = target;
  std::string pattern =
      (target.parent_path() / ("." + target.filename().string() + ".tmpXXXXXX")).string();
  fd_ = ::mkstemp(pattern.data());
  if (fd_ < 0) return io_error("cannot write '" + target.string() + "': " + errno_text());
  path_ = pattern;
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd_, 0666 & ~mask);
  return Status::ok();
}

Status TempFile::commit() {
  if (fd_ >= 0 && ::close(std::exchange(fd_, -1)) != 0) {
    return io_error("cannot write '" + target_.string() + "': " + errno_text());
  }
  if (::rename(path_.c_str(), target_.c_str()) != 0) {
    return io_error("cannot write '" + target_.string() + "': " + errno_text());
  }
  path_.clear();
  return Status::ok();
}

void TempFile::discard() {
  if (fd_ >= 0) ::close(std::exchange(fd_, -1));
  if (!path_.empty()) ::unlink(path_.c_str());
  path_.clear();
}

}  // namespace inferno::driver
