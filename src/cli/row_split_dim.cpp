#include "cli/row_split_dim.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "passes/row_split.h"

namespace inferno::cli {
namespace {

// One flag per user input of `graph`: whether it has the dim.
std::vector<bool> split_inputs(const ir::Graph& graph, const frontend::DynamicDim& dim) {
  std::vector<bool> flags(graph.num_user_inputs(), false);
  for (const frontend::DimUse& use : dim.uses) {
    if (use.input >= 0 && static_cast<size_t>(use.input) < flags.size()) flags[use.input] = true;
  }
  return flags;
}

// Why the dim cannot be split whatever the graph computes, or "".
std::string not_a_candidate(const ir::Graph& graph, const frontend::DynamicDim& dim) {
  if (graph.num_states() > 0) return "the model has state";
  if (dim.uses.empty()) return "no input has it";
  for (const frontend::DimUse& use : dim.uses) {
    if (use.axis != 0) return "an input has it after its first axis";
  }
  if (dim.max < 2) return "its range is unbounded or below 2";
  if (dim.derived) return "it is tied to another dim";
  if (dim.read_as_value) return "the model computes with its size";
  return "";
}

}  // namespace

Expected<std::string> row_split_dim(const ir::Graph& graph, const DynamicDims& dims,
                                    const LoadAt& load_at) {
  for (const auto& [symbol, dim] : dims) {
    if (const std::string why = not_a_candidate(graph, dim); !why.empty()) {
      spdlog::debug("dynamic dim {}: runs only at its compiled sizes ({})", symbol, why);
      continue;
    }
    Status split = Status::ok();
    if (dim.value >= 2) {
      split = passes::check_row_split(graph, split_inputs(graph, dim), dim.row_indices, dim.value);
    } else {
      const int64_t size = std::max<int64_t>(2, dim.min);
      INFERNO_ASSIGN_OR_RETURN(const LoadedAt other, load_at(symbol, size));
      split = passes::check_row_split(other.graph, split_inputs(other.graph, dim),
                                      other.row_indices, size);
    }
    if (split.is_ok()) return symbol;
    spdlog::info("dynamic dim {}: runs only at its compiled sizes, since {}{}", symbol,
                 split.message(), split.node().empty() ? "" : " (at %" + split.node() + ")");
  }
  return std::string();
}

bool variant_keeps_row_split(const ir::Graph& graph, const DynamicDims& dims,
                             const std::string& symbol, int64_t size) {
  if (size < 2) return true;
  const frontend::DynamicDim& dim = dims.at(symbol);
  const Status split =
      passes::check_row_split(graph, split_inputs(graph, dim), dim.row_indices, size);
  if (!split.is_ok()) {
    spdlog::info("dynamic dim {}: runs only at its compiled sizes, since at {} {}", symbol, size,
                 split.message());
  }
  return split.is_ok();
}

std::vector<int64_t> row_split_sizes(const frontend::DynamicDim& dim, size_t limit) {
  const int64_t lo = std::max<int64_t>(1, dim.min);
  std::vector<int64_t> sizes;
  for (int64_t n = lo; n < 2 * lo && n <= dim.max; ++n) sizes.push_back(n);
  for (int64_t p = 1; p < dim.max && p <= (int64_t{1} << 40); p *= 2) {
    if (p >= 2 * lo) sizes.push_back(p);
  }
  if (sizes.back() != dim.max) sizes.push_back(dim.max);
  if (sizes.size() > limit) return {};
  return sizes;
}

}  // namespace inferno::cli
