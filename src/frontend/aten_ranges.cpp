// Ops whose values come from positions: arange (every overload) becomes a constant, computed here
// as PyTorch does (start + i * step in double, rounded once to the dtype), since shapes are static;
// tril and triu become where(mask, x, 0) with the mask computed from two small index constants
// (column - row compared with the diagonal), which constant folding turns into one bool constant.
#include <cmath>
#include <cstring>
#include <string>
#include <variant>
#include <vector>

#include "frontend/aten_builders.h"

namespace inferno::frontend::aten {
namespace {

using ir::DType;
using ir::OpKind;
using ir::ValueId;

constexpr ArgKind T = ArgKind::kTensor, Int = ArgKind::kInt, Num = ArgKind::kScalar,
                  DTy = ArgKind::kDType, Any = ArgKind::kAny;

// An arange constant is the model's data made at compile time: bounded so a model cannot ask for
// gigabytes (16 Mi elements covers any position table).
constexpr int64_t kMaxArangeElements = int64_t{1} << 24;

Outputs arange(Ctx& c) {
  const AtenArg& end_arg = c.a.get("end");
  const AtenArg start_arg = c.a.has("start") ? c.a.get("start") : AtenArg{int64_t{0}};
  const AtenArg step_arg = c.a.has("step") ? c.a.get("step") : AtenArg{int64_t{1}};
  bool any_float = false;
  for (const AtenArg* v : {&start_arg, &end_arg, &step_arg})
    any_float = any_float || std::holds_alternative<double>(*v);
  // PyTorch: the default dtype (f32) when any bound is a float, else int64.
  const DType dtype = c.a.opt_dtype("dtype").value_or(any_float ? DType::kF32 : DType::kI64);
  const double start = number(start_arg), end = number(end_arg), step = number(step_arg);
  if (!std::isfinite(start) || !std::isfinite(end) || !std::isfinite(step) || step == 0) {
    return c.invalid("start, end and step must be finite and step nonzero");
  }
  if ((step > 0 && end < start) || (step < 0 && end > start)) {
    return c.invalid("the bounds are inconsistent with the step's sign");
  }
  const bool exact_ints = !any_float && !ir::is_floating(dtype);
  double count = std::ceil((end - start) / step);
  if (exact_ints) {  // integer bounds counted exactly (double loses them past 2^53)
    const int64_t first = std::get<int64_t>(start_arg), stride = std::get<int64_t>(step_arg);
    int64_t span = 0;
    if (__builtin_sub_overflow(std::get<int64_t>(end_arg), first, &span)) {
      count = static_cast<double>(kMaxArangeElements) + 1;
    } else {
      const int64_t whole = span / stride;
      count = static_cast<double>(whole + (whole * stride != span ? 1 : 0));
    }
  }
  if (!(count <= static_cast<double>(kMaxArangeElements))) {
    return c.unsupported_arg("more than " + std::to_string(kMaxArangeElements) +
                             " elements are not supported");
  }
  const auto n = static_cast<int64_t>(count);
  ir::Tensor values = ir::Tensor::zeros({dtype, {n}});
  for (int64_t i = 0; i < n; ++i) {
    if (exact_ints && dtype == DType::kI64) {  // exact: written as int64, not through double
      const int64_t v = std::get<int64_t>(start_arg) + i * std::get<int64_t>(step_arg);
      std::memcpy(values.data.data() + i * 8, &v, 8);
    } else {
      values.set(i, start + static_cast<double>(i) * step);
    }
  }
  return std::vector<ValueId>{c.g.add_constant(c.name("values"), std::move(values))};
}

// tril (keep column - row <= diagonal) and triu (>= diagonal) over x's last two dims.
Builder triangle(bool lower) {
  return [lower](Ctx& c) -> Outputs {
    const ValueId x = c.a.tensor("self");
    const ir::TensorType xt = c.type(x);
    if (xt.rank() < 2) return c.invalid("expects at least 2 dims, got " + xt.to_string());
    const int64_t rows = xt.shape[xt.shape.size() - 2], cols = xt.shape.back();
    ir::Tensor row_index = ir::Tensor::zeros({DType::kI64, {rows, 1}});
    for (int64_t i = 0; i < rows; ++i) row_index.set(i, static_cast<double>(i));
    ir::Tensor col_index = ir::Tensor::zeros({DType::kI64, {cols}});
    for (int64_t j = 0; j < cols; ++j) col_index.set(j, static_cast<double>(j));
    const ValueId r = c.g.add_constant(c.name("rows"), std::move(row_index));
    const ValueId k = c.g.add_constant(c.name("cols"), std::move(col_index));
    const ValueId diagonal = ir::add_scalar_constant(
        c.g, static_cast<double>(c.a.get_int("diagonal")), DType::kI64, c.name("diagonal"));
    INFERNO_ASSIGN_OR_RETURN(ValueId offset, c.build(OpKind::kSub, {k, r}, {}, "offset"));
    INFERNO_ASSIGN_OR_RETURN(
        ValueId mask, c.build(lower ? OpKind::kLe : OpKind::kGe, {offset, diagonal}, {}, "mask"));
    const ValueId zero = ir::add_scalar_constant(c.g, 0, xt.dtype, c.name("zero"));
    return one(c.build(OpKind::kWhere, {mask, x, zero}));
  };
}

}  // namespace

void add_range_entries(std::vector<OpEntry>& table) {
  const Schema options = {opt("dtype", DTy), opt("layout", Any), opt("device", Any),
                          opt("pin_memory", Any)};
  auto with = [&options](Schema s) {
    s.insert(s.end(), options.begin(), options.end());
    return s;
  };
  const std::vector<OpEntry> rows = {
      {"aten::arange", "default", with({arg("end", Num)}), arange},
      {"aten::arange", "start", with({arg("start", Num), arg("end", Num)}), arange},
      {"aten::arange", "start_step",
       with({arg("start", Num), arg("end", Num), arg("step", Num, int64_t{1})}), arange},
      {"aten::tril", "", {arg("self", T), arg("diagonal", Int, int64_t{0})}, triangle(true)},
      {"aten::triu", "", {arg("self", T), arg("diagonal", Int, int64_t{0})}, triangle(false)},
  };
  table.insert(table.end(), rows.begin(), rows.end());
}

}  // namespace inferno::frontend::aten
