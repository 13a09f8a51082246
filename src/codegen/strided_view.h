// How an output element finds its source element: one stride per output dim (stride 0 repeats
// the source along that dim). Broadcasting, transpose, permute, expand and slice (from an offset)
// are all such views;
// the generated kernels turn a coalesced view into literal index arithmetic.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/tensor_type.h"

namespace inferno::codegen {

/// Output element (c_0, ..., c_{r-1}) of a row-major `shape` reads source offset sum c_d *
/// strides[d].
struct StridedView {
  ir::Shape shape;
  std::vector<int64_t> strides;  ///< in source elements

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  bool operator==(const StridedView&) const = default;
};

/// A contiguous source of shape `from` read as if broadcast to `to` (NumPy rules, already checked).
StridedView broadcast_view(const ir::Shape& from, const ir::Shape& to);
/// `view` read as if broadcast to `to`: again one view, whose new leading dims and broadcast
/// size-1 dims have stride 0.
StridedView broadcast_view(const StridedView& view, const ir::Shape& to);
/// A contiguous source of shape `in` read in the order `dims` (output dim j is input dim dims[j]).
StridedView permute_view(const ir::Shape& in, const std::vector<int64_t>& dims);
/// The elements x[starts : ends : steps] of a contiguous source of shape `in`, as a view of shape
/// `out` (the slice's output) from the source element slice_offset(in, starts).
StridedView slice_view(const ir::Shape& in, const ir::Shape& out,
                       const std::vector<int64_t>& steps);
/// The largest source offset the view reads (0 when it has no elements): sum (size - 1) * stride.
int64_t max_offset(const StridedView& view);
/// The flat source offset of the element at `starts`.
int64_t slice_offset(const ir::Shape& in, const std::vector<int64_t>& starts);
/// The same mapping with size-1 dims dropped and neighbouring dims merged where the outer stride
/// is the inner one times the inner size (so [4,8] broadcast from [8] becomes [4,8] with strides
/// [0,1], and a contiguous read of any shape becomes one dim of stride 1).
StridedView coalesce(const StridedView& view);
/// True when the (coalesced) view reads the source in order: rank 1 with stride 1, or rank 0
/// over a one-element source.
bool is_contiguous(const StridedView& coalesced);
/// The source offset of flat output index `index` as a C expression with literal sizes, for a
/// coalesced view: "i", "0", "i % 8", "i / 8", "i / 32 * 4 + i % 4" ...
std::string offset_expression(const StridedView& coalesced, std::string_view index);

}  // namespace inferno::codegen
