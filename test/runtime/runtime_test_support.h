// Shared by the runtime tests: where the test model variants are, the good model's weights blob
// (read from the .so itself, so the tests never restate it), and small helpers.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "inferno/model_abi.h"

namespace inferno::test {

/// Path of test model variant `name` ("good", "bad_abi", "bad_checksum", "sm75", "external").
std::string model_path(const std::string& name);
/// The good model's own description (dlopen + entry point), for reference data.
const inferno_model& good_model_abi();
/// The good model's weights blob: w[32] then b[32].
std::vector<float> good_weights();
/// y = x * w + b computed on the host, as the model defines it.
std::vector<float> reference_output(const std::vector<float>& x);
/// 32 distinct inputs that are exact binary fractions (so device and host agree bitwise).
std::vector<float> sample_input(int seed);

/// Whether `text` contains `part` (works with Catch2 2.x and 3.x alike).
bool contains(const std::string& text, const std::string& part);

/// A fresh temporary directory, removed with its contents on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// Writes `bytes` to `path` (test setup; throws on failure).
void write_file(const std::filesystem::path& path, const void* bytes, size_t size);

}  // namespace inferno::test
