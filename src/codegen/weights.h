// The weights blob: every constant the generated code reads from memory, in graph.constants()
// order, each at a 256-byte aligned offset, then the initial values of the states that do not
// start as zeros. Rank-0 constants read only by elementwise and fused_elementwise nodes are not
// stored: the generated kernels hold them as literals. The variants of a model (other input
// shapes of one model, compiled into one library) share one blob: a constant whose bytes another
// variant stored already is stored once.
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
  /// By state: the offset of its initial value, or -1 when it starts as zeros.
  std::vector<int64_t> state_offset;
  std::vector<std::byte> blob;  ///< the bytes (the first variant's layout only; see bytes)
  int64_t bytes = 0;            ///< the blob's size
  uint64_t checksum = 0;        ///< inferno_weights_checksum of the blob

  bool stored(ir::ValueId v) const { return offset.at(static_cast<size_t>(v)) >= 0; }
  bool is_inlined(ir::ValueId v) const { return inlined.at(static_cast<size_t>(v)); }
};

/// Lays out the constants of `graph`. A constant without data (elided in IR text) that the
/// generated code would need is an invalid-input error naming it.
Expected<WeightsLayout> layout_weights(const ir::Graph& graph);
/// Lays out one blob for several variants: one layout per graph, the bytes in the first.
Expected<std::vector<WeightsLayout>> layout_weights(const std::vector<const ir::Graph*>& graphs);

}  // namespace inferno::codegen
