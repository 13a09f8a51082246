// Running a size no entry point was compiled for, along the model's split dim (model_dims.h):
// a batch of 13 as runs of 8, 4 and 1 rows, each entry point reading its rows of the caller's
// inputs and writing its rows of the caller's outputs in place. Planning is pure host logic, so
// the CPU tests reach it; the session carries the plan out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "inferno/runtime.h"
#include "runtime/dynamic_dims.h"
#include "runtime/entry_points.h"

namespace inferno::runtime {

/// One run of a split call: entry point `entry` on rows [first_row, first_row + rows).
struct RowChunk {
  int32_t entry = 0;
  int64_t first_row = 0;
  int64_t rows = 0;
  bool staged = false;  ///< its rows of some tensor start unaligned: it runs on the staging copy
};

/// Input and output buffers are 16-byte aligned (runtime.md); a chunk whose rows start elsewhere
/// runs on the session's staging copy of them.
constexpr int64_t kRowAlignment = 16;
/// Chunks of fewer rows than this may be staged; larger ones always start aligned with the
/// compiled sizes infernoc chooses (descending powers of two), and are refused otherwise.
constexpr int64_t kMaxStagedRows = 16;

/// The bytes one tensor's rows take in the staging buffer: the split inputs' then the outputs',
/// one after the other, each slot 256-byte aligned.
inline uint64_t staging_slot_bytes(int64_t bytes) {
  return (static_cast<uint64_t>(bytes) + 255) / 256 * 256;
}

struct RowSplitPlan {
  std::vector<RowChunk> chunks;  ///< in row order, covering every row once
  int64_t rows = 0;              ///< the call's size of the split dim
  /// Bytes per row of each input and output (0: an input without the dim, read whole by each run).
  std::vector<int64_t> input_row_bytes, output_row_bytes;
  /// The shapes the call's tensors must have (the outputs' first dims scaled to the rows).
  std::vector<std::vector<int64_t>> input_shapes, output_shapes;
};

/// Plans a call whose inputs fit no entry point exactly, along the split dim of `dims`: "" and
/// `plan` filled, or why not (no split dim; inputs that differ from every entry point in more than
/// its size, or disagree on it; a size outside its range or that is no sum of compiled sizes by
/// the rule: each run the largest compiled size that leaves at least the smallest; a chunk of
/// kMaxStagedRows rows or more starting unaligned). "" is never returned for a size some entry
/// point has. Reads a caller's shape only where its rank and pointer allow. Allocates.
std::string plan_row_split(const DynamicDims& dims, const EntryPoints& entries,
                           const inferno_tensor* inputs, int32_t count, RowSplitPlan& plan);

/// The refusal of `inputs` that no entry point takes and no split plan runs (`split_why`: the
/// plan's reason): in the dims' terms where they explain it, else, for a model with a split dim,
/// why the plan failed, else which inputs the variants of model `path` take.
std::string refusal_text(const DynamicDims& dims, const EntryPoints& entries,
                         const std::string& path, const inferno_tensor* inputs, int32_t count,
                         const std::string& split_why);

/// Whether `dims` has a dim a run may be split along.
bool has_split_dim(const DynamicDims& dims);

/// Bytes a session keeps for staging unaligned chunks: over the entry points of fewer than
/// kMaxStagedRows rows, the most their split inputs and outputs take, each 256-byte aligned; 0 for
/// a model without a split dim.
uint64_t row_staging_bytes(const DynamicDims& dims, const EntryPoints& entries);

}  // namespace inferno::runtime
