#include "support/stored_zip.h"

#include "support/crc32.h"

namespace inferno::test {
namespace {

constexpr uint32_t kLocalSignature = 0x04034b50, kCentralSignature = 0x02014b50,
                   kEndSignature = 0x06054b50;
constexpr size_t kLocalHeaderSize = 30;

void put(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((value >> (8 * i)) & 0xFF);
}

uint64_t get(std::string_view in, size_t at, int bytes) {
  uint64_t value = 0;
  for (int i = bytes - 1; i >= 0; --i) value = (value << 8) | static_cast<uint8_t>(in[at + i]);
  return value;
}

}  // namespace

std::string stored_zip(const ZipRecords& records) {
  std::string out, dir;
  for (const auto& [name, data] : records) {
    const uint64_t offset = out.size();
    const uint32_t crc = crc32(data);
    put(out, kLocalSignature, 4), put(out, 20, 2), put(out, 0, 2), put(out, 0, 2), put(out, 0, 4);
    put(out, crc, 4), put(out, data.size(), 4), put(out, data.size(), 4);
    put(out, name.size(), 2), put(out, 0, 2);
    out += name;
    out += data;
    put(dir, kCentralSignature, 4), put(dir, 20, 2), put(dir, 20, 2), put(dir, 0, 2),
        put(dir, 0, 2), put(dir, 0, 4);
    put(dir, crc, 4), put(dir, data.size(), 4), put(dir, data.size(), 4);
    put(dir, name.size(), 2), put(dir, 0, 2), put(dir, 0, 2), put(dir, 0, 2), put(dir, 0, 2),
        put(dir, 0, 4);
    put(dir, offset, 4);
    dir += name;
  }
  const uint64_t dir_offset = out.size();
  out += dir;
  put(out, kEndSignature, 4), put(out, 0, 2), put(out, 0, 2), put(out, records.size(), 2),
      put(out, records.size(), 2);
  put(out, dir.size(), 4), put(out, dir_offset, 4), put(out, 0, 2);
  return out;
}

std::optional<ZipRecords> read_stored_zip(std::string_view image) {
  ZipRecords records;
  size_t at = 0;
  while (image.size() - at >= 4 && get(image, at, 4) == kLocalSignature) {
    if (image.size() - at < kLocalHeaderSize) return std::nullopt;
    const uint64_t flags = get(image, at + 6, 2), method = get(image, at + 8, 2);
    const uint64_t size = get(image, at + 18, 4), stored_size = get(image, at + 22, 4);
    const uint64_t name_length = get(image, at + 26, 2), extra_length = get(image, at + 28, 2);
    if (method != 0 || (flags & 0x8) != 0 || size != stored_size) return std::nullopt;
    const uint64_t data_at = at + kLocalHeaderSize + name_length + extra_length;
    if (data_at > image.size() || size > image.size() - data_at) return std::nullopt;
    records.emplace_back(std::string(image.substr(at + kLocalHeaderSize, name_length)),
                         std::string(image.substr(data_at, size)));
    at = data_at + size;
  }
  if (records.empty()) return std::nullopt;
  return records;
}

}  // namespace inferno::test
