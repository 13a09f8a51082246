// Slicing in the ATen table: slice, narrow and select take one piece of a tensor (roll joins two
// pieces per dim in the other order); chunk, split,
// split_with_sizes and unbind cut it into a list of pieces (TorchScript's Tensor[] results, which
// prim::ListUnpack takes apart, and the .pt2 `as_tensors` outputs). Each piece is one IR slice
// (select and unbind then drop the dim with a reshape), with PyTorch's bounds resolved here:
// negative and out-of-range slice bounds clamp as Python's, chunk's and split's piece sizes
// follow ATen's (the last piece may be smaller; chunk may give fewer pieces than asked).
#include <limits>
#include <string>
#include <vector>

#include "frontend/aten_builders.h"

namespace inferno::frontend::aten {
namespace {

using ir::IntList;
using ir::OpKind;
using ir::ValueId;

constexpr ArgKind T = ArgKind::kTensor, Int = ArgKind::kInt, Ints = ArgKind::kInts;

// A model's list of pieces becomes that many IR nodes: more than this is refused (exit 2).
constexpr int64_t kMaxPieces = 65536;

/// The dim argument of a slicing op, normalized; slicing a 0-dim tensor is invalid in PyTorch.
Expected<int64_t> slicing_dim(const Ctx& c, ValueId x, int64_t dim) {
  if (c.type(x).rank() == 0) return c.invalid("cannot be applied to a 0-dim tensor");
  return c.dim(dim, c.type(x).rank());
}

/// The refusal of a list of `count` pieces, checked before the list is made.
Status too_many_pieces(const Ctx& c, int64_t count) {
  return c.unsupported_arg("cuts a tensor into " + std::to_string(count) + " pieces (at most " +
                           std::to_string(kMaxPieces) + " are supported)");
}

/// Consecutive pieces of `sizes` along `dim` (they sum to its size), named <node>_0, _1, ...
Outputs pieces(const Ctx& c, ValueId x, int64_t dim, const std::vector<int64_t>& sizes) {
  const auto count = static_cast<int64_t>(sizes.size());
  if (count > kMaxPieces) return too_many_pieces(c, count);
  std::vector<ValueId> out;
  int64_t start = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    INFERNO_ASSIGN_OR_RETURN(ValueId piece,
                             slice_dim(c, x, dim, start, start + sizes[i], 1, std::to_string(i)));
    out.push_back(piece);
    start += sizes[i];
  }
  return out;
}

/// x with dim `dim` (of size 1) dropped.
Expected<ValueId> drop_dim(const Ctx& c, ValueId x, int64_t dim, const std::string& suffix) {
  ir::Shape shape = c.type(x).shape;
  shape.erase(shape.begin() + dim);
  return c.build(OpKind::kReshape, {x}, attrs({{"shape", std::move(shape)}}), suffix);
}

// slice(self, dim=0, start=None, end=None, step=1), as Python's x[start:end:step] in one dim.
Outputs slice(Ctx& c) {
  const ValueId x = c.a.tensor("self");
  INFERNO_ASSIGN_OR_RETURN(int64_t dim, slicing_dim(c, x, c.a.get_int("dim")));
  const int64_t size = c.type(x).shape[static_cast<size_t>(dim)];
  const int64_t step = c.a.get_int("step");
  if (step < 1) return c.invalid("slice step must be positive, got " + std::to_string(step));
  const auto [start, end] =
      slice_bounds(size, c.a.is_none("start") ? 0 : c.a.get_int("start"),
                   c.a.is_none("end") ? std::numeric_limits<int64_t>::max() : c.a.get_int("end"));
  return one(slice_dim(c, x, dim, start, end, step, ""));
}

// narrow(self, dim, start, length): x[start : start + length] in dim, which must fit.
Outputs narrow(Ctx& c) {
  const ValueId x = c.a.tensor("self");
  INFERNO_ASSIGN_OR_RETURN(int64_t dim, slicing_dim(c, x, c.a.get_int("dim")));
  const int64_t size = c.type(x).shape[static_cast<size_t>(dim)];
  int64_t start = c.a.get_int("start");
  const int64_t length = c.a.get_int("length");
  if (start < 0 && start >= -size) start += size;
  if (start < 0 || start > size || length < 0 || length > size - start) {
    return c.invalid("start " + std::to_string(c.a.get_int("start")) + " and length " +
                     std::to_string(length) + " do not fit dim " + std::to_string(dim) +
                     " of size " + std::to_string(size));
  }
  return one(slice_dim(c, x, dim, start, start + length, 1, ""));
}

// select(self, dim, index): x[index] in dim, which is dropped.
Outputs select(Ctx& c) {
  const ValueId x = c.a.tensor("self");
  INFERNO_ASSIGN_OR_RETURN(int64_t dim, slicing_dim(c, x, c.a.get_int("dim")));
  const int64_t size = c.type(x).shape[static_cast<size_t>(dim)];
  const int64_t index = c.a.get_int("index");
  if (index < -size || index >= size) {
    return c.invalid("index " + std::to_string(index) + " is out of range for dim " +
                     std::to_string(dim) + " of size " + std::to_string(size));
  }
  const int64_t i = index < 0 ? index + size : index;
  INFERNO_ASSIGN_OR_RETURN(ValueId piece, slice_dim(c, x, dim, i, i + 1, 1, "slice"));
  return one(drop_dim(c, piece, dim, ""));
}

/// split's pieces: split_size each, the last one smaller; one (empty) piece of an empty dim.
Outputs split_by_size(const Ctx& c, ValueId x, int64_t dim, int64_t split_size) {
  const int64_t size = c.type(x).shape[static_cast<size_t>(dim)];
  if (split_size < 0 || (split_size == 0 && size != 0)) {
    return c.invalid("split_size " + std::to_string(split_size) + " does not split dim " +
                     std::to_string(dim) + " of size " + std::to_string(size));
  }
  if (split_size == 0 || size == 0) return pieces(c, x, dim, {0});
  const int64_t count = size / split_size + (size % split_size != 0 ? 1 : 0);
  if (count > kMaxPieces) return too_many_pieces(c, count);
  std::vector<int64_t> sizes(static_cast<size_t>(count), split_size);
  sizes.back() = size - split_size * (count - 1);
  return pieces(c, x, dim, sizes);
}

// split(self, split_size: int, dim=0)
Outputs split(Ctx& c) {
  const ValueId x = c.a.tensor("self");
  INFERNO_ASSIGN_OR_RETURN(int64_t dim, slicing_dim(c, x, c.a.get_int("dim")));
  return split_by_size(c, x, dim, c.a.get_int("split_size"));
}

// split_with_sizes(self, split_sizes, dim=0) and split.sizes: the sizes must add up to the dim.
Builder split_with_sizes(std::string_view sizes_arg) {
  return [sizes_arg](Ctx& c) -> Outputs {
    const ValueId x = c.a.tensor("self");
    INFERNO_ASSIGN_OR_RETURN(int64_t dim, slicing_dim(c, x, c.a.get_int("dim")));
    const int64_t size = c.type(x).shape[static_cast<size_t>(dim)];
    const std::vector<int64_t> sizes = c.a.get_ints(sizes_arg);
    int64_t sum = 0;
    bool fits = true;
    for (int64_t s : sizes) fits = fits && s >= 0 && !__builtin_add_overflow(sum, s, &sum);
    if (!fits || sum != size) {
      return c.invalid("split sizes " + ir::shape_to_string(sizes) + " do not add up to dim " +
                       std::to_string(dim) + " of size " + std::to_string(size));
    }
    return pieces(c, x, dim, sizes);
  };
}

// chunk(self, chunks, dim=0): pieces of ceil(size / chunks), as ATen (so 5 in 3 chunks is 2, 2,
// 1, and 4 in 3 chunks is 2, 2: fewer pieces than asked); an empty dim gives `chunks` empty ones.
Outputs chunk(Ctx& c) {
  const ValueId x = c.a.tensor("self");
  INFERNO_ASSIGN_OR_RETURN(int64_t dim, slicing_dim(c, x, c.a.get_int("dim")));
  const int64_t chunks = c.a.get_int("chunks");
  if (chunks < 1) return c.invalid("chunks must be positive, got " + std::to_string(chunks));
  const int64_t size = c.type(x).shape[static_cast<size_t>(dim)];
  if (size == 0) {
    if (chunks > kMaxPieces) return too_many_pieces(c, chunks);
    return pieces(c, x, dim, std::vector<int64_t>(static_cast<size_t>(chunks), 0));
  }
  return split_by_size(c, x, dim, size / chunks + (size % chunks != 0 ? 1 : 0));
}

// unbind(self, dim=0): every index of dim, each with dim dropped.
Outputs unbind(Ctx& c) {
  const ValueId x = c.a.tensor("self");
  INFERNO_ASSIGN_OR_RETURN(int64_t dim, slicing_dim(c, x, c.a.get_int("dim")));
  const int64_t size = c.type(x).shape[static_cast<size_t>(dim)];
  if (size > kMaxPieces) return too_many_pieces(c, size);
  INFERNO_ASSIGN_OR_RETURN(std::vector<ValueId> out,
                           pieces(c, x, dim, std::vector<int64_t>(static_cast<size_t>(size), 1)));
  for (size_t i = 0; i < out.size(); ++i) {
    INFERNO_ASSIGN_OR_RETURN(out[i], drop_dim(c, out[i], dim, "squeeze" + std::to_string(i)));
  }
  return out;
}

// roll(self, shifts, dims=[]): each dim's elements moved `shift` places on, wrapping around: the
// dim's last `shift` (mod its size) elements, then the rest, joined. No dims: x flattened,
// rolled, and shaped back.
Outputs roll(Ctx& c) {
  ValueId x = c.a.tensor("self");
  const ir::Shape shape = c.type(x).shape;
  const IntList shifts = c.a.get_ints("shifts");
  IntList dims = c.a.get_ints("dims");
  if (dims.empty()) {
    if (shifts.size() != 1) return c.invalid("without dims, shifts must hold one shift");
    INFERNO_ASSIGN_OR_RETURN(x, c.build(OpKind::kReshape, {x},
                                        attrs({{"shape", ir::Shape{c.type(x).numel()}}}), "flat"));
    dims = {0};
  }
  if (shifts.size() != dims.size()) {
    return c.invalid("shifts " + ir::shape_to_string(shifts) + " and dims " +
                     ir::shape_to_string(dims) + " differ in length");
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    INFERNO_ASSIGN_OR_RETURN(const int64_t dim, slicing_dim(c, x, dims[i]));
    const int64_t size = c.type(x).shape[static_cast<size_t>(dim)];
    const int64_t shift = size == 0 ? 0 : ((shifts[i] % size) + size) % size;
    if (shift == 0) continue;
    const std::string part = std::to_string(i);
    INFERNO_ASSIGN_OR_RETURN(const ValueId tail,
                             slice_dim(c, x, dim, size - shift, size, 1, "tail" + part));
    INFERNO_ASSIGN_OR_RETURN(const ValueId head,
                             slice_dim(c, x, dim, 0, size - shift, 1, "head" + part));
    INFERNO_ASSIGN_OR_RETURN(
        x, c.build(OpKind::kCat, {tail, head}, attrs({{"dim", dim}}), "rolled" + part));
  }
  if (c.type(x).shape != shape) {
    INFERNO_ASSIGN_OR_RETURN(x, c.build(OpKind::kReshape, {x}, attrs({{"shape", shape}})));
  }
  return std::vector<ValueId>{x};
}

}  // namespace

