// Variants: one library compiled for several values of a model's dynamic dims (--specialize), so
// that an LLM's prompt and its one-token decode steps run from one model.so sharing weights and
// state. Until infernoc has dynamic shapes, each variant is a static graph.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cli/options.h"
#include "frontend/input_spec.h"
#include "ir/graph.h"
#include "support/status.h"

namespace inferno::cli {

/// One variant: a value for each dynamic dim it fixes, by symbol ("s0" -> 16).
using Specialization = std::map<std::string, int64_t, std::less<>>;

/// The variants --specialize names, or none: each SYMBOL=V1,V2,... one dynamic dim's sizes, and
/// with several dims every combination of their sizes (at most 16 variants).
Expected<std::vector<Specialization>> specializations(const CliOptions& options);

/// The lengths a model with state and one dynamic dim (transformers' decoder recipe: the
/// sequence length of input_ids and cache_position) gets without --specialize.
inline constexpr int64_t kDefaultLengths[] = {1, 16, 64, 128};

/// Without --specialize: for a model with state and exactly one dynamic dim, one variant per
/// default length within the dim's export range (the one-token decode step first); for a model
/// whose runs split along the dim `split` (cli/row_split_dim.h), one variant per size of
/// row_split_sizes; else none (the dims keep the sizes the model was exported with).
std::vector<Specialization> default_specializations(
    const ir::Graph& graph, const std::map<std::string, frontend::DynamicDim, std::less<>>& dims,
    const std::string& split);

/// The variants --specialize named, each once per size of the split dim `split` (row_split_sizes),
/// where it names other dims only and the product stays within 16; else `variants` unchanged.
std::vector<Specialization> with_split_sizes(std::vector<Specialization> variants,
                                             const std::string& split,
                                             const frontend::DynamicDim& dim);

/// The ranges --dim SYMBOL=LO..HI gives (0 <= LO <= HI), by symbol.
Expected<std::map<std::string, std::pair<int64_t, int64_t>, std::less<>>> dim_ranges(
    const CliOptions& options);

/// After the first load: every --dim names a dynamic dim of the model, and a dim some input has
/// is bounded (by the export or by --dim; a derived dim through its symbols) unless the command
/// line fixed its sizes (`sizes_given`: --input, --data or --specialize).
Status check_dim_bounds(const std::map<std::string, frontend::DynamicDim, std::less<>>& dims,
                        const CliOptions& options, bool sizes_given);

/// "s0=1, s0=16, s0=64" (with two dims "s0=1 s1=2, s0=1 s1=8, ...") for a log line.
std::string describe_variants(const std::vector<Specialization>& variants);

}  // namespace inferno::cli
