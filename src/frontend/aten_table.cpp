// The ATen table: one entry per ATen op name (and, where overloads take different arguments, per
// overload group), each a schema (aten_schema.h) and a builder that emits IR.
//
// lower_aten_call strips an in-place suffix (`relu_` -> `relu`), picks the entry whose overload
// list names the call's overload, or else the first entry of that name whose schema binds, then
// runs its builder. Builders read bound arguments by schema name and build nodes with
// ir::build_value, so every node is typed by the IR's shape rules; layout ops resolve their
// arguments (-1, negative dims) into fully static attributes. This file holds the GEMM, layout,
// reduction and dtype entries; the elementwise families are in aten_elementwise.cpp, and what
// both share (Ctx, OpEntry, operand typing and casts) in aten_builders.h.
#include <algorithm>
#include <map>

#include "frontend/aten_builders.h"

namespace inferno::frontend {
namespace aten {

using ir::DType;
using ir::OpKind;
using ir::ValueId;

ir::Attributes attrs(std::initializer_list<std::pair<std::string, ir::AttrValue>> list) {
  ir::Attributes out;
  for (const auto& [k, v] : list) out.set(k, v);
  return out;
}

Outputs one(Expected<ValueId> v) {
  if (!v) return v.status();
  return std::vector<ValueId>{*v};
}

// ---- helpers -------------------------------------------------------------------------------

Expected<ValueId> cast(const Ctx& c, ValueId x, DType to, std::string_view suffix) {
  if (c.type(x).dtype == to) return x;
  return c.build(OpKind::kCast, {x}, attrs({{"dtype", to}}), suffix);
}

double number(const AtenArg& v) {
  if (std::holds_alternative<int64_t>(v)) return static_cast<double>(std::get<int64_t>(v));
  if (std::holds_alternative<bool>(v)) return std::get<bool>(v) ? 1 : 0;
  return std::get<double>(v);
}

DType operand_dtype(const AtenArg& v, DType peer) {
  if (!std::holds_alternative<ValueId>(v) && !ir::is_floating(peer)) {
    if (std::holds_alternative<double>(v)) return DType::kF32;
    if (peer == DType::kBool && std::holds_alternative<int64_t>(v)) return DType::kI64;
  }
  return peer;
}

ValueId operand(const Ctx& c, const AtenArg& v, DType peer, std::string_view suffix) {
  if (const auto* t = std::get_if<ValueId>(&v)) return *t;
  return ir::add_scalar_constant(c.g, number(v), operand_dtype(v, peer), c.name(suffix));
}

}  // namespace aten

namespace {

using namespace aten;  // NOLINT: the schema vocabulary and the builder helpers
using ir::DType;
using ir::OpKind;
using ir::ValueId;

constexpr ArgKind T = ArgKind::kTensor, Int = ArgKind::kInt, Float = ArgKind::kFloat,
                  Bool = ArgKind::kBool, Ints = ArgKind::kInts, DTy = ArgKind::kDType,
                  Num = ArgKind::kScalar, Any = ArgKind::kAny;

Expected<ValueId> reshape(const Ctx& c, ValueId x, ir::Shape shape, std::string_view suffix = "") {
  if (c.type(x).shape == shape) return x;
  return c.build(OpKind::kReshape, {x}, attrs({{"shape", std::move(shape)}}), suffix);
}

// ---- builders ------------------------------------------------------------------------------

Builder identity(std::string_view arg) {
  return [arg](Ctx& c) -> Outputs { return std::vector<ValueId>{c.a.tensor(arg)}; };
}

Outputs dropout(Ctx& c) {
  const std::optional<bool> train = c.a.opt_bool("train");
  // p = 0 drops nothing even in training mode (torchvision's Swin calls F.dropout(attn, p=0.0)).
  if ((!train || *train) && c.a.get_float("p") != 0)
    return c.unsupported_arg("dropout in training mode is not supported");
  const ValueId x = c.a.tensor("input");
  if (c.call.op != "aten::native_dropout") return std::vector<ValueId>{x};
  // native_dropout also returns the keep-mask: all true at inference.
  const ValueId ones = ir::add_scalar_constant(c.g, 1, DType::kBool, c.name("mask_value"));
  INFERNO_ASSIGN_OR_RETURN(
      ValueId mask, c.build(OpKind::kExpand, {ones}, attrs({{"shape", c.type(x).shape}}), "mask"));
  return std::vector<ValueId>{x, mask};
}

Outputs linear(Ctx& c) {
  std::vector<ValueId> in = {c.a.tensor("input"), c.a.tensor("weight")};
  if (auto bias = c.a.opt_tensor("bias")) in.push_back(*bias);
  return one(c.build(OpKind::kLinear, std::move(in)));
}

Outputs addmm(Ctx& c) {
  return one(c.build(OpKind::kAddMM, {c.a.tensor("self"), c.a.tensor("mat1"), c.a.tensor("mat2")},
                     attrs({{"alpha", c.a.get_float("alpha")}, {"beta", c.a.get_float("beta")}})));
}

// baddbmm = beta * self + alpha * (batch1 @ batch2) (Bloom's ALiBi attention scores): the batched
// product, then its scale and addend as elementwise ops that fusion folds into one kernel. With
// beta 0, self is not read (PyTorch ignores its values, NaN included).
Outputs baddbmm(Ctx& c) {
  const ValueId self = c.a.tensor("self"), b1 = c.a.tensor("batch1"), b2 = c.a.tensor("batch2");
  const ir::TensorType &t1 = c.type(b1), &t2 = c.type(b2);
  if (t1.rank() != 3 || t2.rank() != 3 || t1.shape[0] != t2.shape[0]) {
    return c.invalid("expects two 3-D tensors of one batch size, got " + t1.to_string() + " and " +
                     t2.to_string());
  }
  INFERNO_ASSIGN_OR_RETURN(ValueId product, c.build(OpKind::kMatMul, {b1, b2}, {}, "product"));
  const DType dtype = c.type(product).dtype;
  const auto times = [&](ValueId x, double factor, std::string_view what) -> Expected<ValueId> {
    if (factor == 1) return x;
    const ValueId k = ir::add_scalar_constant(c.g, factor, dtype, c.name(std::string(what)));
    return c.build(OpKind::kMul, {x, k}, {}, std::string(what) + "_times");
  };
  const Expected<ir::Shape> joint = ir::broadcast_shapes(c.type(self).shape, c.type(product).shape);
  if (!joint || *joint != c.type(product).shape) {
    return c.invalid("self " + c.type(self).to_string() + " does not broadcast to the product " +
                     c.type(product).to_string());
  }
  INFERNO_ASSIGN_OR_RETURN(product, times(product, number(c.a.get("alpha")), "alpha"));
  const double beta = number(c.a.get("beta"));
  if (beta == 0) return std::vector<ValueId>{product};
  INFERNO_ASSIGN_OR_RETURN(const ValueId addend, times(self, beta, "beta"));
  return one(c.build(OpKind::kAdd, {addend, product}));
}

// mm (rank 2 only), bmm (rank 3, equal batch) and matmul (any ranks) all become ir MatMul.
Builder matmul(int64_t rank, std::string_view rhs) {
  return [rank, rhs](Ctx& c) -> Outputs {
    const ValueId x = c.a.tensor("self"), y = c.a.tensor(rhs);
    const ir::TensorType &tx = c.type(x), &ty = c.type(y);
    if (rank > 0 && (tx.rank() != rank || ty.rank() != rank)) {
      return c.invalid("expects two " + std::to_string(rank) + "-D tensors, got " + tx.to_string() +
                       " and " + ty.to_string());
    }
    if (rank == 3 && tx.shape[0] != ty.shape[0]) {
      return c.invalid("batch sizes differ (" + tx.to_string() + ", " + ty.to_string() + ")");
    }
    return one(c.build(OpKind::kMatMul, {x, y}));
  };
}

Outputs transpose(Ctx& c) {
  const ValueId x = c.a.tensor("self");
  const int64_t rank = c.type(x).rank();
  INFERNO_ASSIGN_OR_RETURN(int64_t d0, c.dim(c.a.get_int("dim0"), rank));
  INFERNO_ASSIGN_OR_RETURN(int64_t d1, c.dim(c.a.get_int("dim1"), rank));
  if (d0 == d1 || rank < 2) return std::vector<ValueId>{x};
  return one(c.build(OpKind::kTranspose, {x},
                     attrs({{"dim0", std::min(d0, d1)}, {"dim1", std::max(d0, d1)}})));
}

Outputs t(Ctx& c) {
  const ValueId x = c.a.tensor("self");
  if (c.type(x).rank() > 2)
    return c.invalid("expects a tensor with at most 2 dims, got " + c.type(x).to_string());
  if (c.type(x).rank() < 2) return std::vector<ValueId>{x};
  return one(c.build(OpKind::kTranspose, {x}, attrs({{"dim0", int64_t{0}}, {"dim1", int64_t{1}}})));
}

Outputs permute(Ctx& c) {
  const ValueId x = c.a.tensor("self");
  ir::IntList dims = c.a.get_ints("dims");
  bool is_identity = true;
  for (size_t i = 0; i < dims.size(); ++i) {
    INFERNO_ASSIGN_OR_RETURN(dims[i], c.dim(dims[i], c.type(x).rank()));
    is_identity = is_identity && dims[i] == static_cast<int64_t>(i);
  }
  if (is_identity && static_cast<int64_t>(dims.size()) == c.type(x).rank())
    return std::vector<ValueId>{x};
  return one(c.build(OpKind::kPermute, {x}, attrs({{"dims", std::move(dims)}})));
}

// The target shape of a view or expand: argument `size_arg` (ints), or for "other" the shape of
// that tensor (view_as, reshape_as, expand_as).
ir::Shape target_shape(const Ctx& c, std::string_view size_arg) {
  if (size_arg == "other") return c.type(c.a.tensor("other")).shape;
  return c.a.get_ints(size_arg);
}

// view/reshape: resolves one -1 against the input's element count.
Builder view(std::string_view size_arg) {
  return [size_arg](Ctx& c) -> Outputs {
    const ValueId x = c.a.tensor("self");
    ir::Shape shape = target_shape(c, size_arg);
    const int64_t numel = c.type(x).numel();
    int64_t known = 1, infer = -1;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] == -1 && infer < 0)
        infer = static_cast<int64_t>(i);
      else if (shape[i] < 0)
        return c.invalid("bad target shape " + ir::shape_to_string(shape));
      else if (__builtin_mul_overflow(known, shape[i], &known))
        return c.invalid("target shape overflows");
    }
    if (infer >= 0) {
      if (known == 0 || numel % known != 0) {
        return c.invalid("shape " + ir::shape_to_string(shape) + " is invalid for input " +
                         c.type(x).to_string());
      }
      shape[infer] = numel / known;
    } else if (known != numel) {
      return c.invalid("shape " + ir::shape_to_string(shape) + " is invalid for input " +
                       c.type(x).to_string());
    }
    return one(reshape(c, x, std::move(shape)));
  };
}

