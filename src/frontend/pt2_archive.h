// Reading PyTorch zip archives (.pt2 and TorchScript .pt) on our own, without LibTorch.
//
// open() reads the zip's central directory (names and sizes, bounds-checked against the file), so
// listing entries and checking a record's size never allocates more than the file holds. read()
// takes a record's bytes from its local header and checks its CRC. Records must be stored, as
// PyTorch writes them; a compressed or encrypted one is an unsupported-feature error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/status.h"

namespace inferno::frontend {

class Pt2Archive {
 public:
  /// Opens `path`. Errors: a missing or unreadable file (I/O), not a zip or a damaged directory
  /// (invalid input).
  static Expected<Pt2Archive> open(const std::string& path);

  Pt2Archive(Pt2Archive&&) noexcept;
  Pt2Archive& operator=(Pt2Archive&&) noexcept;
  ~Pt2Archive();

  const std::string& path() const;
  /// Entry names in archive order, without the top folder every PyTorch archive puts them under
  /// ("m/models/model.json" -> "models/model.json"). If the entries share no top folder, their
  /// names are listed as they are and read() fails (PyTorch's own readers refuse such archives).
  const std::vector<std::string>& records() const;
  bool has(std::string_view name) const;
  /// The record's uncompressed size in bytes; nullopt when there is no such record.
  std::optional<uint64_t> size(std::string_view name) const;
  /// The record's bytes. Errors: no such record, larger than `max_bytes`, truncated, or failing
  /// its CRC (invalid input); compressed or encrypted (unsupported).
  Expected<std::vector<std::byte>> read(std::string_view name, uint64_t max_bytes) const;

 private:
  struct Impl;
  explicit Pt2Archive(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace inferno::frontend
