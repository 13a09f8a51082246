// Kernel-by-kernel verification (the logic behind `infernoc verify`): each node's output as a
// device computed it, against the reference interpreter evaluated on the device's own inputs to
// that node, so every kernel is judged alone and the first node out of tolerance is the one whose
// kernel is wrong (not one downstream of a small, legitimate rounding difference).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "reference/rounding_allowance.h"
#include "support/status.h"

namespace inferno::reference {

/// |actual - expected| <= atol + rtol * |expected|, as torch.testing.assert_close.
struct Tolerance {
  double rtol = 0;
  double atol = 0;
  bool exact() const { return rtol == 0 && atol == 0; }
};

/// torch.testing's defaults for `dtype`: f32 1.3e-6 / 1e-5, f16 1e-3 / 1e-5, bf16 1.6e-2 / 1e-5,
/// f64 1e-7 / 1e-7; integers and bool exact.
Tolerance default_tolerance(ir::DType dtype);

/// The first flat index where `actual` is out of tolerance of `expected` (NaN matches only NaN,
/// an infinity only itself), or nullopt. The tensors must have the same type.
std::optional<int64_t> first_difference(const ir::Tensor& expected, const ir::Tensor& actual,
                                        const Tolerance& tolerance);

struct NodeMismatch {
  int32_t node = -1;
  int64_t index = 0;  ///< flat, row-major
  double expected = 0, actual = 0;
  /// What applied at `index`: the dtype's rtol, and its atol plus the node's rounding allowance
  /// there (reference/rounding_allowance.h).
  Tolerance tolerance;
  std::string tolerance_for;  ///< the allowance's "a 2048-term gemm", or empty: the dtype's alone
};

struct NodeCheck {
  std::optional<NodeMismatch> mismatch;  ///< the first node out of tolerance, in node order
  int64_t nodes_compared = 0;
  int64_t values_compared = 0;
};

/// What the device computed for node `index`'s output, or null when it was not observed (a view
/// the device never materialized): then the reference's value stands in for it downstream.
using ObservedFn = std::function<const ir::Tensor*(int32_t index)>;

/// Evaluates the graph node by node on `inputs` (one per graph input), each node on the observed
/// values of its inputs where there are any, and compares each observed output with it: within
/// the dtype's tolerance, or else within it plus the node's rounding allowance (computed only for
/// a node the dtype's tolerance alone rejects). Stops at the first node out of tolerance. Errors:
/// the interpreter's, or an observed tensor of the wrong type (invalid input).
Expected<NodeCheck> check_nodes(const ir::Graph& graph, const std::vector<ir::Tensor>& inputs,
                                const ObservedFn& observed, const AllowanceOptions& options = {});

/// "all N values match (M nodes)", or the first mismatch: "%add_2 (add) at model.py:12: element
/// [1, 3] is 0.5, expected 0.25 (f32 tolerance: rtol 1.3e-06, atol 1e-05)", or for a node with
/// an allowance "... (f16 tolerance for a 2048-term gemm: rtol 0.001, atol 0.00031)".
std::string describe_check(const ir::Graph& graph, const NodeCheck& check);

}  // namespace inferno::reference