Outputs flatten(Ctx& c) {
  const ValueId x = c.a.tensor("self");
  const ir::Shape& in = c.type(x).shape;
  if (in.empty()) return one(reshape(c, x, {1}));
  INFERNO_ASSIGN_OR_RETURN(int64_t start, c.dim(c.a.get_int("start_dim"), c.type(x).rank()));
  INFERNO_ASSIGN_OR_RETURN(int64_t end, c.dim(c.a.get_int("end_dim"), c.type(x).rank()));
  if (start > end)
    return c.invalid("start_dim " + std::to_string(start) + " is after end_dim " +
                     std::to_string(end));
  ir::Shape out(in.begin(), in.begin() + start);
  out.push_back(ir::shape_numel(ir::Shape(in.begin() + start, in.begin() + end + 1)));
  out.insert(out.end(), in.begin() + end + 1, in.end());
  return one(reshape(c, x, std::move(out)));
}

Outputs unsqueeze(Ctx& c) {
  const ValueId x = c.a.tensor("self");
  INFERNO_ASSIGN_OR_RETURN(int64_t d, c.dim(c.a.get_int("dim"), c.type(x).rank() + 1));
  ir::Shape out = c.type(x).shape;
  out.insert(out.begin() + d, 1);
  return one(reshape(c, x, std::move(out)));
}

