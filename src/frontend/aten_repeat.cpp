// Repetition and reshaping entries of the ATen table, all onto reshape and expand: repeat (tiles of
// the whole tensor), repeat_interleave with an int count (each element repeated in place, as
// grouped-query attention repeats its key/value heads) and unflatten (one dim split into sizes).
// An expand is a view, so the repetition itself costs one copy where something reads it
// contiguously; nothing here makes a constant.
#include <string>
#include <variant>
#include <vector>

#include "frontend/aten_builders.h"

namespace inferno::frontend::aten {
namespace {

using ir::OpKind;
using ir::ValueId;

constexpr ArgKind T = ArgKind::kTensor, Int = ArgKind::kInt, Ints = ArgKind::kInts;

Expected<ValueId> reshape_to(const Ctx& c, ValueId x, ir::Shape shape, std::string_view suffix) {
  if (c.type(x).shape == shape) return x;
  return c.build(OpKind::kReshape, {x}, attrs({{"shape", std::move(shape)}}), suffix);
}

// x of shape `pairs` ([a0, b0, a1, b1, ...], a size-1 dim next to each size) expanded to
// `expanded` and merged pairwise into `out`: the repetition pattern of both ops below.
Outputs expand_and_merge(const Ctx& c, ValueId x, ir::Shape pairs, ir::Shape expanded,
                         ir::Shape out) {
  if (!ir::checked_numel(expanded)) {
    return c.invalid("the result " + ir::shape_to_string(out) + " is too large");
  }
  INFERNO_ASSIGN_OR_RETURN(ValueId paired, reshape_to(c, x, std::move(pairs), "pairs"));
  INFERNO_ASSIGN_OR_RETURN(
      ValueId wide,
      c.build(OpKind::kExpand, {paired}, attrs({{"shape", std::move(expanded)}}), "expand"));
  return one(reshape_to(c, wide, std::move(out), ""));
}

// x.repeat(r): x padded with leading 1s to len(r) dims, then tiled r[d] times along dim d:
// [1, s] expanded to [r, s] per dim (the copy index varies slowest).
Outputs repeat(Ctx& c) {
  const ValueId x = c.a.tensor("self");
  const ir::Shape in = c.type(x).shape;
  const std::vector<int64_t> repeats = c.a.get_ints("repeats");
  if (repeats.size() < in.size()) {
    return c.invalid("repeats " + ir::shape_to_string(repeats) + " has fewer dims than the input " +
                     c.type(x).to_string());
  }
  const size_t lead = repeats.size() - in.size();
  ir::Shape pairs, expanded, out;
  for (size_t d = 0; d < repeats.size(); ++d) {
    const int64_t size = d < lead ? 1 : in[d - lead];
    if (repeats[d] < 0) return c.invalid("repeats " + ir::shape_to_string(repeats) + " < 0");
    pairs.insert(pairs.end(), {1, size});
    expanded.insert(expanded.end(), {repeats[d], size});
    int64_t n = 0;
    if (__builtin_mul_overflow(repeats[d], size, &n)) return c.invalid("the result overflows");
    out.push_back(n);
  }
  return expand_and_merge(c, x, std::move(pairs), std::move(expanded), std::move(out));
}

// repeat_interleave(x, repeats: int, dim): each element along dim repeated `repeats` times in
// place ([s, 1] expanded to [s, r]); without a dim, over x flattened. A tensor of counts is
// data-dependent in general and unsupported.
Outputs repeat_interleave(Ctx& c) {
  const ValueId x = c.a.tensor("self");
  const AtenArg& count = c.a.get("repeats");
  if (!std::holds_alternative<int64_t>(count)) {
    return c.unsupported_arg("repeats must be an int (a tensor of counts is not supported)");
  }
  const int64_t r = std::get<int64_t>(count);
  if (r < 0) return c.invalid("repeats " + std::to_string(r) + " must be >= 0");
  ValueId v = x;
  int64_t dim = 0;
  if (c.a.is_none("dim")) {
    INFERNO_ASSIGN_OR_RETURN(v, reshape_to(c, x, {c.type(x).numel()}, "flat"));
  } else {
    INFERNO_ASSIGN_OR_RETURN(dim, c.dim(c.a.get_int("dim"), c.type(x).rank()));
  }
  const ir::Shape in = c.type(v).shape;
  if (in.empty()) {  // a 0-d x with a dim: like a [1]
    return expand_and_merge(c, v, {1, 1}, {1, r}, {r});
  }
  ir::Shape pairs = in, expanded = in, out = in;
  pairs.insert(pairs.begin() + dim + 1, 1);
  expanded.insert(expanded.begin() + dim + 1, r);
  if (__builtin_mul_overflow(in[static_cast<size_t>(dim)], r, &out[static_cast<size_t>(dim)])) {
    return c.invalid("the result overflows");
  }
  if (!c.a.is_none("output_size") && c.a.get_int("output_size") != out[static_cast<size_t>(dim)]) {
    return c.invalid("output_size " + std::to_string(c.a.get_int("output_size")) +
                     " does not match the " + std::to_string(out[static_cast<size_t>(dim)]) +
                     " repeated elements");
  }
  return expand_and_merge(c, v, std::move(pairs), std::move(expanded), std::move(out));
}

// unflatten(x, dim, sizes): dim split into sizes (one of them may be -1), a reshape.
Outputs unflatten(Ctx& c) {
  const ValueId x = c.a.tensor("self");
  const ir::Shape in = c.type(x).shape;
  INFERNO_ASSIGN_OR_RETURN(const int64_t dim, c.dim(c.a.get_int("dim"), c.type(x).rank()));
  if (in.empty()) return c.invalid("cannot unflatten a 0-d tensor");
  ir::Shape sizes = c.a.get_ints("sizes");
  const int64_t whole = in[static_cast<size_t>(dim)];
  int64_t known = 1;
  int infer = -1;
  bool ok = !sizes.empty();
  for (size_t i = 0; i < sizes.size() && ok; ++i) {
    if (sizes[i] == -1 && infer < 0) {
      infer = static_cast<int>(i);
    } else {
      ok = sizes[i] >= 0 && !__builtin_mul_overflow(known, sizes[i], &known);
    }
  }
  if (ok && infer >= 0) {
    ok = known != 0 && whole % known == 0;
    if (ok) sizes[static_cast<size_t>(infer)] = whole / known;
  } else if (ok) {
    ok = known == whole;
  }
  if (!ok) {
    return c.invalid("sizes " + ir::shape_to_string(c.a.get_ints("sizes")) +
                     " do not unflatten dim " + std::to_string(dim) + " of " +
                     c.type(x).to_string());
  }
  ir::Shape out(in.begin(), in.begin() + dim);
  out.insert(out.end(), sizes.begin(), sizes.end());
  out.insert(out.end(), in.begin() + dim + 1, in.end());
  return one(reshape_to(c, x, std::move(out), ""));
}

}  // namespace

void add_repeat_entries(std::vector<OpEntry>& table) {
  const std::vector<OpEntry> rows = {
      {"aten::repeat", "", {arg("self", T), arg("repeats", Ints)}, repeat},
      {"aten::repeat_interleave",
       "",
       {arg("self", T), arg("repeats", ArgKind::kTensorOrScalar), opt("dim", Int),
        opt("output_size", Int)},
       repeat_interleave},
      // repeat_interleave.Tensor(repeats): each i repeated repeats[i] times, a data-dependent
      // count
      {"aten::repeat_interleave",
       "Tensor",
       {arg("repeats", T), opt("output_size", Int)},
       [](Ctx& c) -> Outputs {
         return c.unsupported_arg(
             "repeat_interleave of a tensor of counts (its result size depends on the data)");
       }},
      {"aten::unflatten", "", {arg("self", T), arg("dim", Int), arg("sizes", Ints)}, unflatten},
  };
  table.insert(table.end(), rows.begin(), rows.end());
}

}  // namespace inferno::frontend::aten
