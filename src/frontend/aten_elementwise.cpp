// The elementwise families of the ATen table: activations, math, arithmetic, comparisons and
// logic, bit operations, selection (where, masked_fill) and fills (full, zeros_like, empty, ...).
//
// Most ops are one row of a list below: the ATen name and the IR op (ir/ops.def), built by the
// generic `ew` builder, which binds the call's arguments in order to the op's operands. Python
// numbers become rank-0 constants typed against the tensor operand (PyTorch's scalar promotion),
// scalar parameters included (leaky_relu's slope, elu's alpha, softplus's beta). Ops of the
// kFloat class get floating operands: integer and bool tensors are converted first, to the
// promoted dtype or f32, as PyTorch computes sqrt of an integer tensor in the default dtype.
#include <cmath>
#include <optional>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "frontend/aten_builders.h"

namespace inferno::frontend::aten {
namespace {

using ir::DType;
using ir::OpKind;
using ir::ValueId;

constexpr ArgKind T = ArgKind::kTensor, Ints = ArgKind::kInts, Str = ArgKind::kString,
                  DTy = ArgKind::kDType, Num = ArgKind::kScalar, TorNum = ArgKind::kTensorOrScalar,
                  Any = ArgKind::kAny, Int = ArgKind::kInt;

/// The dtype PyTorch gives a Python number on its own: float -> f32 (the default dtype), int ->
/// i64, bool -> bool.
DType scalar_dtype(const AtenArg& v) {
  if (std::holds_alternative<double>(v)) return DType::kF32;
  if (std::holds_alternative<bool>(v)) return DType::kBool;
  return DType::kI64;
}

std::string dtype_str(DType d) { return std::string(ir::dtype_name(d)); }

/// The operands of an elementwise op from the arguments `names` (in operand order), typed as
/// PyTorch would: numbers against the first tensor operand; for kFloat ops, non-floating tensors
/// converted to the promoted dtype (f32 when that is not floating), and numbers typed to it.
/// `refuse_integer_result`: an op that PyTorch computes in integers when every operand is one
/// (pow), which the IR's kFloat op cannot: refused as unsupported.
Expected<std::vector<ValueId>> operands(const Ctx& c, OpKind op,
                                        const std::vector<std::string_view>& names,
                                        bool refuse_integer_result = false) {
  std::optional<DType> peer;
  for (std::string_view n : names) {
    if (const auto* t = std::get_if<ValueId>(&c.a.get(n))) {
      peer = c.type(*t).dtype;
      break;
    }
  }
  if (!peer) return c.invalid("needs a tensor operand, got only numbers");
  std::vector<ValueId> in;
  if (ir::op_dtype_class(op) != ir::DTypeClass::kFloat) {
    for (std::string_view n : names) in.push_back(operand(c, c.a.get(n), *peer, n));
    return in;
  }
  std::vector<ir::TensorType> types;
  for (std::string_view n : names) {
    const AtenArg& v = c.a.get(n);
    const auto* t = std::get_if<ValueId>(&v);
    types.push_back(t ? c.type(*t) : ir::TensorType{operand_dtype(v, *peer), {}});
  }
  DType to = ir::promote_operands(types);
  if (!ir::is_floating(to)) {
    if (refuse_integer_result) {
      return c.unsupported_arg("operands of dtype " + dtype_str(to) +
                               " (PyTorch computes an integer result, which is not supported)");
    }
    to = DType::kF32;
  }
  for (std::string_view n : names) {
    ValueId v = operand(c, c.a.get(n), to, n);
    if (!ir::is_floating(c.type(v).dtype)) {
      INFERNO_ASSIGN_OR_RETURN(v, cast(c, v, to, std::string(n) + "_float"));
    }
    in.push_back(v);
  }
  return in;
}

/// The generic elementwise builder: `op` over the arguments `names`, in order.
Builder ew(OpKind op, std::vector<std::string_view> names) {
  return [op, names](Ctx& c) -> Outputs {
    INFERNO_ASSIGN_OR_RETURN(std::vector<ValueId> in, operands(c, op, names));
    return one(c.build(op, std::move(in)));
  };
}

/// pow.Tensor_Tensor, pow.Tensor_Scalar and pow.Scalar (a number base): integer powers refused.
Outputs pow(Ctx& c) {
  INFERNO_ASSIGN_OR_RETURN(std::vector<ValueId> in,
                           operands(c, OpKind::kPow, {"self", "exponent"}, true));
  return one(c.build(OpKind::kPow, std::move(in)));
}

Outputs gelu(Ctx& c) {
  const std::string& approximate = c.a.get_string("approximate");
  if (approximate != "none" && approximate != "tanh")
    return c.invalid("approximate must be 'none' or 'tanh', got '" + approximate + "'");
  return ew(approximate == "tanh" ? OpKind::kGeluTanh : OpKind::kGelu, {"self"})(c);
}

/// `alpha * other` for add/sub/rsub; folded when `other` is a number, skipped when alpha is 1.
Expected<ValueId> scaled(const Ctx& c, const AtenArg& other, DType peer, std::string_view suffix) {
  const AtenArg& alpha = c.a.get("alpha");
  if (number(alpha) == 1) return operand(c, other, peer, suffix);
  if (!std::holds_alternative<ValueId>(other)) {
    const bool floating =
        std::holds_alternative<double>(other) || std::holds_alternative<double>(alpha);
    const AtenArg product = floating ? AtenArg{number(other) * number(alpha)}
                                     : AtenArg{static_cast<int64_t>(number(other) * number(alpha))};
    return operand(c, product, peer, suffix);
  }
  const ValueId t = std::get<ValueId>(other);
  return c.build(OpKind::kMul, {t, operand(c, alpha, c.type(t).dtype, "alpha")}, {}, "scaled");
}

// outer(a, b) = a[:, None] * b: two 1-D tensors (rotary embeddings' position x frequency table).
Outputs outer(Ctx& c) {
  const ValueId a = c.a.tensor("self"), b = c.a.tensor("vec2");
  if (c.type(a).rank() != 1 || c.type(b).rank() != 1) {
    return c.invalid("expects two 1-D tensors, got " + c.type(a).to_string() + " and " +
                     c.type(b).to_string());
  }
  INFERNO_ASSIGN_OR_RETURN(ValueId column,
                           c.build(OpKind::kReshape, {a},
                                   attrs({{"shape", ir::Shape{c.type(a).shape[0], 1}}}), "column"));
  return one(c.build(OpKind::kMul, {column, b}));
}

// add/sub/mul/div with alpha, and div's rounding_mode (div_trunc, div_floor). Either operand may be
// a Python number (decompositions emit `sub.Tensor(1.0, x)`), typed against the tensor operand.
Builder binary(OpKind op_arg) {
  return [op_arg](Ctx& c) -> Outputs {
    const AtenArg &self = c.a.get("self"), &other = c.a.get("other");
    OpKind op = op_arg;
    if (c.a.has("rounding_mode") && !c.a.is_none("rounding_mode")) {
      const std::string& mode = c.a.get_string("rounding_mode");
      if (mode != "trunc" && mode != "floor")
        return c.invalid("rounding_mode must be 'trunc' or 'floor', got '" + mode + "'");
      op = mode == "trunc" ? OpKind::kDivTrunc : OpKind::kDivFloor;
    }
    const ValueId* tensor = std::get_if<ValueId>(&self);
    if (!tensor) tensor = std::get_if<ValueId>(&other);
    if (!tensor) return c.invalid("needs a tensor operand, got two numbers");
    const DType peer = c.type(*tensor).dtype;
    const ValueId x = operand(c, self, peer, "self");
    INFERNO_ASSIGN_OR_RETURN(ValueId y, c.a.has("alpha")
                                            ? scaled(c, other, peer, "other")
                                            : Expected<ValueId>(operand(c, other, peer, "other")));
    return one(c.build(op, {x, y}));
  };
}

// rsub(self, other, alpha) = other - alpha * self.
Outputs rsub(Ctx& c) {
  const ValueId x = c.a.tensor("self");
  const ValueId other = operand(c, c.a.get("other"), c.type(x).dtype, "other");
  INFERNO_ASSIGN_OR_RETURN(ValueId y, scaled(c, AtenArg{x}, c.type(x).dtype, ""));
  return one(c.build(OpKind::kSub, {other, y}));
}

// ---- clamp and its relatives --------------------------------------------------------------

/// Bounds 0 and 6 given as numbers make relu6 (one op the conv epilogue fusion recognizes),
/// where the result keeps x's dtype: a float bound next to an integer x promotes, so not there.
bool is_relu6_bounds(const AtenArg& lo, const AtenArg& hi, DType peer) {
  const auto is_num = [&](const AtenArg& v) {
    return std::holds_alternative<int64_t>(v) ||
           (std::holds_alternative<double>(v) && ir::is_floating(peer));
  };
  return is_num(lo) && is_num(hi) && number(lo) == 0 && number(hi) == 6;
}

/// x clamped to [lo, hi], each bound a number, a tensor (broadcast) or absent: both -> clamp,
/// only lo -> maximum, only hi -> minimum, neither -> x.
Outputs clamp_between(const Ctx& c, ValueId x, const AtenArg& lo, const AtenArg& hi) {
  const bool has_lo = !std::holds_alternative<NoneArg>(lo),
             has_hi = !std::holds_alternative<NoneArg>(hi);
  const DType peer = c.type(x).dtype;
  if (is_relu6_bounds(lo, hi, peer)) return one(c.build(OpKind::kRelu6, {x}));
  if (has_lo && has_hi) {
    return one(
        c.build(OpKind::kClamp, {x, operand(c, lo, peer, "min"), operand(c, hi, peer, "max")}));
  }
  if (has_lo) return one(c.build(OpKind::kMaximum, {x, operand(c, lo, peer, "min")}));
  if (has_hi) return one(c.build(OpKind::kMinimum, {x, operand(c, hi, peer, "max")}));
  return std::vector<ValueId>{x};
}

/// clamp/clamp_min/clamp_max/hardtanh: the bounds are the arguments `lo` and `hi` ("" = none).
Builder clamp(std::string_view lo, std::string_view hi) {
  return [lo, hi](Ctx& c) -> Outputs {
    const AtenArg none = NoneArg{};
    return clamp_between(c, c.a.tensor("self"), lo.empty() ? none : c.a.get(lo),
                         hi.empty() ? none : c.a.get(hi));
  };
}

// round(x, decimals): to `decimals` digits after the point (before it when negative), as
// PyTorch: round(x * 10^d) / 10^d, or round(x / 10^-d) * 10^-d.
Outputs round_decimals(Ctx& c) {
  const ValueId x = c.a.tensor("self");
  const int64_t decimals = c.a.get_int("decimals");
  if (!ir::is_floating(c.type(x).dtype))
    return c.unsupported_arg("round with decimals expects a floating-point tensor");
  if (decimals == 0) return one(c.build(OpKind::kRound, {x}));
  const ValueId scale = ir::add_scalar_constant(
      c.g, std::pow(10.0, static_cast<double>(decimals < 0 ? -decimals : decimals)),
      c.type(x).dtype, c.name("scale"));
  const OpKind in = decimals > 0 ? OpKind::kMul : OpKind::kDiv;
  const OpKind out = decimals > 0 ? OpKind::kDiv : OpKind::kMul;
  INFERNO_ASSIGN_OR_RETURN(ValueId scaled, c.build(in, {x, scale}, {}, "scaled"));
  INFERNO_ASSIGN_OR_RETURN(ValueId rounded, c.build(OpKind::kRound, {scaled}, {}, "rounded"));
  return one(c.build(out, {rounded, scale}));
}

// square(x) = x * x (PyTorch's pow(x, 2); bool promotes to i64).
Outputs square(Ctx& c) {
  ValueId x = c.a.tensor("self");
  if (c.type(x).dtype == DType::kBool) {
    INFERNO_ASSIGN_OR_RETURN(x, cast(c, x, DType::kI64));
  }
  return one(c.build(OpKind::kMul, {x, x}));
}

Outputs relu6(Ctx& c) { return one(c.build(OpKind::kRelu6, {c.a.tensor("self")})); }

// ---- bitwise ops ---------------------------------------------------------------------------

/// bitwise_and/or/xor/not (and the __and__/__or__/__xor__ operators): on bool operands the
/// logical ops (xor: ne), on integers the bit operations, in the promoted integer dtype (a bool
/// operand next to an integer one is converted). Floating operands are refused, as PyTorch does.
Builder bitwise(OpKind logical, OpKind bits, std::vector<std::string_view> names) {
  return [logical, bits, names](Ctx& c) -> Outputs {
    std::vector<ir::TensorType> types;
    for (std::string_view n : names) {
      const AtenArg& v = c.a.get(n);
      if (const auto* t = std::get_if<ValueId>(&v)) {
        types.push_back(c.type(*t));
      } else if (std::holds_alternative<double>(v)) {
        return c.invalid("bitwise ops are not defined for a float operand");
      } else {
        types.push_back({scalar_dtype(v), {}});
      }
      if (ir::is_floating(types.back().dtype))
        return c.invalid("bitwise ops are not defined for " + types.back().to_string());
    }
    const DType to = ir::promote_operands(types);
    if (to == DType::kBool) return ew(logical, names)(c);
    std::vector<ValueId> in;
    for (std::string_view n : names) {
      INFERNO_ASSIGN_OR_RETURN(ValueId v,
                               cast(c, operand(c, c.a.get(n), to, n), to, std::string(n) + "_int"));
      in.push_back(v);
    }
    return one(c.build(bits, std::move(in)));
  };
}

// ---- selection -----------------------------------------------------------------------------

/// where.self / .ScalarOther / .ScalarSelf / .Scalar: numbers typed against the tensor branch,
/// or, when both branches are numbers, against each other (1.0 and 0 give f32).
Outputs where(Ctx& c) {
  const AtenArg &a = c.a.get("self"), &b = c.a.get("other");
  DType peer = ir::promote_types(scalar_dtype(a), scalar_dtype(b));
  if (const auto* t = std::get_if<ValueId>(&b)) peer = c.type(*t).dtype;
  if (const auto* t = std::get_if<ValueId>(&a)) peer = c.type(*t).dtype;
  return one(c.build(OpKind::kWhere, {c.a.tensor("condition"), operand(c, a, peer, "self"),
                                      operand(c, b, peer, "other")}));
}

Outputs refuse_where_nonzero(Ctx& c) {
  return c.unsupported_arg(
      "where(condition) (indices of nonzero elements: a data-dependent shape)");
}

/// masked_fill.Scalar / .Tensor: where(mask, value, x), the value (a number or a 0-d tensor) in
/// x's dtype, as PyTorch keeps it.
Outputs masked_fill(Ctx& c) {
  const ValueId x = c.a.tensor("self");
  const DType dtype = c.type(x).dtype;
  const AtenArg& v = c.a.get("value");
  ValueId value;
  if (const auto* t = std::get_if<ValueId>(&v)) {
    if (c.type(*t).rank() != 0)
      return c.invalid("the value must be a number or a 0-d tensor, got " + c.type(*t).to_string());
    INFERNO_ASSIGN_OR_RETURN(value, cast(c, *t, dtype, "value"));
  } else {
    value = ir::add_scalar_constant(c.g, number(v), dtype, c.name("value"));
  }
  return one(c.build(OpKind::kWhere, {c.a.tensor("mask"), value, x}));
}

// ---- fills ---------------------------------------------------------------------------------

/// A tensor of `shape` filled with `value`: a rank-0 constant, expanded (never a big constant).
Outputs filled(const Ctx& c, ir::Shape shape, double value, DType dtype) {
  if (!ir::checked_numel(shape)) {
    return c.invalid("size " + ir::shape_to_string(shape) + " is negative or too large");
  }
  const ValueId scalar = ir::add_scalar_constant(c.g, value, dtype, c.name("value"));
  if (shape.empty()) return std::vector<ValueId>{scalar};
  return one(c.build(OpKind::kExpand, {scalar}, attrs({{"shape", std::move(shape)}})));
}

/// full / zeros / ones (size argument) and full_like / zeros_like / ones_like (self's shape);
/// new_full / new_zeros / new_ones take a size and default to self's dtype. `value`: the fill
/// of zeros/ones; otherwise the fill_value argument.
Builder fill(std::optional<double> value) {
  return [value](Ctx& c) -> Outputs {
    const bool has_self = c.a.has("self");
    const double v = value ? *value : number(c.a.get("fill_value"));
    std::optional<DType> dtype = c.a.opt_dtype("dtype");
    if (!dtype && has_self) dtype = c.type(c.a.tensor("self")).dtype;
    if (!dtype) dtype = value ? DType::kF32 : scalar_dtype(c.a.get("fill_value"));
    if (c.a.has("size")) return filled(c, c.a.get_ints("size"), v, *dtype);
    return filled(c, c.type(c.a.tensor("self")).shape, v, *dtype);
  };
}

/// fill.Scalar / .Tensor (TorchScript's `fill_`: `mask[a:b] = k`): self's shape and dtype, every
/// element the value (a number or a 0-d tensor).
Outputs fill_self(Ctx& c) {
  const ir::TensorType xt = c.type(c.a.tensor("self"));
  const AtenArg& v = c.a.get("value");
  const auto* t = std::get_if<ValueId>(&v);
  if (t == nullptr) return filled(c, xt.shape, number(v), xt.dtype);
  if (c.type(*t).rank() != 0)
    return c.invalid("the value must be a number or a 0-d tensor, got " + c.type(*t).to_string());
  INFERNO_ASSIGN_OR_RETURN(const ValueId value, cast(c, *t, xt.dtype, "value"));
  if (xt.shape.empty()) return std::vector<ValueId>{value};
  return one(c.build(OpKind::kExpand, {value}, attrs({{"shape", xt.shape}})));
}

/// zero (TorchScript's `zero_`): zeros of self's shape and dtype.
Outputs zero_self(Ctx& c) {
  const ir::TensorType xt = c.type(c.a.tensor("self"));
  return filled(c, xt.shape, 0, xt.dtype);
}

Outputs scalar_tensor(Ctx& c) {
  return filled(c, {}, number(c.a.get("s")), c.a.opt_dtype("dtype").value_or(DType::kF32));
}

}  // namespace

void add_elementwise_entries(std::vector<OpEntry>& table) {
  const Schema self_only = {arg("self", T)};
  const Schema self_other = {arg("self", TorNum), arg("other", TorNum)};
  const Schema binary_alpha = {arg("self", TorNum), arg("other", TorNum),
                               arg("alpha", Num, int64_t{1})};
  const Schema tensor_options = {opt("dtype", DTy), opt("layout", Any), opt("device", Any),
                                 opt("pin_memory", Any)};
  auto with = [](Schema s, const Schema& more) {
    s.insert(s.end(), more.begin(), more.end());
    return s;
  };
  const Schema like_options = with(tensor_options, {opt("memory_format", Any)});

  // Unary ops: x only.
  for (const auto& [name, op] : std::initializer_list<std::pair<std::string_view, OpKind>>{
           {"aten::relu", OpKind::kRelu},
           {"aten::silu", OpKind::kSilu},
           {"aten::sigmoid", OpKind::kSigmoid},
           {"aten::tanh", OpKind::kTanh},
           {"aten::exp", OpKind::kExp},
           {"aten::log", OpKind::kLog},
           {"aten::log1p", OpKind::kLog1p},
           {"aten::expm1", OpKind::kExpm1},
           {"aten::log2", OpKind::kLog2},
           {"aten::log10", OpKind::kLog10},
           {"aten::exp2", OpKind::kExp2},
           {"aten::special_exp2", OpKind::kExp2},
           {"aten::tan", OpKind::kTan},
           {"aten::asin", OpKind::kAsin},
           {"aten::arcsin", OpKind::kAsin},
           {"aten::acos", OpKind::kAcos},
           {"aten::arccos", OpKind::kAcos},
           {"aten::atan", OpKind::kAtan},
           {"aten::arctan", OpKind::kAtan},
           {"aten::sinh", OpKind::kSinh},
           {"aten::cosh", OpKind::kCosh},
           {"aten::sqrt", OpKind::kSqrt},
           {"aten::rsqrt", OpKind::kRsqrt},
           {"aten::reciprocal", OpKind::kReciprocal},
           {"aten::erf", OpKind::kErf},
           {"aten::cos", OpKind::kCos},
           {"aten::sin", OpKind::kSin},
           {"aten::abs", OpKind::kAbs},
           {"aten::floor", OpKind::kFloor},
           {"aten::ceil", OpKind::kCeil},
           {"aten::round", OpKind::kRound},
           {"aten::trunc", OpKind::kTrunc},
           {"aten::fix", OpKind::kTrunc},
           {"aten::sign", OpKind::kSign},
           {"aten::neg", OpKind::kNeg},
           {"aten::hardswish", OpKind::kHardswish},
           {"aten::hardsigmoid", OpKind::kHardsigmoid},
           {"aten::logical_not", OpKind::kLogicalNot},
           {"aten::isnan", OpKind::kIsNan},
           {"aten::isinf", OpKind::kIsInf},
       }) {
    table.push_back({name, "", self_only, ew(op, {"self"})});
  }
  table.push_back(
      {"aten::round", "decimals", {arg("self", T), arg("decimals", Int)}, round_decimals});
  table.push_back({"aten::square", "", self_only, square});
  // Binary ops without alpha: comparisons (.Tensor and .Scalar), minimum/maximum, logic.
  for (const auto& [name, op] : std::initializer_list<std::pair<std::string_view, OpKind>>{
           {"aten::eq", OpKind::kEq},
           {"aten::ne", OpKind::kNe},
           {"aten::not_equal", OpKind::kNe},
           {"aten::lt", OpKind::kLt},
           {"aten::less", OpKind::kLt},
           {"aten::le", OpKind::kLe},
           {"aten::less_equal", OpKind::kLe},
           {"aten::gt", OpKind::kGt},
           {"aten::greater", OpKind::kGt},
           {"aten::ge", OpKind::kGe},
           {"aten::greater_equal", OpKind::kGe},
           {"aten::minimum", OpKind::kMinimum},
           {"aten::maximum", OpKind::kMaximum},
           {"aten::logical_and", OpKind::kLogicalAnd},
           {"aten::logical_or", OpKind::kLogicalOr},
       }) {
    table.push_back({name, "", self_other, ew(op, {"self", "other"})});
  }
  // Bitwise ops: logical on bool operands, bit operations on integers.
  for (const auto& [name, logical, bits] :
       std::initializer_list<std::tuple<std::string_view, OpKind, OpKind>>{
           {"aten::bitwise_and", OpKind::kLogicalAnd, OpKind::kBitwiseAnd},
           {"aten::__and__", OpKind::kLogicalAnd, OpKind::kBitwiseAnd},
           {"aten::__iand__", OpKind::kLogicalAnd, OpKind::kBitwiseAnd},
           {"aten::bitwise_or", OpKind::kLogicalOr, OpKind::kBitwiseOr},
           {"aten::__or__", OpKind::kLogicalOr, OpKind::kBitwiseOr},
           {"aten::__ior__", OpKind::kLogicalOr, OpKind::kBitwiseOr},
           {"aten::bitwise_xor", OpKind::kNe, OpKind::kBitwiseXor},
           {"aten::__xor__", OpKind::kNe, OpKind::kBitwiseXor},
           {"aten::__ixor__", OpKind::kNe, OpKind::kBitwiseXor},
       }) {
    table.push_back({name, "", self_other, bitwise(logical, bits, {"self", "other"})});
  }
  table.push_back({"aten::bitwise_not", "", self_only,
                   bitwise(OpKind::kLogicalNot, OpKind::kBitwiseNot, {"self"})});

  const std::vector<OpEntry> rows = {
      // activations with scalar parameters (rank-0 constant operands)
      {"aten::gelu", "", {arg("self", T), arg("approximate", Str, std::string("none"))}, gelu},
      {"aten::leaky_relu",
       "",
       {arg("self", T), arg("negative_slope", Num, 0.01)},
       ew(OpKind::kLeakyRelu, {"self", "negative_slope"})},
      {"aten::elu",
       "",
       {arg("self", T), arg("alpha", Num, int64_t{1}), arg("scale", Num, int64_t{1}),
        arg("input_scale", Num, int64_t{1})},
       ew(OpKind::kElu, {"self", "alpha", "scale", "input_scale"})},
      {"aten::softplus",
       "",
       {arg("self", T), arg("beta", Num, int64_t{1}), arg("threshold", Num, int64_t{20})},
       ew(OpKind::kSoftplus, {"self", "beta", "threshold"})},
      // clamp and relatives
      {"aten::clamp",
       "",
       {arg("self", T), opt("min", TorNum), opt("max", TorNum)},
       clamp("min", "max")},
      {"aten::clamp_min", "", {arg("self", T), arg("min", TorNum)}, clamp("min", "")},
      {"aten::clamp_max", "", {arg("self", T), arg("max", TorNum)}, clamp("", "max")},
      {"aten::hardtanh",
       "",
       {arg("self", T), arg("min_val", Num, int64_t{-1}), arg("max_val", Num, int64_t{1})},
       clamp("min_val", "max_val")},
      {"aten::relu6", "", self_only, relu6},
      // arithmetic
      {"aten::add", "", binary_alpha, binary(OpKind::kAdd)},
      {"aten::sub", "", binary_alpha, binary(OpKind::kSub)},
      {"aten::rsub",
       "",
       {arg("self", T), arg("other", TorNum), arg("alpha", Num, int64_t{1})},
       rsub},
      {"aten::mul", "", self_other, binary(OpKind::kMul)},
      {"aten::outer", "", {arg("self", T), arg("vec2", T)}, outer},
      {"aten::ger", "", {arg("self", T), arg("vec2", T)}, outer},
      {"aten::div",
       "",
       {arg("self", TorNum), arg("other", TorNum), opt("rounding_mode", Str)},
       binary(OpKind::kDiv)},
      {"aten::pow", "", {arg("self", TorNum), arg("exponent", TorNum)}, pow},
      {"aten::floor_divide", "", self_other, binary(OpKind::kDivFloor)},
      {"aten::remainder", "", self_other, binary(OpKind::kRemainder)},
      // min/max of two tensors (their reductions are in aten_extrema.cpp)
      {"aten::min",
       "other",
       {arg("self", T), arg("other", T)},
       ew(OpKind::kMinimum, {"self", "other"})},
      {"aten::max",
       "other",
       {arg("self", T), arg("other", T)},
       ew(OpKind::kMaximum, {"self", "other"})},
      // selection
      {"aten::where", "default", {arg("condition", T)}, refuse_where_nonzero},
      {"aten::where",
       "self ScalarOther ScalarSelf Scalar",
       {arg("condition", T), arg("self", TorNum), arg("other", TorNum)},
       where},
      {"aten::masked_fill",
       "",
       {arg("self", T), arg("mask", T), arg("value", TorNum)},
       masked_fill},
      // fills
      {"aten::scalar_tensor", "", with({arg("s", Num)}, tensor_options), scalar_tensor},
      {"aten::full", "", with({arg("size", Ints), arg("fill_value", Num)}, tensor_options),
       fill(std::nullopt)},
      {"aten::zeros", "", with({arg("size", Ints)}, tensor_options), fill(0)},
      {"aten::ones", "", with({arg("size", Ints)}, tensor_options), fill(1)},
      {"aten::full_like", "", with({arg("self", T), arg("fill_value", Num)}, like_options),
       fill(std::nullopt)},
      {"aten::zeros_like", "", with({arg("self", T)}, like_options), fill(0)},
      {"aten::fill", "", {arg("self", T), arg("value", TorNum)}, fill_self},
      {"aten::zero", "", {arg("self", T)}, zero_self},
      {"aten::ones_like", "", with({arg("self", T)}, like_options), fill(1)},
      {"aten::new_full", "",
       with({arg("self", T), arg("size", Ints), arg("fill_value", Num)}, tensor_options),
       fill(std::nullopt)},
      {"aten::new_zeros", "", with({arg("self", T), arg("size", Ints)}, tensor_options), fill(0)},
      {"aten::new_ones", "", with({arg("self", T), arg("size", Ints)}, tensor_options), fill(1)},
      // empty tensors: uninitialized in PyTorch, zeros here (a model may only read what it wrote
      // into them; zeros make every run the same)
      {"aten::empty", "", with({arg("size", Ints)}, like_options), fill(0)},
      {"aten::empty_like", "", with({arg("self", T)}, like_options), fill(0)},
      {"aten::new_empty", "", with({arg("self", T), arg("size", Ints)}, tensor_options), fill(0)},
      {"aten::empty_strided", "", with({arg("size", Ints), arg("stride", Ints)}, tensor_options),
       fill(0)},
  };
  table.insert(table.end(), rows.begin(), rows.end());
}

}  // namespace inferno::frontend::aten