// squeeze: all size-1 dims (no dim), or the listed ones that have size 1.
Outputs squeeze(Ctx& c) {
  const ValueId x = c.a.tensor("self");
  const ir::Shape& in = c.type(x).shape;
  std::vector<bool> drop(in.size(), false);
  if (std::optional<ir::IntList> dims = c.a.opt_ints("dim")) {
    for (int64_t d : *dims) {
      INFERNO_ASSIGN_OR_RETURN(int64_t n, c.dim(d, c.type(x).rank()));
      if (!in.empty()) drop[n] = in[n] == 1;
    }
  } else {
    for (size_t i = 0; i < in.size(); ++i) drop[i] = in[i] == 1;
  }
  ir::Shape out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!drop[i]) out.push_back(in[i]);
  }
  return one(reshape(c, x, std::move(out)));
}

Outputs expand_to(Ctx& c, ir::Shape shape) {
  const ValueId x = c.a.tensor("self");
  const ir::Shape& in = c.type(x).shape;
  if (shape.size() < in.size())
    return c.invalid("cannot expand " + c.type(x).to_string() + " to fewer dims");
  const size_t lead = shape.size() - in.size();
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] != -1) continue;
    if (i < lead)
      return c.invalid("-1 is not allowed for a new leading dim in " + ir::shape_to_string(shape));
    shape[i] = in[i - lead];
  }
  if (shape == in) return std::vector<ValueId>{x};
  return one(c.build(OpKind::kExpand, {x}, attrs({{"shape", std::move(shape)}})));
}

