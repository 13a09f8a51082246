#include "passes/row_split.h"

#include <array>
#include <optional>
#include <string>

#include "ir/channels_last.h"
#include "ir/op.h"

namespace inferno::passes {
namespace {

using ir::Graph;
using ir::Node;
using ir::OpKind;
using ir::Shape;
using ir::ValueId;

// kUniform: split, and free of the split inputs, every block the same (a free value expanded to the
// rows). Every rule takes it as split; only an output must be kSplit. kRowIndex: [rows, 1, ...]
// (or that expanded along later axes) holding i in row i, an arange of the dim's size; its blocks
// differ, so it is neither free nor split, and only the uses in row_index_use are allowed.
enum class Rows : uint8_t { kFree, kUniform, kSplit, kRowIndex };

// How many leading axes hold the blocks of a split value of this shape: the shortest prefix whose
// sizes' product is a multiple of `rows` (each index of those axes then lies in one block);
// nullopt when none is, so the value cannot be `rows` blocks.
std::optional<int64_t> lead_axes(const Shape& shape, int64_t rows) {
  int64_t product = 1;
  for (size_t a = 0; a < shape.size(); ++a) {
    product *= shape[a];  // at most the element count, far below overflow (ir::kMaxTensorElements)
    if (product % rows == 0) return static_cast<int64_t>(a) + 1;
  }
  return std::nullopt;
}

class RowSplit {
 public:
  RowSplit(const Graph& graph, int64_t rows)
      : graph_(graph), rows_(rows), state_(static_cast<size_t>(graph.num_values()), Rows::kFree) {}

  Status run(const std::vector<bool>& split_inputs, const std::vector<ValueId>& row_indices) {
    if (rows_ < 2) return internal_error("row split: the analysis needs at least 2 rows");
    if (graph_.num_states() > 0)
      return unsupported("the model has state, which a run of some rows would update for all");
    if (split_inputs.size() != graph_.num_user_inputs())
      return internal_error("row split: one flag per user input expected");
    for (size_t i = 0; i < split_inputs.size(); ++i) {
      if (!split_inputs[i]) continue;
      const ValueId v = graph_.inputs()[i];
      const Shape& s = shape(v);
      if (s.empty() || s[0] != rows_) {
        return unsupported("input '" + graph_.name(v) +
                           "' does not have the dim as its first axis");
      }
      state_[static_cast<size_t>(v)] = Rows::kSplit;
    }
    for (const ValueId v : row_indices) {
      if (v < 0 || v >= graph_.num_values() || shape(v) != Shape{rows_})
        return internal_error("row split: a row index is not a value of the rows' size");
      state_[static_cast<size_t>(v)] = Rows::kRowIndex;
    }
    for (const Node& node : graph_.nodes()) INFERNO_RETURN_IF_ERROR(visit(node));
    weight_as_free_ = {ir::kNoValue, ir::kNoValue};  // the outputs are read as they are
    for (size_t o = 0; o < graph_.num_user_outputs(); ++o) {
      const ValueId v = graph_.outputs()[o];
      // A uniform output is refused too: its rows may be a size the model wrote as a number, which
      // only meeting a split value ties to the dim's.
      if (!split(v) || uniform(v) || lead_axes(shape(v), rows_) != 1) {
        return unsupported("output '" + graph_.name(v) + "' " +
                           (row_index(v) ? "is the rows' index (an arange of the dim's size)"
                            : !split(v)  ? "does not depend on the dim's rows alone"
                            : uniform(v) ? "does not depend on the split inputs (it is the same "
                                           "value expanded to the rows)"
                                         : "does not have the dim in its first axis"));
      }
    }
    return Status::ok();
  }

