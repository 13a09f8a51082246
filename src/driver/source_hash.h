// The source model's fingerprint recorded in a model.so's manifest.
#pragma once

#include <string>

#include "support/status.h"

namespace inferno::driver {

/// FNV-1a 64 (inferno_fnv1a64 of include/inferno/model_abi.h) of the file's bytes, as 16
/// lower-case hex digits. The file is streamed, not read whole. Unreadable: an I/O error.
Expected<std::string> hash_file_hex(const std::string& path);

}  // namespace inferno::driver