Expected<ir::ValueId> slice_dim(const Ctx& c, ir::ValueId x, int64_t dim, int64_t start,
                                int64_t end, int64_t step, const std::string& suffix) {
  const ir::Shape& shape = c.type(x).shape;
  if (start == 0 && end == shape[static_cast<size_t>(dim)] && step == 1) return x;
  ir::IntList starts(shape.size(), 0), ends = shape, steps(shape.size(), 1);
  starts[static_cast<size_t>(dim)] = start;
  ends[static_cast<size_t>(dim)] = end;
  steps[static_cast<size_t>(dim)] = step;
  return c.build(
      ir::OpKind::kSlice, {x},
      attrs(
          {{"starts", std::move(starts)}, {"ends", std::move(ends)}, {"steps", std::move(steps)}}),
      suffix);
}

std::pair<int64_t, int64_t> slice_bounds(int64_t size, int64_t start, int64_t end) {
  if (start < 0) start += size;  // no overflow: size >= 0 and start < 0
  if (end < 0) end += size;
  start = start < 0 ? 0 : start > size ? size : start;
  end = end < start ? start : end > size ? size : end;
  return {start, end};
}

void add_slice_entries(std::vector<OpEntry>& table) {
  const Schema slice_schema = {arg("self", T), arg("dim", Int, int64_t{0}), opt("start", Int),
                               opt("end", Int), arg("step", Int, int64_t{1})};
  const Schema narrow_schema = {arg("self", T), arg("dim", Int), arg("start", Int),
                                arg("length", Int)};
  const Schema select_schema = {arg("self", T), arg("dim", Int), arg("index", Int)};
  const Schema split_schema = {arg("self", T), arg("split_size", Int), arg("dim", Int, int64_t{0})};
  const Schema sizes_schema = {arg("self", T), arg("split_size", Ints),
                               arg("dim", Int, int64_t{0})};
  const Schema with_sizes_schema = {arg("self", T), arg("split_sizes", Ints),
                                    arg("dim", Int, int64_t{0})};
  const Schema chunk_schema = {arg("self", T), arg("chunks", Int), arg("dim", Int, int64_t{0})};
  const Schema unbind_schema = {arg("self", T), arg("dim", Int, int64_t{0})};
  // The _copy forms (functionalized exports) and unsafe_ forms (no aliasing checks) compute the
  // same values at inference.
  for (std::string_view name : {"aten::slice", "aten::slice_copy"})
    table.push_back({name, "", slice_schema, slice});
  for (std::string_view name : {"aten::narrow", "aten::narrow_copy"})
    table.push_back({name, "", narrow_schema, narrow});
  for (std::string_view name : {"aten::select", "aten::select_copy"})
    table.push_back({name, "", select_schema, select});
  table.push_back({"aten::roll",
                   "",
                   {arg("self", T), arg("shifts", Ints), arg("dims", Ints, IntList{})},
                   roll});
  // split(int) first: with no overload named, an int list does not bind it and falls to .sizes.
  for (std::string_view name : {"aten::split", "aten::unsafe_split", "aten::split_copy"}) {
    table.push_back({name, "", split_schema, split});
    table.push_back({name, "sizes", sizes_schema, split_with_sizes("split_size")});
  }
  for (std::string_view name :
       {"aten::split_with_sizes", "aten::unsafe_split_with_sizes", "aten::split_with_sizes_copy"})
    table.push_back({name, "", with_sizes_schema, split_with_sizes("split_sizes")});
  for (std::string_view name : {"aten::chunk", "aten::unsafe_chunk"})
    table.push_back({name, "", chunk_schema, chunk});
  for (std::string_view name : {"aten::unbind", "aten::unbind_copy"})
    table.push_back({name, "", unbind_schema, unbind});
}

}  // namespace inferno::frontend::aten
