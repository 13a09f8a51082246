#include "support/file_io.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

namespace inferno {

Status read_error(const std::string& path, int err) {
  const std::string why = err == ENOENT   ? "no such file"
                          : err == EISDIR ? "it is a directory"
                                          : std::strerror(err);
  return io_error("cannot read '" + path + "': " + why);
}

Expected<std::vector<std::byte>> read_file_bytes(const std::string& path, uint64_t max_bytes) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return read_error(path, ec.value());
  if (size > max_bytes) {
    return invalid_input("'" + path + "' is " + std::to_string(size) +
                         " bytes, more than the limit of " + std::to_string(max_bytes));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return read_error(path, errno);
  std::vector<std::byte> bytes(static_cast<size_t>(size));
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size));
  if (in.gcount() != static_cast<std::streamsize>(size))
    return io_error("cannot read '" + path + "': short read");
  return bytes;
}

Status write_file_atomic(const std::string& path, std::string_view contents) {
  const std::filesystem::path target(path);
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
  std::random_device rd;
  const std::filesystem::path temp =
      dir / ("." + target.filename().string() + ".tmp" + std::to_string(rd() % 1000000));
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) return io_error("cannot write '" + path + "': " + std::strerror(errno));
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    out.flush();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(temp, ignored);
      return io_error("cannot write '" + path + "': " + std::strerror(errno));
    }
  }
  std::error_code ec;
  std::filesystem::rename(temp, target, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    return io_error("cannot write '" + path + "': " + ec.message());
  }
  return Status::ok();
}

}  // namespace inferno
