// Helpers shared by the unit tests.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/tensor_type.h"
#include "reference/node_check.h"

namespace inferno::test {

/// test/fixtures/<relative>.
std::string fixture_path(const std::string& relative);
/// test/golden/<relative>.
std::string golden_path(const std::string& relative);
/// Whole file as a string; fails the current test if it cannot be read.
std::string read_text_file(const std::string& path);

/// A tensor of `type` with deterministic pseudo-random values in [-2, 2) (never all zeros).
ir::Tensor random_tensor(const ir::TensorType& type, uint64_t seed);

/// torch.testing.assert_close's default tolerances, as the node checker uses them.
using reference::default_tolerance;
using reference::Tolerance;

/// Parses IR text; fails the current test if it does not parse.
ir::Graph parse(const std::string& text);

/// GPT-2's attention layer after the optimizer, small, as IR text: one [1, 8, 48] q/k/v
/// projection sliced in three, each [1, 8, 2, 8] -> [1, 2, 8, 8] by reshape and permute (views
/// attention reads in place), the output permuted back, merged and negated into %z. `before`
/// goes before the attention, `after` before the return, `outputs` after its %z.
std::string gpt2_attention_layer(const std::string& before = "", const std::string& after = "",
                                 const std::string& outputs = "");

/// Max |a-b| <= atol + rtol*|b| elementwise (torch.testing.assert_close's rule); on failure the
/// returned string says where and by how much, else it is empty.
std::string compare_close(const ir::Tensor& actual, const ir::Tensor& expected, double rtol,
                          double atol);

/// Occurrences of `needle` in `text`.
inline int count_occurrences(const std::string& text, const std::string& needle) {
  int count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++count;
  return count;
}

}  // namespace inferno::test
