// The two forms of a 4-D activation during the assign-layout pass (passes/assign_layout.h): the
// graph's own NCHW value and its channels-last (NHWC) permutation, each made at most once and only
// when a consumer needs it.
//
// The pass rebuilds the node list in one forward walk (NodeRebuilder). A node it moves to NHWC
// defines a new NHWC value; the node's old NCHW output becomes *pending*: it is defined later, as
// permute(nhwc, [0, 3, 1, 2]) under its own name and id, right before the first node that reads
// it in NCHW (or at the end, for a graph output), and never if none does. Conversions the other
// way are made on first use and remembered, so a value read in NHWC by several consumers is
// permuted once. Where a permutation only moves dims of size 1 ([N, C, 1, 1] <-> [N, 1, 1, C]) it
// is a reshape, which codegen makes a view; a permuted constant is a new constant (its data
// permuted here), never a runtime copy. Permutes and reshapes made here are composed with the
// permute or reshape producing their input, so the result is canonical (canonicalize would
// change nothing).
#pragma once

#include <string>
#include <unordered_map>

#include "ir/channels_last.h"
#include "ir/graph.h"
#include "passes/node_rebuilder.h"
#include "support/status.h"

namespace inferno::passes {

using ir::kToNchw;
using ir::kToNhwc;

/// `shape` permuted: out[i] = shape[dims[i]].
ir::Shape permuted_shape(const ir::Shape& shape, const ir::IntList& dims);
/// Whether permuting `shape` by `dims` keeps its elements in memory order: the dims larger than 1
/// keep their relative order, so the permutation is a reshape.
bool is_reshape_permutation(const ir::Shape& shape, const ir::IntList& dims);

class LayoutForms {
 public:
  explicit LayoutForms(NodeRebuilder& rebuilder) : rebuilder_(rebuilder) {}

  /// `v`'s producer now computes `nhwc` (v permuted by kToNhwc) instead: v is pending, to be
  /// defined from `nhwc` at `loc` if anything reads it in NCHW.
  void set_pending(ir::ValueId v, ir::ValueId nhwc, const SourceLocation& loc);
  /// `nhwc` holds `v` (defined) permuted to NHWC: later NHWC readers of v use it.
  void set_nhwc(ir::ValueId v, ir::ValueId nhwc) { nhwc_[v] = nhwc; }

  /// Whether an NHWC form of the 4-D value `v` exists (v pending, or converted before).
  bool has_nhwc(ir::ValueId v) const { return nhwc_.count(v) > 0; }
  /// The NHWC form of `v`, which has_nhwc says exists.
  ir::ValueId nhwc_form(ir::ValueId v) const { return nhwc_.at(v); }
  bool is_pending(ir::ValueId v) const { return pending_.count(v) > 0; }
  /// Whether nhwc(v) can be made: false for constants whose data was elided.
  bool convertible(ir::ValueId v) const;

  /// Elements copied to read `v` (rank <= 4, broadcast as a 4-D operand) in NHWC: 0 when a form
  /// exists, `v` is a constant or the permutation is a reshape.
  int64_t nhwc_copy_cost(ir::ValueId v) const;
  /// Elements copied to read `v` in NCHW: 0 unless v is pending and its permutation is a copy.
  int64_t nchw_copy_cost(ir::ValueId v) const;

  /// `v` in NCHW, defining a pending value first.
  Expected<ir::ValueId> nchw(ir::ValueId v);
  /// `v` (rank <= 4) as the operand of a node computing in NHWC: its NHWC form (made now if
  /// needed). A lower-rank operand is read as a 4-D one with leading 1s (broadcasting); a
  /// lower-rank constant becomes a new constant whose leading 1s are dropped again, down to rank
  /// 1 ([C, 1, 1] becomes [C]; rank 0 stays rank 0, which type promotion treats apart).
  Expected<ir::ValueId> nhwc(ir::ValueId v, const SourceLocation& loc);
  /// permute(v, dims) of a defined value: a reshape when it only moves 1s, composed with a
  /// permute producing v, `v` itself for the identity, a new constant for a constant. Defines
  /// `define` when given (else a fresh value named `name`); if the result is an existing value,
  /// `define` is replaced by it.
  Expected<ir::ValueId> permute(ir::ValueId v, const ir::IntList& dims, const std::string& name,
                                const SourceLocation& loc, ir::ValueId define = ir::kNoValue);
  /// reshape(v, shape), the same way (composed with a reshape producing v).
  Expected<ir::ValueId> reshape(ir::ValueId v, const ir::Shape& shape, const std::string& name,
                                const SourceLocation& loc, ir::ValueId define = ir::kNoValue);

  /// Defines every pending graph output (at the end of the walk).
  Status define_outputs();

 private:
  /// A new constant: constant `c`'s data (read with leading 1s up to dims' rank) permuted by
  /// `dims`, with type `shape` (the same element count).
  ir::ValueId permuted_constant(ir::ValueId c, const ir::IntList& dims, const ir::Shape& shape);
  ir::ValueId existing(ir::ValueId v, ir::ValueId define);
  Expected<ir::ValueId> emit(ir::OpKind op, ir::ValueId v, ir::Attributes attrs,
                             const std::string& name, const SourceLocation& loc,
                             ir::ValueId define);

  NodeRebuilder& rebuilder_;
  std::unordered_map<ir::ValueId, ir::ValueId> nhwc_;            ///< value -> its NHWC form
  std::unordered_map<ir::ValueId, ir::ValueId> constant_forms_;  ///< constant -> NHWC operand
  std::unordered_map<ir::ValueId, SourceLocation> pending_;      ///< where to define it
};

}  // namespace inferno::passes
