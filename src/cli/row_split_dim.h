// The dynamic dim a library may split a run along (passes/row_split.h: a batch of 13 run as 8, 4
// and 1 rows), and the sizes it is compiled for by default, so that every size of the dim's range
// is a sum of a few of them.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "frontend/input_spec.h"
#include "ir/graph.h"
#include "support/status.h"

namespace inferno::cli {

using DynamicDims = std::map<std::string, frontend::DynamicDim, std::less<>>;
/// A graph a LoadAt made, and the row indices its load recorded for the dim (a graph's own: each
/// load numbers its values).
struct LoadedAt {
  ir::Graph graph;
  std::vector<ir::ValueId> row_indices;
};
/// Loads the model with the dynamic dim `symbol` at `size` (the others as the last load had them).
using LoadAt = std::function<Expected<LoadedAt>(const std::string& symbol, int64_t size)>;

/// The dim a run may be split along, by symbol, or "" when none qualifies: the model has no state;
/// the dim is the first axis of every input that has it, bounded, not derived, and its size is
/// never read as a number (but as row indices); and the model's graph at a size of at least 2
/// (`graph` when its load bound the dim so, else one `load_at` makes) passes check_row_split. The
/// first qualifying dim in symbol order wins. Logs why a candidate does not qualify.
Expected<std::string> row_split_dim(const ir::Graph& graph, const DynamicDims& dims,
                                    const LoadAt& load_at);

/// Whether `graph`, a variant loaded with the split dim `symbol` at `size`, still passes
/// check_row_split (a size of 1 always does); logs why not. `dims`: as graph's load recorded
/// them (its row indices).
bool variant_keeps_row_split(const ir::Graph& graph, const DynamicDims& dims,
                             const std::string& symbol, int64_t size);

/// The sizes a split dim is compiled for without --specialize, ascending: lo .. 2 lo - 1 (lo, the
/// range's min, at least 1), the powers of two between, and the max. Any size n of the range is
/// then a sum in which each term but the last is the largest compiled size leaving at least lo
/// (the runtime's rule). Empty when they would be more than `limit`.
std::vector<int64_t> row_split_sizes(const frontend::DynamicDim& dim, size_t limit);

}  // namespace inferno::cli
