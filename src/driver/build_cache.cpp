#include "driver/build_cache.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>

#include "driver/temp_file.h"
#include "support/sha256.h"

namespace inferno::driver {
namespace {

namespace fs = std::filesystem;

// ---- the entry format ----------------------------------------------------------------------
// magic (16 bytes) | key (64 hex digits) | part count (u32) | per part: kind (u32), size (u64),
// SHA-256 (32 bytes) | the parts' bytes, in order. Integers are little-endian.

constexpr std::string_view kMagic = "infernoc-cache1\n";
constexpr size_t kKeySize = 64;
constexpr size_t kPartHeaderSize = 4 + 8 + 32;
constexpr uint32_t kMaxParts = 2;
enum PartKind : uint32_t { kLibraryPart = 0, kWeightsPart = 1 };

/// Temp files this old in the cache directory belong to a writer that died.
constexpr auto kStaleTempAge = std::chrono::hours(24);

struct Part {
  uint32_t kind = 0;
  uint64_t size = 0;
  Sha256::Digest digest{};
};

size_t header_size(size_t parts) { return kMagic.size() + kKeySize + 4 + parts * kPartHeaderSize; }

void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}
void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}
uint64_t get_le(const unsigned char* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::string encode_header(const std::string& key, const std::vector<Part>& parts) {
  std::string out(kMagic);
  out += key;
  put_u32(out, static_cast<uint32_t>(parts.size()));
  for (const Part& part : parts) {
    put_u32(out, part.kind);
    put_u64(out, part.size);
    out.append(reinterpret_cast<const char*>(part.digest.data()), part.digest.size());
  }
  return out;
}

std::string errno_text() { return std::strerror(errno); }

/// Reads exactly `size` bytes at the file position; false on an error or a short file.
bool read_exact(int fd, void* data, size_t size) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = ::read(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

/// An open file descriptor, closed at the end of the scope.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

/// Why the entry's header is not one for `key` with `expected_kinds`, or empty when it is; fills
/// `parts`. Every size is checked against the entry's file size.
std::string parse_header(int fd, uint64_t file_size, const std::string& key,
                         const std::vector<uint32_t>& expected_kinds, std::vector<Part>& parts) {
  std::array<unsigned char, kMagic.size() + kKeySize + 4> fixed{};
  if (file_size < fixed.size() || !read_exact(fd, fixed.data(), fixed.size()))
    return "shorter than its header";
  if (std::string_view(reinterpret_cast<const char*>(fixed.data()), kMagic.size()) != kMagic)
    return "not an infernoc cache entry of this version";
  if (std::string_view(reinterpret_cast<const char*>(fixed.data()) + kMagic.size(), kKeySize) !=
      key)
    return "made for another key";
  const uint64_t count = get_le(fixed.data() + kMagic.size() + kKeySize, 4);
  if (count != expected_kinds.size() || count > kMaxParts) return "the wrong number of parts";
  uint64_t total = header_size(count);
  if (total > file_size) return "shorter than its header";
  for (uint64_t i = 0; i < count; ++i) {
    std::array<unsigned char, kPartHeaderSize> raw{};
    if (!read_exact(fd, raw.data(), raw.size())) return "shorter than its header";
    Part part;
    part.kind = static_cast<uint32_t>(get_le(raw.data(), 4));
    part.size = get_le(raw.data() + 4, 8);
    std::copy(raw.begin() + 12, raw.end(), part.digest.begin());
    if (part.kind != expected_kinds[i]) return "parts of the wrong kind";
    if (part.size > file_size - total) return "shorter than its parts' sizes";
    total += part.size;
    parts.push_back(part);
  }
  if (total != file_size) return "longer than its parts' sizes";
  return {};
}

/// Copies `part.size` bytes from `in` to `out`, hashing them; false when the entry ends early.
/// `write_failed` tells an output error (not the entry's fault) apart.
bool copy_part(int in, int out, const Part& part, bool& write_failed, bool& digest_ok) {
  std::vector<char> buffer(1 << 20);
  Sha256 hash;
  uint64_t left = part.size;
  while (left > 0) {
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(left, buffer.size()));
    if (!read_exact(in, buffer.data(), chunk)) return false;
    hash.update(buffer.data(), chunk);
    if (!write_all(out, buffer.data(), chunk)) {
      write_failed = true;
      return false;
    }
    left -= chunk;
  }
  digest_ok = hash.finish() == part.digest;
  return true;
}

/// Removes temp files (".<name>.tmpXXXXXX") older than kStaleTempAge from `dir`.
void remove_stale_temps(const fs::path& dir) {
  std::error_code ec;
  const auto now = fs::file_time_type::clock::now();
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] != '.' || name.find(".tmp") == std::string::npos) continue;
    std::error_code time_ec;
    const auto written = fs::last_write_time(it->path(), time_ec);
    if (!time_ec && now - written > kStaleTempAge) ::unlink(it->path().c_str());
  }
}

}  // namespace

std::string BuildCache::entry_path(const std::string& key) const {
  return (fs::path(dir_) / (key + ".entry")).string();
}