Builder expand(std::string_view size_arg) {
  return [size_arg](Ctx& c) -> Outputs { return expand_to(c, target_shape(c, size_arg)); };
}

// sum/mean: a dtype argument casts first; dims normalized, sorted, deduplicated; none = all.
Builder reduce(OpKind op) {
  return [op](Ctx& c) -> Outputs {
    ValueId x = c.a.tensor("self");
    if (std::optional<DType> dtype = c.a.opt_dtype("dtype")) {
      INFERNO_ASSIGN_OR_RETURN(x, cast(c, x, *dtype, "cast"));
    }
    ir::IntList dims;
    if (c.a.has("dim") && !c.a.is_none("dim") && c.type(x).rank() > 0) {
      for (int64_t d : c.a.get_ints("dim")) {
        INFERNO_ASSIGN_OR_RETURN(int64_t n, c.dim(d, c.type(x).rank()));
        dims.push_back(n);
      }
      std::sort(dims.begin(), dims.end());
      dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
    }
    const bool keepdim = c.a.has("keepdim") && c.a.get_bool("keepdim");
    return one(c.build(op, {x}, attrs({{"dims", std::move(dims)}, {"keepdim", keepdim}})));
  };
}

// any/all (bool results) as counts: any = sum(x != 0) != 0, all = sum(x == 0) == 0, over the
// dims given (one int, a list, or none = every dim). The counts are summed in f32 (codegen reduces
// floating types): a sum of zeros and ones is exactly 0 only when every term is 0, whatever it
// rounds to above 2^24.
Builder any_all(bool any) {
  return [any](Ctx& c) -> Outputs {
    const ValueId x = c.a.tensor("self");
    const int64_t rank = c.type(x).rank();
    ir::IntList dims;
    if (c.a.has("dim") && !c.a.is_none("dim") && rank > 0) {
      const AtenArg& d = c.a.get("dim");
      const ir::IntList given = std::holds_alternative<int64_t>(d)
                                    ? ir::IntList{std::get<int64_t>(d)}
                                    : c.a.get_ints("dim");
      for (int64_t v : given) {
        INFERNO_ASSIGN_OR_RETURN(int64_t n, c.dim(v, rank));
        dims.push_back(n);
      }
      std::sort(dims.begin(), dims.end());
      dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
    }
    const bool keepdim = c.a.has("keepdim") && c.a.get_bool("keepdim");
    const ValueId zero = ir::add_scalar_constant(c.g, 0, c.type(x).dtype, c.name("zero"));
    INFERNO_ASSIGN_OR_RETURN(ValueId hit,
                             c.build(any ? OpKind::kNe : OpKind::kEq, {x, zero}, {}, "hit"));
    INFERNO_ASSIGN_OR_RETURN(ValueId count, cast(c, hit, DType::kF32, "count"));
    INFERNO_ASSIGN_OR_RETURN(
        ValueId total, c.build(OpKind::kSum, {count},
                               attrs({{"dims", std::move(dims)}, {"keepdim", keepdim}}), "total"));
    const ValueId none = ir::add_scalar_constant(c.g, 0, DType::kF32, c.name("none"));
    return one(c.build(any ? OpKind::kNe : OpKind::kEq, {total, none}));
  };
}

