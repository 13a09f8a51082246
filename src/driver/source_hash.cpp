#include "driver/source_hash.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "support/sha256.h"

namespace inferno::driver {

Expected<std::string> hash_file_hex(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return io_error("cannot read '" + path + "': " + std::strerror(errno));
  Sha256 hash;
  std::vector<char> buffer(1 << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    hash.update(buffer.data(), static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) return io_error("cannot read '" + path + "': " + std::strerror(errno));
  return to_hex(hash.finish());
}

}  // namespace inferno::driver