Expected<CacheLookup> BuildCache::restore(const std::string& key,
                                          const CacheOutputs& outputs) const {
  const std::string path = entry_path(key);
  Fd in(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (in.get() < 0) {
    if (errno != ENOENT) spdlog::warn("cannot read the cache entry '{}': {}", path, errno_text());
    return CacheLookup::kMiss;
  }
  // A reader holds this inode: a writer renaming a new entry over it cannot change what is read.
  struct stat st {};
  if (::fstat(in.get(), &st) != 0 || !S_ISREG(st.st_mode)) return CacheLookup::kMiss;

  auto discard = [&](const std::string& why) {
    spdlog::warn("discarded the corrupt cache entry '{}': {}", path, why);
    ::unlink(path.c_str());
    return CacheLookup::kCorrupt;
  };
  std::vector<uint32_t> kinds = {kLibraryPart};
  if (!outputs.weights.empty()) kinds.push_back(kWeightsPart);
  std::vector<Part> parts;
  const std::string bad =
      parse_header(in.get(), static_cast<uint64_t>(st.st_size), key, kinds, parts);
  if (!bad.empty()) return discard(bad);

  // Each part into a temp file beside its output; none is renamed until all are verified.
  std::vector<std::unique_ptr<TempFile>> temps;
  const std::string targets[] = {outputs.library, outputs.weights};
  for (size_t i = 0; i < parts.size(); ++i) {
    const fs::path target = fs::absolute(targets[i]);
    auto temp = std::make_unique<TempFile>();
    INFERNO_RETURN_IF_ERROR(temp->create(target));
    if (parts[i].kind == kLibraryPart) {
      // Executable like the library nvcc writes.
      const mode_t mask = ::umask(0);
      ::umask(mask);
      ::fchmod(temp->fd(), 0777 & ~mask);
    }
    bool write_failed = false, digest_ok = false;
    if (!copy_part(in.get(), temp->fd(), parts[i], write_failed, digest_ok)) {
      if (write_failed) return io_error("cannot write '" + targets[i] + "': " + errno_text());
      return discard("shorter than its parts' sizes");
    }
    if (!digest_ok) return discard("a part does not match its checksum");
    temps.push_back(std::move(temp));
  }
  // The weights first, the library last: a library never appears without its weights.
  for (size_t i = temps.size(); i-- > 0;) INFERNO_RETURN_IF_ERROR(temps[i]->commit());
  return CacheLookup::kHit;
}

Status BuildCache::store(const std::string& key, const std::string& library_path,
                         const std::vector<std::byte>* weights) const {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) return io_error("cannot create the cache directory '" + dir_ + "': " + ec.message());
  remove_stale_temps(dir_);

  Fd library(::open(library_path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st {};
  if (library.get() < 0 || ::fstat(library.get(), &st) != 0)
    return io_error("cannot read '" + library_path + "': " + errno_text());

  std::vector<Part> parts(weights != nullptr ? 2 : 1);
  parts[0].kind = kLibraryPart;
  parts[0].size = static_cast<uint64_t>(st.st_size);
  TempFile temp;
  INFERNO_RETURN_IF_ERROR(temp.create(fs::absolute(entry_path(key))));
  const auto write_error = [&] {
    return io_error("cannot write '" + temp.path().string() + "': " + errno_text());
  };
  // The parts first, after room for the header, which is written last with their checksums.
  if (::lseek(temp.fd(), static_cast<off_t>(header_size(parts.size())), SEEK_SET) < 0)
    return write_error();
  {
    std::vector<char> buffer(1 << 20);
    Sha256 hash;
    uint64_t left = parts[0].size;
    while (left > 0) {
      const size_t chunk = static_cast<size_t>(std::min<uint64_t>(left, buffer.size()));
      if (!read_exact(library.get(), buffer.data(), chunk))
        return io_error("cannot read '" + library_path + "': it changed while it was stored");
      hash.update(buffer.data(), chunk);
      if (!write_all(temp.fd(), buffer.data(), chunk)) return write_error();
      left -= chunk;
    }
    parts[0].digest = hash.finish();
  }
  if (weights != nullptr) {
    parts[1].kind = kWeightsPart;
    parts[1].size = weights->size();
    Sha256 hash;
    hash.update(weights->data(), weights->size());
    parts[1].digest = hash.finish();
    if (!write_all(temp.fd(), weights->data(), weights->size())) return write_error();
  }
  const std::string header = encode_header(key, parts);
  if (::pwrite(temp.fd(), header.data(), header.size(), 0) != static_cast<ssize_t>(header.size()))
    return write_error();
  // No fsync: an entry torn by a crash fails its parts' checksums on restore and is rebuilt, and
  // syncing 100+ MB took a noticeable part of a large model's compile.
  return temp.commit();
}

std::string default_cache_dir() {
  auto env = [](const char* name) -> std::string {
    const char* value = std::getenv(name);
    return value == nullptr ? std::string() : std::string(value);
  };
  if (const std::string dir = env("INFERNO_CACHE_DIR"); !dir.empty()) return dir;
  if (const std::string xdg = env("XDG_CACHE_HOME"); !xdg.empty())
    return (fs::path(xdg) / "infernoc").string();
  if (const std::string home = env("HOME"); !home.empty())
    return (fs::path(home) / ".cache" / "infernoc").string();
  return {};
}

}  // namespace inferno::driver