 private:
  // Split or uniform: cut into blocks (a uniform weight being read as free aside).
  bool split(ValueId v) const {
    return v != ir::kNoValue && (state_[static_cast<size_t>(v)] == Rows::kSplit || uniform(v)) &&
           !(uniform(v) && v == weight_as_free_[0]) && !(uniform(v) && v == weight_as_free_[1]);
  }
  bool uniform(ValueId v) const {
    return v != ir::kNoValue && state_[static_cast<size_t>(v)] == Rows::kUniform;
  }
  bool row_index(ValueId v) const {
    return v != ir::kNoValue && state_[static_cast<size_t>(v)] == Rows::kRowIndex;
  }
  const Shape& shape(ValueId v) const { return graph_.type(v).shape; }
  int64_t rank(ValueId v) const { return graph_.type(v).rank(); }
  ValueId input(const Node& node, size_t k) const {
    return k < node.inputs.size() ? node.inputs[k] : ir::kNoValue;
  }

  Status mixes(const Node& node, const std::string& why) const {
    return unsupported(std::string(ir::op_name(node.op)) + " mixes the rows: " + why,
                       graph_.node_name(node), node.loc);
  }

  // A split `v` whose leading `lead` axes are those of `out` (so its blocks are out's).
  bool same_leading(ValueId v, const Shape& out, int64_t lead) const {
    const Shape& s = shape(v);
    if (s.size() != out.size()) return false;
    for (int64_t k = 0; k < lead; ++k) {
      if (s[static_cast<size_t>(k)] != out[static_cast<size_t>(k)]) return false;
    }
    return true;
  }

  // A free `v` broadcast (aligned at the right, over `width` trailing axes of out's `batch`
  // leading ones) without a size other than 1 in out's leading `lead` axes: each block reads the
  // same elements of it.
  bool broadcast_free(ValueId v, int64_t batch, int64_t lead, int64_t dropped = 0) const {
    const Shape& s = shape(v);
    const int64_t own = static_cast<int64_t>(s.size()) - dropped;  // v's axes aligned to out's
    for (int64_t k = 0; k < own; ++k) {
      const int64_t at = batch - own + k;  // the out axis v's axis k meets
      if (at >= 0 && at < lead && s[static_cast<size_t>(k)] != 1) return false;
    }
    return true;
  }

  // An operand of an elementwise-like op with result shape `out`. A uniform operand must have
  // the result's rows: read as free, the rows it was expanded to could meet a later axis.
  bool operand_fits(ValueId v, const Shape& out, int64_t lead) const {
    if (v == ir::kNoValue) return true;
    if (split(v)) return same_leading(v, out, lead);
    return broadcast_free(v, static_cast<int64_t>(out.size()), lead);
  }

  // Every axis an op works along lies after the leading `lead` ones.
  static bool all_after(const ir::IntList& axes, int64_t lead) {
    for (const int64_t axis : axes) {
      if (axis < lead) return false;
    }
    return !axes.empty();
  }

  // x @ y (+ addends) with x [..., M, K], y [..., K, N] (or [..., N, K]): rows of M and the batch
  // axes are independent, K is summed over, N comes from y alone.
  Status product(const Node& node, ValueId x, ValueId y, std::initializer_list<ValueId> addends,
                 const Shape& out, int64_t lead) const {
    const int64_t r = static_cast<int64_t>(out.size());
    if (rank(x) < 2 || rank(y) < 2) return mixes(node, "a vector operand");
    if (split(x) && (!same_leading(x, out, lead) || lead > r - 1))
      return mixes(node, "its left operand's rows are not the result's");
    if (split(y) && (!same_leading(y, out, lead) || lead > r - 2))
      return mixes(node, "the rows reach the dims it multiplies over");
    if (!split(x) && lead > r - 2) return mixes(node, "the rows reach a free operand's rows");
    for (const ValueId v : {x, y}) {
      if (!split(v) && !broadcast_free(v, r - 2, lead, 2))
        return mixes(node, "a free operand is batched along the rows");
    }
    for (const ValueId v : addends) {
      if (!operand_fits(v, out, lead)) return mixes(node, "an addend does not follow the rows");
    }
    return Status::ok();
  }

