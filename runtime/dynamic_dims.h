// A model's dynamic dims (inferno/model_dims.h): read and checked once when the model loads, then
// used to say why a caller's shapes fit none of its entry points in the terms the user exported
// the model in (a dim outside its range, two inputs disagreeing on one, a size in the range that
// the library was not compiled for). Pure host logic, so the CPU tests reach it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "inferno/model_dims.h"
#include "runtime/entry_points.h"

namespace inferno::runtime {

/// Dim `axis` of input `input`.
struct DimUse {
  int32_t input = 0;
  int32_t axis = 0;
};

struct DynamicDim {
  std::string name;  ///< the export's symbol ("s77"), printable
  int64_t min = 0;
  int64_t max = -1;  ///< -1: unbounded
  std::vector<DimUse> uses;
  /// A run may be split along it (model_dims.h, split_dim; runtime/row_split.h).
  bool split = false;
};

using DynamicDims = std::vector<DynamicDim>;

/// The dims of `table` (null: none), checked against the entry points: at most kMaxDims dims and
/// kMaxDimUses uses, names of printable ASCII up to INFERNO_MODEL_DIM_NAME_MAX bytes, 0 <= min <=
/// max (or max -1), each use an input and axis that every entry point has; a split dim only as
/// the first axis of its inputs, of one size of at least 1 in each entry point, whose every output
/// has a first dim that is a multiple of it. ABI_MISMATCH naming `path` when the table breaks a
/// rule.
DynamicDims read_dynamic_dims(const inferno_model_dims* table, const EntryPoints& entries,
                              const std::string& path);

/// Why `inputs` fit no entry point, in the dims' terms, or "" when the dims do not explain it
/// (a wrong count, rank or dtype, a combination of compiled sizes with no variant, or a split
/// dim's size in its range, which runtime/row_split.h plans or refuses). Reads a caller's shape
/// only where its rank and pointer allow, so any tensors are safe to pass.
std::string dynamic_dims_error(const DynamicDims& dims, const EntryPoints& entries,
                               const inferno_tensor* inputs, int32_t count);

}  // namespace inferno::runtime
