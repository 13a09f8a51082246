// CRC-32 as zip archives use it (polynomial 0xEDB88320, reflected, inverted at both ends).
#pragma once

#include <cstdint>
#include <string_view>

namespace inferno {

/// The CRC-32 of `size` bytes at `data`, continuing from `crc` (0 to start).
uint32_t crc32(const void* data, size_t size, uint32_t crc = 0);

inline uint32_t crc32(std::string_view data) { return crc32(data.data(), data.size()); }

}  // namespace inferno
