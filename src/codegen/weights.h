// The weights blob: every constant the generated code reads from memory, in graph.constants()
// order, each at a 256-byte aligned offset. Rank-0 constants read only by elementwise and
// fused_elementwise nodes are not stored: the generated kernels hold them as literals.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ir/graph.h"
#include "support/status.h"

namespace inferno::codegen {

struct WeightsLayout {
  std::vector<int64_t> offset;  ///< by ValueId: offset in the blob, or -1 when not stored
  std::vector<bool> inlined;    ///< by ValueId: a rank-0 constant written as a literal
  std::vector<std::byte> blob;
  uint64_t checksum = 0;  ///< inferno_fnv1a64 of blob

  bool stored(ir::ValueId v) const { return offset.at(static_cast<size_t>(v)) >= 0; }
  bool is_inlined(ir::ValueId v) const { return inlined.at(static_cast<size_t>(v)); }
};

/// Lays out the constants of `graph`. A constant without data (elided in IR text) that the
/// generated code would need is an invalid-input error naming it.
Expected<WeightsLayout> layout_weights(const ir::Graph& graph);

}  // namespace inferno::codegen