  Status check(const Node& node, const Shape& out, int64_t lead) const {
    const ValueId x = input(node, 0);
    const int64_t r = static_cast<int64_t>(out.size());
    const std::optional<int64_t> x_lead = split(x) ? lead_axes(shape(x), rows_) : std::nullopt;
    const int64_t in_lead = x_lead.value_or(0);  // 0: x is free
    const auto free_from = [&](size_t first) -> Status {
      for (size_t k = first; k < node.inputs.size(); ++k) {
        if (split(node.inputs[k])) return mixes(node, "a weight or parameter operand has rows");
      }
      return Status::ok();
    };
    if (ir::op_has_trait(node.op, ir::kElementwise) || node.op == OpKind::kFusedElementwise) {
      for (const ValueId v : node.inputs) {
        if (!operand_fits(v, out, lead))
          return mixes(node, "an operand is broadcast along the rows");
      }
      return Status::ok();
    }
    switch (node.op) {
      case OpKind::kReshape:
        return split(x) ? Status::ok() : mixes(node, "its input has no rows");
      case OpKind::kExpand:
        return same_leading(x, out, lead) ? Status::ok() : mixes(node, "it expands the rows");
      case OpKind::kTranspose:
        return node.attrs.get_int("dim0") >= in_lead && node.attrs.get_int("dim1") >= in_lead
                   ? Status::ok()
                   : mixes(node, "it moves the rows' axes");
      case OpKind::kPermute: {
        const ir::IntList& dims = node.attrs.get_ints("dims");
        for (int64_t k = 0; k < in_lead; ++k) {
          if (dims[static_cast<size_t>(k)] != k) return mixes(node, "it moves the rows' axes");
        }
        return Status::ok();
      }
      case OpKind::kSlice: {
        const ir::IntList& starts = node.attrs.get_ints("starts");
        const ir::IntList& ends = node.attrs.get_ints("ends");
        const ir::IntList& steps = node.attrs.get_ints("steps");
        for (int64_t k = 0; k < in_lead; ++k) {
          const auto i = static_cast<size_t>(k);
          if (starts[i] != 0 || ends[i] != shape(x)[i] || steps[i] != 1)
            return mixes(node, "it slices the rows' axes");
        }
        return Status::ok();
      }
      case OpKind::kSum:
      case OpKind::kMean:
      case OpKind::kReduceMax:
      case OpKind::kReduceMin:
        return all_after(node.attrs.get_ints("dims"), in_lead)
                   ? Status::ok()
                   : mixes(node, "it reduces over the rows");
      case OpKind::kSoftmax:
      case OpKind::kLogSoftmax:
      case OpKind::kCumsum:
      case OpKind::kArgMax:
      case OpKind::kArgMin:
        return node.attrs.get_int("dim") >= in_lead ? Status::ok()
                                                    : mixes(node, "it works along the rows");
      case OpKind::kLinear:
        INFERNO_RETURN_IF_ERROR(free_from(1));
        return product(node, x, input(node, 1), {input(node, 2)}, out, lead);
      case OpKind::kMatMul:
        return product(node, x, input(node, 1), {}, out, lead);
      case OpKind::kAddMM:  // addmm(bias, x, y)
        return product(node, input(node, 1), input(node, 2), {x}, out, lead);
      case OpKind::kGemm:
        return product(node, x, input(node, 1), {input(node, 2), input(node, 3)}, out, lead);
      case OpKind::kConv2d:
      case OpKind::kConvTranspose2d: {
        if (in_lead != 1 || lead != 1) return mixes(node, "its rows are not whole images");
        if (split(input(node, 1)) || split(input(node, 2)))
          return mixes(node, "a weight or parameter operand has rows");
        for (size_t k = 3; k < node.inputs.size(); ++k) {  // residual, gate
          if (!operand_fits(node.inputs[k], out, lead))
            return mixes(node, "an addend does not follow the rows");
        }
        return Status::ok();
      }
      case OpKind::kMaxPool2d:
      case OpKind::kAvgPool2d:
      case OpKind::kAdaptiveAvgPool2d:
      case OpKind::kAdaptiveMaxPool2d: {
        // The windows run over dims h and w; every dim before the first of them may hold rows.
        const size_t first = ir::pool_dims(node.attrs, static_cast<size_t>(r)).h;
        return in_lead >= 1 && in_lead <= static_cast<int64_t>(first)
                   ? Status::ok()
                   : mixes(node, "its window reaches the rows' axes");
      }
      case OpKind::kUpsampleNearest2d:
      case OpKind::kUpsampleBilinear2d:
        return in_lead >= 1 && in_lead <= 2 ? Status::ok()
                                            : mixes(node, "its window reaches the rows' axes");
      case OpKind::kLayerNorm:
      case OpKind::kRmsNorm:
        INFERNO_RETURN_IF_ERROR(free_from(1));
        return in_lead >= 1 && in_lead <= r - node.attrs.get_int("normalized_dims")
                   ? Status::ok()
                   : mixes(node, "it normalizes over the rows");
      case OpKind::kGroupNorm:
        INFERNO_RETURN_IF_ERROR(free_from(1));
        return in_lead == 1 ? Status::ok() : mixes(node, "its rows are not whole images");
      case OpKind::kRotary:
        if (!split(x) || lead > r - 1) return mixes(node, "the rows reach the rotated dim");
        for (const ValueId v : node.inputs) {
          if (!operand_fits(v, out, lead))
            return mixes(node, "cos or sin does not follow the rows");
        }
        return Status::ok();
      case OpKind::kAttention: {
        if (lead > 2) return mixes(node, "the rows reach the sequence axes");
        for (size_t k = 0; k < 3; ++k) {
          if (!split(node.inputs[k]) || !same_leading(node.inputs[k], out, lead))
            return mixes(node, "q, k and v do not share the rows");
        }
        if (!operand_fits(input(node, 3), out, lead))
          return mixes(node, "its mask does not follow the rows");
        return Status::ok();
      }
      case OpKind::kCat: {
        if (node.attrs.get_int("dim") < lead) return mixes(node, "it joins along the rows");
        for (const ValueId v : node.inputs) {
          if (!split(v) || !same_leading(v, out, lead))
            return mixes(node, "an operand does not have the rows");
        }
        return Status::ok();
      }
      case OpKind::kConstantPad: {
        const ir::IntList& before = node.attrs.get_ints("before");
        const ir::IntList& after = node.attrs.get_ints("after");
        for (int64_t k = 0; k < in_lead; ++k) {
          const auto i = static_cast<size_t>(k);
          if (before[i] != 0 || after[i] != 0) return mixes(node, "it pads the rows' axes");
        }
        return split(input(node, 1)) ? mixes(node, "its fill value has rows") : Status::ok();
      }
      case OpKind::kIndexSelect: {
        const ValueId index = input(node, 1);
        const int64_t dim = node.attrs.get_int("dim");
        if (split(x) && !split(index) && dim >= in_lead) return Status::ok();
        // A lookup into a free table by split indices (an embedding): each index picks one
        // contiguous slice, so the index's blocks become the result's.
        if (!split(x) && split(index) && dim == 0) return Status::ok();
        return mixes(node, "it gathers across the rows");
      }
      default:
        return mixes(node, "infernoc has no rule for it");
    }
  }

