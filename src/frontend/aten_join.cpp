// The joins of the ATen table: cat/concat/concatenate (and stack, after a reshape of each input
// adds the new dim) onto the IR's cat (inputs converted to the promoted dtype, as torch.cat does;
// the legacy empty 1-D inputs skipped; more than 32 inputs joined in groups) and
// constant_pad_nd/pad (mode "constant") onto constant_pad, whose pad list (last dim first,
// before/after pairs, negative crops) becomes one before and one after per dim.
#include <string>
#include <vector>

#include "frontend/aten_builders.h"

namespace inferno::frontend::aten {
namespace {

using ir::DType;
using ir::OpKind;
using ir::ValueId;

constexpr ArgKind T = ArgKind::kTensor, Int = ArgKind::kInt, Ints = ArgKind::kInts,
                  TList = ArgKind::kTensorList, Str = ArgKind::kString, Num = ArgKind::kScalar;

constexpr size_t kMaxCatInputs = 32;  // ops.def's arity of cat

// `in` (non-empty) joined along dim, in their promoted dtype.
Outputs join(Ctx& c, std::vector<ValueId> in, int64_t dim_arg) {
  std::vector<ir::TensorType> types;
  for (const ValueId v : in) types.push_back(c.type(v));
  const DType dtype = ir::promote_operands(types);
  for (size_t k = 0; k < in.size(); ++k) {
    INFERNO_ASSIGN_OR_RETURN(in[k], cast(c, in[k], dtype, "cast" + std::to_string(k)));
  }
  INFERNO_ASSIGN_OR_RETURN(int64_t dim, c.dim(dim_arg, c.type(in.front()).rank()));
  const ir::Attributes a = attrs({{"dim", dim}});
  if (in.size() == 1) return std::vector<ValueId>{in.front()};
  while (in.size() > kMaxCatInputs) {  // join the first 32, then the rest with that
    std::vector<ValueId> group(in.begin(), in.begin() + kMaxCatInputs);
    INFERNO_ASSIGN_OR_RETURN(ValueId joined, c.build(OpKind::kCat, std::move(group), a,
                                                     "part" + std::to_string(in.size())));
    in.erase(in.begin(), in.begin() + kMaxCatInputs);
    in.insert(in.begin(), joined);
  }
  return one(c.build(OpKind::kCat, std::move(in), a));
}

Outputs cat(Ctx& c) {
  std::vector<ValueId> in;
  for (const ValueId v : c.a.tensors("tensors")) {
    // torch.cat skips 1-D empty tensors whatever the other inputs' shapes (legacy behaviour).
    if (c.type(v).shape != ir::Shape{0}) in.push_back(v);
  }
  if (in.empty()) {
    const std::vector<ValueId> all = c.a.tensors("tensors");
    if (all.empty()) return c.invalid("expects a non-empty list of tensors");
    in = {all.front()};  // every input is [0]: so is the result
  }
  return join(c, std::move(in), c.a.get_int("dim"));
}

// stack: tensors of one shape, each given a size-1 dim at `dim`, then joined there.
Outputs stack(Ctx& c) {
  std::vector<ValueId> in = c.a.tensors("tensors");
  if (in.empty()) return c.invalid("expects a non-empty list of tensors");
  const ir::Shape shape = c.type(in.front()).shape;
  INFERNO_ASSIGN_OR_RETURN(const int64_t dim,
                           c.dim(c.a.get_int("dim"), static_cast<int64_t>(shape.size()) + 1));
  ir::Shape unsqueezed = shape;
  unsqueezed.insert(unsqueezed.begin() + dim, 1);
  for (size_t k = 0; k < in.size(); ++k) {
    if (c.type(in[k]).shape != shape) {
      return c.invalid("expects tensors of one shape, got " + c.type(in.front()).to_string() +
                       " and " + c.type(in[k]).to_string());
    }
    INFERNO_ASSIGN_OR_RETURN(in[k],
                             c.build(OpKind::kReshape, {in[k]}, attrs({{"shape", unsqueezed}}),
                                     "item" + std::to_string(k)));
  }
  return join(c, std::move(in), dim);
}

Outputs constant_pad(Ctx& c) {
  const ValueId x = c.a.tensor("self");
  if (c.a.has("mode")) {
    const std::string& mode = c.a.get_string("mode");
    if (mode != "constant")
      return c.unsupported_arg("padding mode '" + mode + "' is not supported (only 'constant')");
  }
  const ir::IntList pad = c.a.get_ints("pad");
  const int64_t rank = c.type(x).rank();
  if (pad.size() % 2 != 0 || static_cast<int64_t>(pad.size()) > 2 * rank) {
    return c.invalid("the pad list " + ir::shape_to_string(pad) +
                     " must hold before/after pairs for at most " + std::to_string(rank) + " dims");
  }
  ir::IntList before(static_cast<size_t>(rank), 0), after(static_cast<size_t>(rank), 0);
  for (size_t k = 0; k < pad.size() / 2; ++k) {  // pair k pads dim rank - 1 - k
    before[static_cast<size_t>(rank) - 1 - k] = pad[2 * k];
    after[static_cast<size_t>(rank) - 1 - k] = pad[2 * k + 1];
  }
  double value = 0;
  if (c.a.has("value") && !c.a.is_none("value")) value = number(c.a.get("value"));
  const ValueId fill = ir::add_scalar_constant(c.g, value, c.type(x).dtype, c.name("fill"));
  return one(c.build(OpKind::kConstantPad, {x, fill},
                     attrs({{"before", std::move(before)}, {"after", std::move(after)}})));
}

}  // namespace

void add_join_entries(std::vector<OpEntry>& table) {
  const Schema cat_schema = {arg("tensors", TList), arg("dim", Int, int64_t{0})};
  const std::vector<OpEntry> rows = {
      {"aten::cat", "", cat_schema, cat},
      {"aten::concat", "", cat_schema, cat},
      {"aten::concatenate", "", cat_schema, cat},
      {"aten::stack", "", cat_schema, stack},
      {"aten::constant_pad_nd",
       "",
       {arg("self", T), arg("pad", Ints), arg("value", Num, int64_t{0})},
       constant_pad},
      {"aten::pad",
       "",
       {arg("self", T), arg("pad", Ints), arg("mode", Str, std::string("constant")),
        opt("value", ArgKind::kFloat)},
       constant_pad},
  };
  table.insert(table.end(), rows.begin(), rows.end());
}

}  // namespace inferno::frontend::aten
