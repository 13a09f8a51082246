// Shared by the pass tests (test/unit/passes_*.cpp): IR text in, IR text out, and the graph's
// numbers before and after on the reference interpreter.
#pragma once

#include <string>
#include <vector>

#include "frontend/frontend.h"
#include "ir/graph.h"
#include "support/test_support.h"

namespace inferno::test {

/// How closely a pass must reproduce the graph's outputs (Tolerance: support/test_support.h).
/// Bit for bit (signed zeros and NaN payloads included).
inline constexpr Tolerance kBitExact{};
/// torch.testing's fp32 tolerances: for a rewrite that rounds once where the graph rounded twice.
inline constexpr Tolerance kFp32{1.3e-6, 1e-5};

/// Runs `passes` on `input` and checks the printed result against `expected` (parsed and printed
/// again, so it may be written loosely), and both graphs' outputs on random inputs (3 seeds).
void check_pass(const std::vector<std::string>& passes, const std::string& input,
                const std::string& expected, Tolerance tolerance = kBitExact);
/// check_pass for a graph the passes must leave as it is.
void check_unchanged(const std::vector<std::string>& passes, const std::string& input);
/// Checks that `before` and `after` give the same outputs on `inputs`.
void check_same_outputs(const ir::Graph& before, const ir::Graph& after,
                        const std::vector<ir::Tensor>& inputs, Tolerance tolerance);
/// check_same_outputs on random inputs of `before`'s types (2 seeds).
void check_same_on_random_inputs(const ir::Graph& before, const ir::Graph& after,
                                 Tolerance tolerance);
/// IR text of a constant's `count` values (i % 13 - 6) * step, "[-6 step, ...]": small multiples
/// of a power-of-two step are exact in every float dtype.
std::string stepped_constants(int64_t count, double step);

/// The fixture models and the forms each was exported in.
const std::vector<std::string>& fixture_models();
const std::vector<std::string>& fixture_forms();
/// Loads test/fixtures/<model>/<form>, with input specs from manifest.json (TorchScript needs
/// them).
ir::Graph load_fixture(const std::string& model, const std::string& form);

/// The IR text with source locations dropped and every value renamed by position: v0, v1, ...
/// over inputs, then constants, then node outputs, so that graphs whose names came from
/// different exports compare by structure, types and constant data.
std::string canonical_text(ir::Graph graph);

}  // namespace inferno::test