  // A free value expanded along a first axis that holds the rows (as a model expands a buffer or
  // a causal mask to the batch): each block reads all of it, the same in a run of any rows. Only
  // the first axis, where the split inputs have the dim, so that heads that happen to number the
  // rows stay free.
  bool expands_to_rows(const Node& node) const {
    if (node.op != OpKind::kExpand) return false;
    const Shape& out = shape(node.outputs.front());
    return lead_axes(out, rows_) == 1 &&
           broadcast_free(node.inputs.front(), static_cast<int64_t>(out.size()), 1);
  }

  // A weight or parameter operand (a linear's, a norm's, a conv's) that is uniform is read as
  // free: its axes meet the split operand's later axes (K, the normalized dims, the channels) or
  // the result's features, as any weight's do (a norm's weight of ones, a scalar the frontend
  // expands, may have a multiple of the rows as its size).
  void read_weights_as_free(const Node& node) {
    weight_as_free_ = {ir::kNoValue, ir::kNoValue};
    switch (node.op) {
      case OpKind::kLinear:
      case OpKind::kLayerNorm:
      case OpKind::kRmsNorm:
      case OpKind::kGroupNorm:
      case OpKind::kConv2d:
      case OpKind::kConvTranspose2d:
        weight_as_free_ = {input(node, 1), input(node, 2)};
        break;
      default:
        break;
    }
  }