Builder softmax(OpKind op) {
  return [op](Ctx& c) -> Outputs {
    ValueId x = c.a.tensor("self");
    if (c.a.has("half_to_float") && c.a.get_bool("half_to_float")) {
      return c.unsupported_arg("half_to_float=True is not supported");
    }
    if (c.a.has("dtype")) {
      if (std::optional<DType> dtype = c.a.opt_dtype("dtype")) {
        INFERNO_ASSIGN_OR_RETURN(x, cast(c, x, *dtype, "cast"));
      }
    }
    INFERNO_ASSIGN_OR_RETURN(int64_t d, c.dim(c.a.get_int("dim"), c.type(x).rank()));
    return one(c.build(op, {x}, attrs({{"dim", d}})));
  };
}

// to / _to_copy / type_as: a Cast when the dtype changes; device and layout are ignored.
Outputs to_dtype(Ctx& c) {
  const ValueId x = c.a.tensor("self");
  std::optional<DType> dtype;
  if (c.a.has("other")) dtype = c.type(c.a.tensor("other")).dtype;
  if (c.a.has("dtype")) dtype = c.a.opt_dtype("dtype");
  if (!dtype) return std::vector<ValueId>{x};
  return one(cast(c, x, *dtype));
}

Outputs refuse_view_dtype(Ctx& c) {
  return c.unsupported_arg("reinterpreting a tensor as another dtype is not supported");
}

// ---- the table -----------------------------------------------------------------------------

