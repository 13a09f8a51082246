// Pt2Archive: the zip central directory parsed here (end-of-central-directory record, zip64
// records when present, one header per entry), every offset and size checked against the file
// size; a record read from its local header with its CRC checked. PyTorch stores every record
// uncompressed (PyTorchStreamWriter and Python's zipfile as torch.export uses it), so compressed
// or encrypted records are refused as unsupported rather than inflated: no LibTorch and no zlib
// on this path, and no record can expand beyond the bytes the file holds.
#include "frontend/pt2_archive.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "support/crc32.h"
#include "support/file_io.h"

namespace inferno::frontend {
namespace {

constexpr uint32_t kEocdSignature = 0x06054b50, kZip64LocatorSignature = 0x07064b50,
                   kZip64EocdSignature = 0x06064b50, kCentralSignature = 0x02014b50,
                   kLocalSignature = 0x04034b50;
constexpr size_t kEocdSize = 22, kZip64LocatorSize = 20, kZip64EocdSize = 56,
                 kCentralHeaderSize = 46, kLocalHeaderSize = 30;
constexpr uint64_t kStored = 0, kEncryptedFlag = 1;
constexpr uint64_t kMaxCentralDirectory = uint64_t{256} << 20;

uint64_t le(const std::byte* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

struct Entry {
  std::string name;          ///< full name in the zip
  uint64_t size = 0;         ///< uncompressed
  uint64_t stored_size = 0;  ///< as stored in the file
  uint64_t offset = 0;       ///< of the local header
  uint64_t method = 0;       ///< 0: stored
  uint64_t flags = 0;
  uint32_t crc = 0;
};

// Reads `n` bytes at `offset`; false if the file is shorter.
bool read_at(std::ifstream& in, uint64_t offset, size_t n, std::vector<std::byte>& out) {
  out.resize(n);
  in.clear();
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(n));
  return in.good() || (in.eof() && static_cast<size_t>(in.gcount()) == n);
}

// The central directory's entries, or a message saying what is wrong with the file.
Expected<std::vector<Entry>> read_directory(std::ifstream& in, uint64_t file_size) {
  const auto bad = [](const std::string& what) {
    return invalid_input("not a readable zip archive: " + what);
  };
  if (file_size < kEocdSize) return bad("file too small");
  const uint64_t tail_size = std::min<uint64_t>(file_size, kEocdSize + 0xFFFF);
  std::vector<std::byte> tail;
  if (!read_at(in, file_size - tail_size, tail_size, tail))
    return bad("cannot read the end of the file");
  int64_t eocd = -1;
  for (int64_t i = static_cast<int64_t>(tail_size - kEocdSize); i >= 0; --i) {
    if (le(&tail[i], 4) == kEocdSignature) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return bad("no end-of-central-directory record (truncated or not a zip file)");
  const std::byte* e = &tail[eocd];
  uint64_t count = le(e + 10, 2), dir_size = le(e + 12, 4), dir_offset = le(e + 16, 4);
  if (count == 0xFFFF || dir_size == 0xFFFFFFFF || dir_offset == 0xFFFFFFFF) {  // zip64
    const uint64_t eocd_pos = file_size - tail_size + eocd;
    std::vector<std::byte> loc, rec;
    if (eocd_pos < kZip64LocatorSize ||
        !read_at(in, eocd_pos - kZip64LocatorSize, kZip64LocatorSize, loc) ||
        le(loc.data(), 4) != kZip64LocatorSignature) {
      return bad("missing zip64 locator");
    }
    const uint64_t rec_pos = le(loc.data() + 8, 8);
    if (rec_pos > file_size - kZip64EocdSize || !read_at(in, rec_pos, kZip64EocdSize, rec) ||
        le(rec.data(), 4) != kZip64EocdSignature) {
      return bad("bad zip64 end-of-central-directory record");
    }
    count = le(rec.data() + 32, 8);
    dir_size = le(rec.data() + 40, 8);
    dir_offset = le(rec.data() + 48, 8);
  }
  if (dir_offset > file_size || dir_size > file_size - dir_offset ||
      dir_size > kMaxCentralDirectory || count > dir_size / kCentralHeaderSize) {
    return bad("central directory out of bounds");
  }
  std::vector<std::byte> dir;
  if (!read_at(in, dir_offset, dir_size, dir)) return bad("cannot read the central directory");
  std::vector<Entry> entries;
  size_t pos = 0;
  for (uint64_t i = 0; i < count; ++i) {
    if (dir_size - pos < kCentralHeaderSize || le(&dir[pos], 4) != kCentralSignature) {
      return bad("bad central directory entry " + std::to_string(i));
    }
    const std::byte* h = &dir[pos];
    uint64_t comp = le(h + 20, 4), size = le(h + 24, 4), offset = le(h + 42, 4);
    const size_t name_len = le(h + 28, 2), extra_len = le(h + 30, 2), comment_len = le(h + 32, 2);
    if (dir_size - pos - kCentralHeaderSize < name_len + extra_len + comment_len) {
      return bad("central directory entry " + std::to_string(i) + " out of bounds");
    }
    Entry entry;
    entry.name.assign(reinterpret_cast<const char*>(h + kCentralHeaderSize), name_len);
    // zip64 extended information: the 64-bit values of the fields that read 0xFFFFFFFF.
    const std::byte* x = h + kCentralHeaderSize + name_len;
    for (size_t j = 0; j + 4 <= extra_len;) {
      const uint64_t id = le(x + j, 2), len = le(x + j + 2, 2);
      if (j + 4 + len > extra_len) break;
      if (id == 1) {
        size_t k = j + 4;
        for (uint64_t* field : {&size, &comp, &offset}) {
          if (*field != 0xFFFFFFFF) continue;
          if (k + 8 > j + 4 + len) return bad("bad zip64 field in entry '" + entry.name + "'");
          *field = le(x + k, 8);
          k += 8;
        }
      }
      j += 4 + len;
    }
    if (offset > file_size || comp > file_size - offset) {
      return bad("entry '" + entry.name + "' extends past the end of the file (truncated?)");
    }
    entry.size = size;
    entry.stored_size = comp;
    entry.offset = offset;
    entry.method = le(h + 10, 2);
    entry.flags = le(h + 8, 2);
    entry.crc = static_cast<uint32_t>(le(h + 16, 4));
    if (entry.method == kStored && entry.size != entry.stored_size) {
      return bad("stored entry '" + entry.name + "' has two sizes");
    }
    if (!entry.name.empty() && entry.name.back() != '/') entries.push_back(std::move(entry));
    pos += kCentralHeaderSize + name_len + extra_len + comment_len;
  }
  return entries;
}

}  // namespace

struct Pt2Archive::Impl {
  std::string path;
  uint64_t file_size = 0;
  std::vector<std::string> names;                     ///< top folder stripped
  std::map<std::string, Entry, std::less<>> entries;  ///< by stripped name
  bool has_top_folder = false;
};

Pt2Archive::Pt2Archive(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Pt2Archive::Pt2Archive(Pt2Archive&&) noexcept = default;
Pt2Archive& Pt2Archive::operator=(Pt2Archive&&) noexcept = default;
Pt2Archive::~Pt2Archive() = default;

Expected<Pt2Archive> Pt2Archive::open(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) return read_error(path, ENOENT);
  if (std::filesystem::is_directory(status)) return read_error(path, EISDIR);
  std::ifstream in(path, std::ios::binary);
  if (!in) return read_error(path, errno);
  in.seekg(0, std::ios::end);
  const auto file_size = static_cast<uint64_t>(in.tellg());
  Expected<std::vector<Entry>> entries = read_directory(in, file_size);
  if (!entries) return invalid_input("'" + path + "' is " + entries.status().message());

  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->file_size = file_size;
  // PyTorch puts every entry under one top folder; strip it when all entries share it.
  const std::string& first = entries->empty() ? std::string() : entries->front().name;
  const std::string top = first.substr(0, first.find('/') + 1);
  impl->has_top_folder =
      !top.empty() && std::all_of(entries->begin(), entries->end(), [&](const Entry& e) {
        return e.name.size() > top.size() && e.name.compare(0, top.size(), top) == 0;
      });
  for (Entry& e : *entries) {
    std::string name = impl->has_top_folder ? e.name.substr(top.size()) : e.name;
    impl->names.push_back(name);
    impl->entries.emplace(std::move(name), std::move(e));
  }
  return Pt2Archive(std::move(impl));
}

const std::string& Pt2Archive::path() const { return impl_->path; }
const std::vector<std::string>& Pt2Archive::records() const { return impl_->names; }
bool Pt2Archive::has(std::string_view name) const {
  return impl_->entries.find(name) != impl_->entries.end();
}

std::optional<uint64_t> Pt2Archive::size(std::string_view name) const {
  auto it = impl_->entries.find(name);
  if (it == impl_->entries.end()) return std::nullopt;
  return it->second.size;
}

Expected<std::vector<std::byte>> Pt2Archive::read(std::string_view name, uint64_t max_bytes) const {
  const std::string where = "'" + impl_->path + "': record '" + std::string(name) + "'";
  const std::optional<uint64_t> expected_size = size(name);
  if (!expected_size) return invalid_input(where + " is missing");
  if (*expected_size > max_bytes) {
    return invalid_input(where + " is " + std::to_string(*expected_size) +
                         " bytes, more than the limit of " + std::to_string(max_bytes));
  }
  if (!impl_->has_top_folder)
    return invalid_input("'" + impl_->path + "': archive entries are not under a top folder");
  const Entry& entry = impl_->entries.find(name)->second;
  if (entry.method != kStored || (entry.flags & kEncryptedFlag) != 0) {
    return unsupported(
        where + " is " +
        ((entry.flags & kEncryptedFlag) != 0
             ? std::string("encrypted")
             : "compressed (zip method " + std::to_string(entry.method) + ")") +
        "; infernoc reads archives whose records are stored, as PyTorch writes them");
  }
  std::ifstream in(impl_->path, std::ios::binary);
  std::vector<std::byte> header;
  if (!in || !read_at(in, entry.offset, kLocalHeaderSize, header) ||
      le(header.data(), 4) != kLocalSignature) {
    return invalid_input(where +
                         " has no local header where the directory points (corrupt archive)");
  }
  // The local header repeats the name and may carry its own extra field (PyTorch pads records to
  // 64-byte alignment there); the data follows both.
  const uint64_t data_at =
      entry.offset + kLocalHeaderSize + le(header.data() + 26, 2) + le(header.data() + 28, 2);
  if (data_at > impl_->file_size || entry.size > impl_->file_size - data_at) {
    return invalid_input(where + " extends past the end of the file (truncated archive)");
  }
  std::vector<std::byte> bytes;
  if (!read_at(in, data_at, static_cast<size_t>(entry.size), bytes)) {
    return invalid_input(where + " cannot be read (truncated archive)");
  }
  if (crc32(bytes.data(), bytes.size()) != entry.crc) {
    return invalid_input(where + " fails its CRC check (corrupt archive)");
  }
  return bytes;
}

}  // namespace inferno::frontend
