// Layout nodes that move no bytes. A value produced by reshape, permute, slice or expand is one
// strided view of an earlier value's bytes; codegen decides here, once per graph, which layout
// nodes it implements without a copy:
//  - kAlias: a reshape of a value whose bytes hold it contiguously (always, as before).
//  - kVirtual: the value is never materialized. Every consumer reads it as a view: a consumer
//    that takes strides (view_reader_inputs: attention's q, k and v; every input of an
//    elementwise op, fused_elementwise, cat and rotary; index_copy's source; constant_pad's x)
//    or another virtual layout node. Its readers get the first materialized value behind it (the
//    view's source), an element offset and strides, from resolve_view.
//  - kWrittenByProducer: a permute whose input's producer writes its result directly in the
//    permute's layout (attention's output, when the permute is that output's only reader), so the
//    permute's output is contiguous bytes that the producer wrote.
// The memory plan treats every one of them as an alias of the node's input (no buffer of its
// own; the group's bytes live until its last view reader runs), and the layout lowering emits a
// comment instead of a copy kernel. An input read through a view is never overwritten in place
// (its bytes are not the view's elements in order). To let another op read its inputs through
// views, add it to view_reader_inputs and make its lowering read through resolve_view.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "codegen/strided_view.h"
#include "ir/graph.h"

namespace inferno::codegen {

/// A value read in place: element (c_0, ..., c_{r-1}) of it is element offset + sum c_d *
/// view.strides[d] of `source`'s (contiguous) bytes; view.shape is the value's shape.
struct ValueView {
  ir::ValueId source = ir::kNoValue;
  int64_t offset = 0;
  StridedView view;
};

/// The strides of a tensor with `shape` and `strides` reshaped to `to` without moving elements
/// (PyTorch's view rule: a split or merge of dims only where the strides allow it), or nullopt.
std::optional<std::vector<int64_t>> reshape_strides(const ir::Shape& shape,
                                                    const std::vector<int64_t>& strides,
                                                    const ir::Shape& to);

/// The view of `node`'s output (a reshape, permute, slice or expand) given the view of its input;
/// nullopt when the composition is no single strided view (a reshape the strides cannot take)
/// or the node is no such layout op.
std::optional<ValueView> view_through(const ir::Graph& graph, const ir::Node& node,
                                      const ValueView& input);

enum class LayoutLowering : uint8_t {
  kMaterialized,       ///< not a view: a kernel writes the node's output into its own buffer
  kAlias,              ///< reshape of contiguous bytes
  kVirtual,            ///< never materialized: read through resolve_view
  kWrittenByProducer,  ///< permute of attention's output: attention writes this layout
};

struct ViewPlan {
  std::vector<LayoutLowering> lowering;  ///< by node index
  /// By node index: the layout the node's single output is written in, when its producer writes
  /// it through a view (the output strides; kNoValue source otherwise). Only attention today.
  std::vector<ValueView> output_view;
  std::vector<int32_t> producer;  ///< by ValueId: the node defining it, or -1

  /// True when the node's output shares its input's bytes (no buffer of its own).
  bool aliases_input(int32_t node) const {
    return lowering.at(static_cast<size_t>(node)) != LayoutLowering::kMaterialized;
  }
  /// True when `value` is a virtual node's output: its readers read it through resolve_view.
  bool is_virtual(ir::ValueId value) const {
    const int32_t n = producer.at(static_cast<size_t>(value));
    return n >= 0 && lowering.at(static_cast<size_t>(n)) == LayoutLowering::kVirtual;
  }
};

/// Which strided views a view-reading input takes.
enum class ViewAccess : uint8_t {
  kHeadRows,  ///< attention's q, k, v: 4-D, the last dim contiguous (rows of a head)
  kIndexed,   ///< literal index arithmetic per element: any view with non-negative strides
};

struct ViewReaderInput {
  int32_t position = 0;  ///< the node's input
  ViewAccess access = ViewAccess::kIndexed;
};

/// The inputs of `node` that its lowering reads through strided views, and which views each
/// takes: attention's q, k and v (kHeadRows); every input of an elementwise op,
/// fused_elementwise, cat and rotary, index_copy's source and constant_pad's x (kIndexed). Empty
/// for every other op.
std::vector<ViewReaderInput> view_reader_inputs(const ir::Node& node);

/// True when an input read with `access` can read `view`.
bool view_access_accepts(ViewAccess access, const StridedView& view);

/// Decides every layout node's lowering for a verified graph.
ViewPlan plan_views(const ir::Graph& graph);

/// How a view reader finds `value`: its first materialized value behind the virtual nodes, the
/// offset and strides (the value itself, contiguous, when it is materialized).
ValueView resolve_view(const ir::Graph& graph, const ViewPlan& views, ir::ValueId value);

}  // namespace inferno::codegen