std::vector<OpEntry> make_table() {
  const Schema self_only = {arg("self", T)};
  const Schema drop = {arg("input", T), arg("p", Float), arg("train", Bool)};
  const Schema reduce_dims = {arg("self", T), opt("dim", Ints), arg("keepdim", Bool, false),
                              opt("dtype", DTy)};
  const Schema reduce_all = {arg("self", T), opt("dtype", DTy)};
  const Schema copy_flags = {arg("non_blocking", Any, false), arg("copy", Any, false),
                             opt("memory_format", Any)};
  auto with = [](Schema s, const Schema& more) {
    s.insert(s.end(), more.begin(), more.end());
    return s;
  };
  std::vector<OpEntry> table = {
      // GEMMs
      {"aten::linear", "", {arg("input", T), arg("weight", T), opt("bias", T)}, linear},
      {"aten::addmm",
       "",
       {arg("self", T), arg("mat1", T), arg("mat2", T), arg("beta", Num, int64_t{1}),
        arg("alpha", Num, int64_t{1})},
       addmm},
      {"aten::baddbmm",
       "",
       {arg("self", T), arg("batch1", T), arg("batch2", T), arg("beta", Num, int64_t{1}),
        arg("alpha", Num, int64_t{1})},
       baddbmm},
      {"aten::mm", "", {arg("self", T), arg("mat2", T)}, matmul(2, "mat2")},
      {"aten::bmm", "", {arg("self", T), arg("mat2", T)}, matmul(3, "mat2")},
      {"aten::matmul", "", {arg("self", T), arg("other", T)}, matmul(0, "other")},
      // layout
      {"aten::t", "", self_only, t},
      {"aten::transpose", "", {arg("self", T), arg("dim0", Int), arg("dim1", Int)}, transpose},
      {"aten::permute", "", {arg("self", T), arg("dims", Ints)}, permute},
      {"aten::view", "dtype", {arg("self", T), arg("dtype", DTy)}, refuse_view_dtype},
      {"aten::view", "", {arg("self", T), arg("size", Ints)}, view("size")},
      {"aten::view_copy", "", {arg("self", T), arg("size", Ints)}, view("size")},
      {"aten::_unsafe_view", "", {arg("self", T), arg("size", Ints)}, view("size")},
      {"aten::reshape", "", {arg("self", T), arg("shape", Ints)}, view("shape")},
      {"aten::flatten",
       "",
       {arg("self", T), arg("start_dim", Int, int64_t{0}), arg("end_dim", Int, int64_t{-1})},
       flatten},
      {"aten::unsqueeze", "", {arg("self", T), arg("dim", Int)}, unsqueeze},
      {"aten::squeeze", "", {arg("self", T), opt("dim", Ints)}, squeeze},
      {"aten::expand",
       "",
       {arg("self", T), arg("size", Ints), arg("implicit", Bool, false)},
       expand("size")},
      {"aten::expand_as", "", {arg("self", T), arg("other", T)}, expand("other")},
      {"aten::view_as", "", {arg("self", T), arg("other", T)}, view("other")},
      {"aten::reshape_as", "", {arg("self", T), arg("other", T)}, view("other")},
      // identities at inference
      {"aten::contiguous", "", {arg("self", T), opt("memory_format", Any)}, identity("self")},
      {"aten::clone", "", {arg("self", T), opt("memory_format", Any)}, identity("self")},
      {"aten::detach", "", self_only, identity("self")},
      {"aten::alias", "", self_only, identity("self")},
      {"aten::lift_fresh_copy", "", self_only, identity("self")},
      {"aten::dropout", "", drop, dropout},
      {"aten::feature_dropout", "", drop, dropout},
      {"aten::alpha_dropout", "", drop, dropout},
      {"aten::feature_alpha_dropout", "", drop, dropout},
      {"aten::native_dropout", "", {arg("input", T), arg("p", Float), opt("train", Bool)}, dropout},
      // reductions
      {"aten::any", "default", {arg("self", T)}, any_all(true)},
      {"aten::any",
       "dim",
       {arg("self", T), arg("dim", Int), arg("keepdim", Bool, false)},
       any_all(true)},
      {"aten::any",
       "",
       {arg("self", T), opt("dim", Ints), arg("keepdim", Bool, false)},
       any_all(true)},
      {"aten::all", "default", {arg("self", T)}, any_all(false)},
      {"aten::all",
       "dim",
       {arg("self", T), arg("dim", Int), arg("keepdim", Bool, false)},
       any_all(false)},
      {"aten::all",
       "",
       {arg("self", T), opt("dim", Ints), arg("keepdim", Bool, false)},
       any_all(false)},
      {"aten::sum", "default", reduce_all, reduce(OpKind::kSum)},
      {"aten::sum", "", reduce_dims, reduce(OpKind::kSum)},
      {"aten::mean", "default", reduce_all, reduce(OpKind::kMean)},
      {"aten::mean", "", reduce_dims, reduce(OpKind::kMean)},
      {"aten::softmax",
       "",
       {arg("self", T), arg("dim", Int), opt("dtype", DTy)},
       softmax(OpKind::kSoftmax)},
      {"aten::_softmax",
       "",
       {arg("self", T), arg("dim", Int), arg("half_to_float", Bool)},
       softmax(OpKind::kSoftmax)},
      {"aten::log_softmax",
       "",
       {arg("self", T), arg("dim", Int), opt("dtype", DTy)},
       softmax(OpKind::kLogSoftmax)},
      {"aten::_log_softmax",
       "",
       {arg("self", T), arg("dim", Int), arg("half_to_float", Bool)},
       softmax(OpKind::kLogSoftmax)},
      // dtype conversions (TorchScript's prim_* overloads included)
      {"aten::to", "dtype", with({arg("self", T), arg("dtype", DTy)}, copy_flags), to_dtype},
      {"aten::to", "device",
       with({arg("self", T), arg("device", Any), arg("dtype", DTy)}, copy_flags), to_dtype},
      {"aten::to", "dtype_layout",
       with({arg("self", T), opt("dtype", DTy), opt("layout", Any), opt("device", Any),
             opt("pin_memory", Any)},
            copy_flags),
       to_dtype},
      {"aten::to", "other", with({arg("self", T), arg("other", T)}, copy_flags), to_dtype},
      {"aten::to",
       "prim_Device",
       {arg("self", T), opt("device", Any), opt("dtype", DTy), arg("non_blocking", Any, false),
        arg("copy", Any, false)},
       to_dtype},
      {"aten::to",
       "prim_dtype",
       {arg("self", T), opt("dtype", DTy), arg("non_blocking", Any, false),
        arg("copy", Any, false)},
       to_dtype},
      {"aten::to",
       "prim_other",
       {arg("self", T), arg("non_blocking", Any, false), arg("copy", Any, false)},
       to_dtype},
      {"aten::_to_copy",
       "",
       {arg("self", T), opt("dtype", DTy), opt("layout", Any), opt("device", Any),
        opt("pin_memory", Any), arg("non_blocking", Any, false), opt("memory_format", Any)},
       to_dtype},
      {"aten::type_as", "", {arg("self", T), arg("other", T)}, to_dtype},
  };
  add_elementwise_entries(table);
  add_conv_entries(table);
  add_pool_entries(table);
  add_batch_norm_entries(table);
  add_join_entries(table);
  add_resize_entries(table);
  add_norm_entries(table);
  add_slice_entries(table);
  add_einsum_entries(table);
  add_range_entries(table);
  add_repeat_entries(table);
  add_index_entries(table);
  add_scatter_entries(table);
  add_scan_entries(table);
  add_extrema_entries(table);
  add_attention_entries(table);
  add_statistics_entries(table);
  return table;
}

