// What the ATen table's builders share (internal to the frontend): the builder context, the table
// entry type and the small helpers that type operands and insert casts. aten_table.cpp holds the
// table and the general builders; aten_elementwise.cpp the elementwise families, appended to the
// table by add_elementwise_entries.
#pragma once

#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frontend/aten_schema.h"
#include "ir/builder.h"
#include "ir/shape_rules.h"

namespace inferno::frontend::aten {

using Outputs = Expected<std::vector<ir::ValueId>>;

// What a builder sees: the graph, the call and its bound arguments, and helpers that name nodes
// after the call's node and attach its source location.
struct Ctx {
  ir::Graph& g;
  const AtenCall& call;
  const BoundArgs& a;

  const ir::TensorType& type(ir::ValueId v) const { return g.type(v); }
  std::string name(std::string_view suffix) const {
    return suffix.empty() ? call.node_name : call.node_name + "_" + std::string(suffix);
  }
  Expected<ir::ValueId> build(ir::OpKind op, std::vector<ir::ValueId> in, ir::Attributes attrs = {},
                              std::string_view suffix = "") const {
    return ir::build_value(g, op, std::move(in), std::move(attrs), name(suffix), call.loc);
  }
  /// A malformed argument (exit 3), naming the op, node and location.
  Status invalid(const std::string& what) const {
    return invalid_input(call.op + ": " + what, call.node_name, call.loc);
  }
  /// An unsupported op or argument combination (exit 2), naming the op, node and location.
  Status unsupported_arg(const std::string& what) const {
    return unsupported(call.op + ": " + what, call.node_name, call.loc);
  }
  /// A dim normalized against `rank`, or an invalid-input Status naming the op.
  Expected<int64_t> dim(int64_t d, int64_t rank) const {
    Expected<int64_t> n = ir::normalize_dim(d, rank);
    if (!n) return invalid(n.status().message());
    return n;
  }
};

using Builder = std::function<Outputs(Ctx&)>;

struct OpEntry {
  std::string_view name;
  std::string_view overloads;  ///< space-separated overloads this schema serves; "" = any
  Schema schema;
  Builder build;
};

ir::Attributes attrs(std::initializer_list<std::pair<std::string, ir::AttrValue>> list);
Outputs one(Expected<ir::ValueId> v);

/// Python's bounds of x[start:end] in a dim of `size`: negative ones count from the end, then
/// both clamp to [0, size], and end to no less than start.
std::pair<int64_t, int64_t> slice_bounds(int64_t size, int64_t start, int64_t end);
/// x[start : end : step] along `dim` (bounds already normalized), or x itself when that is all
/// of it (aten_slice.cpp).
Expected<ir::ValueId> slice_dim(const Ctx& c, ir::ValueId x, int64_t dim, int64_t start,
                                int64_t end, int64_t step, const std::string& suffix);

/// `x` converted to `to` (no node when it already is).
Expected<ir::ValueId> cast(const Ctx& c, ir::ValueId x, ir::DType to, std::string_view suffix = "");
/// A Python number (int, float or bool argument) as a double.
double number(const AtenArg& v);
/// The dtype of a Python number `v` as the operand of an elementwise op whose tensor operand is
/// of dtype `peer` (PyTorch's scalar promotion): peer's, except that a float next to an integer
/// or bool tensor is f32 and an int next to a bool tensor is i64.
ir::DType operand_dtype(const AtenArg& v, ir::DType peer);
/// An elementwise op's operand: a tensor as is, a Python number as a rank-0 constant of
/// operand_dtype(v, peer).
ir::ValueId operand(const Ctx& c, const AtenArg& v, ir::DType peer, std::string_view suffix);

/// The mean of x over `dims` (sorted, unique), kept at x's rank, and the variance: the sum of
/// squared deviations over N - correction (N the elements reduced; a divisor <= 0 gives inf or
/// NaN, as PyTorch), kept at x's rank when `keepdim` (aten_statistics.cpp).
struct MeanVariance {
  ir::ValueId mean, variance;
};
Expected<MeanVariance> mean_and_variance(const Ctx& c, ir::ValueId x, const ir::IntList& dims,
                                         double correction, bool keepdim);
/// Appends var, std, var_mean, std_mean, linalg_vector_norm, norm, logsumexp and one_hot
/// (aten_statistics.cpp).
void add_statistics_entries(std::vector<OpEntry>& table);

/// Appends the elementwise families' entries (aten_elementwise.cpp) to the table.
void add_elementwise_entries(std::vector<OpEntry>& table);
/// Appends the convolution entries (aten_conv.cpp).
void add_conv_entries(std::vector<OpEntry>& table);
/// Appends the pooling entries (aten_pool.cpp).
void add_pool_entries(std::vector<OpEntry>& table);
/// A video op's input [N, C, T, H, W] (or unbatched [C, T, H, W], given N = 1) as [N, T, C, H, W]:
/// the frames beside the batch, for 2-D ops over [N T, C, H, W] (aten_frames.cpp; conv3d and
/// the 3-D pools). frames_last puts a result [N, T', C', H', W'] back into the input's layout.
struct Frames {
  ir::ValueId x;
  bool batched;
};
Expected<Frames> frames_first(const Ctx& c, ir::ValueId x);
Outputs frames_last(const Ctx& c, ir::ValueId y, bool batched);

/// max_pool3d (and _with_indices) and avg_pool3d (aten_pool3d.cpp), which add_pool_entries lists
/// with the 2-D pools' schemas.
Outputs max_pool3d(Ctx& c);
Outputs avg_pool3d(Ctx& c);
/// Appends batch_norm and its 3-output forms (aten_batch_norm.cpp).
void add_batch_norm_entries(std::vector<OpEntry>& table);
/// Appends cat and the constant paddings (aten_join.cpp).
void add_join_entries(std::vector<OpEntry>& table);
/// Appends upsample_nearest2d and upsample_bilinear2d (aten_resize.cpp).
void add_resize_entries(std::vector<OpEntry>& table);
/// Appends layer_norm, group_norm and their 3-output native forms (aten_norm.cpp).
void add_norm_entries(std::vector<OpEntry>& table);
/// Appends arange, tril and triu (aten_ranges.cpp).
void add_range_entries(std::vector<OpEntry>& table);
/// Appends embedding and index_select (aten_index.cpp).
void add_index_entries(std::vector<OpEntry>& table);
/// copy, index_copy and index_put (aten_scatter.cpp).
void add_scatter_entries(std::vector<OpEntry>& table);
/// Appends repeat, repeat_interleave and unflatten (aten_repeat.cpp).
void add_repeat_entries(std::vector<OpEntry>& table);
/// Appends scaled_dot_product_attention and its export forms, _native_multi_head_attention and
/// _transformer_encoder_layer_fwd (aten_attention.cpp).
void add_attention_entries(std::vector<OpEntry>& table);
/// Appends amax/amin, max/min over all or one dim, argmax/argmin (aten_extrema.cpp).
void add_extrema_entries(std::vector<OpEntry>& table);
/// Appends cumsum and diff (aten_scan.cpp).
void add_scan_entries(std::vector<OpEntry>& table);
/// Appends slice, narrow, select, chunk, split, split_with_sizes, unbind and roll (aten_slice.cpp).
void add_slice_entries(std::vector<OpEntry>& table);
/// Appends einsum of one or two operands (aten_einsum.cpp).
void add_einsum_entries(std::vector<OpEntry>& table);

}  // namespace inferno::frontend::aten
