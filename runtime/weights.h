// A model's weights blob in host memory: the embedded one, or the external file beside the .so,
// read with a size bound and verified against the manifest checksum before anything uses it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "inferno/model_abi.h"

namespace inferno::runtime {

class HostWeights {
 public:
  /// The weights of `model` loaded from `so_path`: IO when the external file cannot be read,
  /// WEIGHTS_CORRUPT when its size or the checksum differs from the manifest.
  static HostWeights read(const inferno_model& model, const std::string& so_path);

  const void* data() const { return data_; }
  uint64_t size() const { return size_; }

 private:
  const void* data_ = nullptr;
  uint64_t size_ = 0;
  std::unique_ptr<std::byte[]> owned_;  // the external file's bytes; empty when embedded
};

/// "0x" followed by 16 lower-case hex digits.
std::string hex64(uint64_t value);

}  // namespace inferno::runtime