const std::multimap<std::string_view, const OpEntry*, std::less<>>& table_index() {
  static const std::vector<OpEntry> table = make_table();
  static const auto index = [] {
    std::multimap<std::string_view, const OpEntry*, std::less<>> m;
    for (const OpEntry& e : table) m.emplace(e.name, &e);
    return m;
  }();
  return index;
}

// "aten::relu_" -> "aten::relu" (in-place variants are aliases); dunder names are left alone.
std::string_view base_name(std::string_view op) {
  if (op.size() > 1 && op.back() == '_' && op[op.size() - 2] != '_') op.remove_suffix(1);
  return op;
}

bool lists_overload(std::string_view overloads, std::string_view overload) {
  if (overload.empty()) return false;
  size_t pos = 0;
  while (pos <= overloads.size()) {
    const size_t end = std::min(overloads.find(' ', pos), overloads.size());
    if (overloads.substr(pos, end - pos) == overload) return true;
    pos = end + 1;
  }
  return false;
}

}  // namespace

bool is_supported_aten_op(std::string_view op) { return table_index().contains(base_name(op)); }

Expected<std::vector<ir::ValueId>> lower_aten_call(ir::Graph& graph, const AtenCall& call) {
  auto [begin, end] = table_index().equal_range(base_name(call.op));
  if (begin == end) return unsupported_ops_error({unsupported(call.op, call.node_name, call.loc)});
  // An entry that names the overload wins; otherwise the first whose schema binds.
  std::vector<const OpEntry*> candidates;
  for (auto it = begin; it != end; ++it) {
    if (lists_overload(it->second->overloads, call.overload)) candidates = {it->second};
  }
  if (candidates.empty()) {
    for (auto it = begin; it != end; ++it) candidates.push_back(it->second);
  }
  // When none binds, the general entry (no overload list) explains best.
  std::optional<Status> error;
  for (const OpEntry* entry : candidates) {
    Expected<aten::BoundArgs> bound = aten::bind_arguments(entry->schema, call);
    if (!bound) {
      if (!error || entry->overloads.empty()) error = bound.status();
      continue;
    }
    Ctx ctx{graph, call, *bound};
    Outputs out = entry->build(ctx);
    if (!out &&
        out.status().message().rfind(call.op, 0) != 0) {  // name the ATen op in shape errors
      const Status& s = out.status();
      return Status(s.code(), call.op + ": " + s.message(), s.node(), s.location());
    }
    // An in-place variant writes into self, so its result keeps self's dtype (f16 `x.add_(y)`
    // with an f32 y stays f16); PyTorch refuses a result of a higher category (a float result
    // into an integer tensor, an integer one into a bool tensor).
    const ValueId* self =
        call.positional.empty() ? nullptr : std::get_if<ValueId>(&call.positional[0]);
    if (out && base_name(call.op) != call.op && self && out->size() == 1) {
      const DType to = graph.type(*self).dtype, from = graph.type(out->front()).dtype;
      if (from == to) return out;
      if ((ir::is_floating(from) && !ir::is_floating(to)) ||
          (ir::is_integral(from) && to == DType::kBool)) {
        return ctx.invalid("the result of dtype " + std::string(ir::dtype_name(from)) +
                           " cannot be written in place into a tensor of dtype " +
                           std::string(ir::dtype_name(to)));
      }
      INFERNO_ASSIGN_OR_RETURN(out->front(), cast(ctx, out->front(), to, "inplace"));
    }
    return out;
  }
  return *error;
}

Status unsupported_ops_error(const std::vector<Status>& each) {
  std::string message = "model uses " + std::to_string(each.size()) + " unsupported op" +
                        (each.size() == 1 ? "" : "s") + ":";
  for (const Status& s : each) message += "\n  " + s.to_string();
  return unsupported(std::move(message));
}

}  // namespace inferno::frontend
