// SHA-256 (FIPS 180-4), for content keys that must not collide by accident (the build cache).
// Incremental: feed bytes with update() in any pieces, then finish() once.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace inferno {

class Sha256 {
 public:
  using Digest = std::array<uint8_t, 32>;

  Sha256();
  void update(const void* data, size_t size);
  void update(std::string_view text) { update(text.data(), text.size()); }
  /// The digest of everything fed so far; the object must not be updated afterwards.
  Digest finish();

  /// Whether this CPU has SHA instructions (the x86 SHA extensions), which every hasher but
  /// portable()'s uses; the digests are the same either way.
  static bool hardware_accelerated();
  /// A hasher that always takes the portable loop (to compare the two paths).
  static Sha256 portable();

 private:
  void compress_blocks(const uint8_t* blocks, size_t count);
  void compress(const uint8_t* block);

  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t total_bytes_ = 0;
  bool hardware_;
};

/// Lower-case hex of a digest (64 characters).
std::string to_hex(const Sha256::Digest& digest);

/// The hex SHA-256 of `data`.
std::string sha256_hex(std::string_view data);

}  // namespace inferno
