// Zip archives with every entry stored (not compressed), as PyTorch writes .pt2 and .pt files:
// the writer that tests and the .pt2 fuzzer use to build archives from edited records, and a
// reader for archives of that kind held in memory. Test-only: the compiler's reader is
// frontend/pt2_archive.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace inferno::test {

/// Entry name (as stored, top folder included) and contents, in archive order.
using ZipRecords = std::vector<std::pair<std::string, std::string>>;

/// A zip file holding `records`, each stored with its CRC, no extra fields, no zip64.
std::string stored_zip(const ZipRecords& records);

/// The entries of a zip image whose entries are all stored, found by walking the local headers
/// from the start (PyTorch's padding extra fields included). nullopt for anything else: a
/// compressed entry, sizes in a data descriptor, or a header that runs past the end. Safe on any
/// bytes.
std::optional<ZipRecords> read_stored_zip(std::string_view image);

}  // namespace inferno::test
