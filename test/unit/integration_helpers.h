// What the fixture integration tests share: a fixture's numbered .npy files, and the check of a
// TorchScript-only fixture against PyTorch's outputs.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "cli/tensor_io.h"
#include "ir/graph.h"
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

/// Per-family checks of a fixture's graph, as loaded (false) or after the default pipeline (true).
using GraphCheck = std::function<void(const ir::Graph&, bool optimized)>;

/// test/fixtures/<model>/model.pt (TorchScript) loads with its inputs' types, verifies, and the
/// reference reproduces PyTorch's `num_outputs` outputs within rtol/atol, as loaded and after the
/// default pipeline; `check_graph` (optional) looks at the graph in both states.
void check_torchscript_fixture(const std::string& model, size_t num_outputs, double rtol,
                               double atol, const GraphCheck& check_graph = {});

}  // namespace inferno::test
