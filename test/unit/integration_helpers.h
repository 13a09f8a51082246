// What the fixture integration tests share: a fixture's numbered .npy files.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "cli/tensor_io.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno::test {

/// test/fixtures/<model>/<stem>0.npy, <stem>1.npy, ... up to the first missing one.
inline std::vector<ir::Tensor> read_fixture_tensors(const std::string& model,
                                                    const std::string& stem) {
  std::vector<ir::Tensor> tensors;
  for (int i = 0;; ++i) {
    const std::string path = fixture_path(model + "/" + stem + std::to_string(i) + ".npy");
    if (!std::filesystem::exists(path)) break;
    auto t = cli::read_tensor(path);
    REQUIRE(t.has_value());
    tensors.push_back(std::move(*t));
  }
  return tensors;
}

}  // namespace inferno::test
