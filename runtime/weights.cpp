#include "runtime/weights.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "runtime/error.h"

namespace inferno::runtime {
namespace {

// Closes a file descriptor on every path out of read_external.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

std::unique_ptr<std::byte[]> read_external(const std::string& path, uint64_t expected_size) {
  Fd file{open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0)
    fail(INFERNO_STATUS_IO, "cannot open weights '" + path + "': " + std::strerror(errno));
  struct stat st {};
  if (fstat(file.fd, &st) != 0) fail(INFERNO_STATUS_IO, "cannot stat weights '" + path + "'");
  if (static_cast<uint64_t>(st.st_size) != expected_size) {
    fail(INFERNO_STATUS_WEIGHTS_CORRUPT,
         "weights '" + path + "' are " + std::to_string(st.st_size) + " bytes, the model expects " +
             std::to_string(expected_size));
  }
  auto bytes = std::make_unique_for_overwrite<std::byte[]>(expected_size);
  uint64_t done = 0;
  while (done < expected_size) {  // never more than expected_size, even if the file grows
    const ssize_t n = ::read(file.fd, bytes.get() + done, expected_size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      fail(INFERNO_STATUS_IO, "cannot read weights '" + path + "': " + std::strerror(errno));
    if (n == 0) fail(INFERNO_STATUS_WEIGHTS_CORRUPT, "weights '" + path + "' are truncated");
    done += static_cast<uint64_t>(n);
  }
  return bytes;
}

}  // namespace

std::string hex64(uint64_t value) {
  static const char kDigits[] = "0123456789abcdef";
  std::string text = "0x";
  for (int shift = 60; shift >= 0; shift -= 4) text += kDigits[(value >> shift) & 0xf];
  return text;
}

HostWeights HostWeights::read(const inferno_model& model, const std::string& so_path) {
  HostWeights weights;
  weights.size_ = model.weights_bytes;
  std::string source = "embedded weights of '" + so_path + "'";
  if (model.weights_bytes == 0) {
    weights.data_ = nullptr;
  } else if (model.weights != nullptr) {
    weights.data_ = model.weights;
  } else {
    const std::filesystem::path file =
        std::filesystem::path(so_path).parent_path() / model.weights_file;
    weights.owned_ = read_external(file.string(), model.weights_bytes);
    weights.data_ = weights.owned_.get();
    source = "weights '" + file.string() + "'";
  }
  const uint64_t checksum = inferno_weights_checksum(weights.data_, weights.size_);
  if (checksum != model.manifest.weights_checksum) {
    fail(INFERNO_STATUS_WEIGHTS_CORRUPT, source + " fail the checksum: manifest says " +
                                             hex64(model.manifest.weights_checksum) + ", data is " +
                                             hex64(checksum));
  }
  return weights;
}

}  // namespace inferno::runtime
