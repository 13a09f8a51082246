// The source model's fingerprint recorded in a model.so's manifest.
#pragma once

#include <string>

#include "support/status.h"

namespace inferno::driver {

/// SHA-256 of the file's bytes, as 64 lower-case hex digits (what `sha256sum` prints). The file
/// is streamed, not read whole. Unreadable: an I/O error.
Expected<std::string> hash_file_hex(const std::string& path);

}  // namespace inferno::driver