  // A node reading a row index: the state of its result, or why it is refused. Allowed: a view
  // keeping i in row i (a reshape to [rows, 1, ...], an expand of the later axes), and the index
  // of an index_select along the first axis of a split source whose first axis is the rows:
  // out[i, ...] = src[i, ...], each row reads its own. A run of b rows at offset r0 computes the
  // same, its arange being 0..b-1 and its source those b rows. Any other use (arithmetic, a
  // comparison, an index along a later axis, a reduction) would see the rows' numbers.
  Expected<Rows> row_index_use(const Node& node) const {
    const ValueId x = input(node, 0);
    const Shape& out = shape(node.outputs.front());
    const bool rows_first = !out.empty() && out[0] == rows_;
    if (node.op == OpKind::kReshape && row_index(x) && rows_first &&
        ir::checked_numel(out) == rows_) {
      return Rows::kRowIndex;
    }
    if (node.op == OpKind::kExpand && row_index(x) && rows_first && out.size() == shape(x).size())
      return Rows::kRowIndex;
    const ValueId index = input(node, 1);
    if (node.op == OpKind::kIndexSelect && node.attrs.get_int("dim") == 0 && !row_index(x) &&
        split(x) && row_index(index) && lead_axes(shape(x), rows_) == 1 && shape(x)[0] == rows_) {
      return uniform(x) ? Rows::kUniform : Rows::kSplit;
    }
    return unsupported(std::string(ir::op_name(node.op)) +
                           " uses the rows' index (an arange of the dim's size) other than to "
                           "pick each row's own row of a split value, so its result would differ "
                           "between a run and its pieces",
                       graph_.node_name(node), node.loc);
  }

  Status visit(const Node& node) {
    for (const ValueId v : node.inputs) {
      if (!row_index(v)) continue;
      INFERNO_ASSIGN_OR_RETURN(const Rows result, row_index_use(node));
      for (const ValueId out : node.outputs) state_[static_cast<size_t>(out)] = result;
      return Status::ok();
    }
    read_weights_as_free(node);
    bool any_split = false, any_uniform = false;
    for (const ValueId v : node.inputs) {
      any_split = any_split || (split(v) && !uniform(v));
      any_uniform = any_uniform || (split(v) && uniform(v));
    }
    if (!any_split && !any_uniform) {  // free: the outputs keep Rows::kFree, or become uniform
      if (expands_to_rows(node)) state_[static_cast<size_t>(node.outputs.front())] = Rows::kUniform;
      return Status::ok();
    }
    const Shape& out = shape(node.outputs.front());
    const std::optional<int64_t> lead = lead_axes(out, rows_);
    if (!lead)
      return mixes(node, "its result cannot be cut into " + std::to_string(rows_) + " rows");
    INFERNO_RETURN_IF_ERROR(check(node, out, *lead));
    // With uniform operands only (the others free), each block is the same function of the same
    // data: the result's blocks are all the same too.
    const Rows result = any_split ? Rows::kSplit : Rows::kUniform;
    for (const ValueId v : node.outputs) state_[static_cast<size_t>(v)] = result;
    return Status::ok();
  }

  const Graph& graph_;
  int64_t rows_;
  std::vector<Rows> state_;                                               // per value
  std::array<ValueId, 2> weight_as_free_ = {ir::kNoValue, ir::kNoValue};  // the node's, in visit
};

}  // namespace

Status check_row_split(const ir::Graph& graph, const std::vector<bool>& split_inputs,
                       const std::vector<ir::ValueId>& row_indices, int64_t rows) {
  return RowSplit(graph, rows).run(split_inputs, row_indices);
}

}  // namespace inferno::passes
