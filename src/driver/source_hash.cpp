#include "driver/source_hash.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

namespace inferno::driver {

Expected<std::string> hash_file_hex(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return io_error("cannot read '" + path + "': " + std::strerror(errno));
  // inferno_fnv1a64's loop, carried across chunks.
  uint64_t hash = 14695981039346656037ull;
  std::vector<char> buffer(1 << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const std::streamsize n = in.gcount();
    for (std::streamsize i = 0; i < n; ++i) {
      hash ^= static_cast<unsigned char>(buffer[static_cast<size_t>(i)]);
      hash *= 1099511628211ull;
    }
  }
  if (in.bad()) return io_error("cannot read '" + path + "': " + std::strerror(errno));
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return std::string(hex);
}

}  // namespace inferno::driver
