// Statistics composed from the IR's reductions: var and std (and var_mean, std_mean), vector norms
// (linalg_vector_norm, norm), logsumexp and one_hot. No new IR op: each is a few mean, sum, max
// and elementwise nodes, which fuse and reduce like the model's own.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "frontend/aten_builders.h"

namespace inferno::frontend::aten {
namespace {

using ir::DType;
using ir::OpKind;
using ir::ValueId;

constexpr ArgKind T = ArgKind::kTensor, Int = ArgKind::kInt, Ints = ArgKind::kInts,
                  Bool = ArgKind::kBool, Num = ArgKind::kScalar, DTy = ArgKind::kDType;

// one_hot's classes become a constant: bounded like arange's (a model cannot ask for gigabytes).
constexpr int64_t kMaxClasses = int64_t{1} << 24;

// The reduced dims of argument `name` (one int or a list; none or absent: every dim), sorted and
// unique.
Expected<ir::IntList> reduced_dims(const Ctx& c, ValueId x, std::string_view name) {
  const int64_t rank = c.type(x).rank();
  ir::IntList dims;
  if (c.a.has(name) && !c.a.is_none(name) && !c.a.get_ints(name).empty()) {
    for (const int64_t d : c.a.get_ints(name)) {
      INFERNO_ASSIGN_OR_RETURN(int64_t n, c.dim(d, std::max<int64_t>(rank, 1)));
      if (rank > 0) dims.push_back(n);
    }
  } else {
    for (int64_t d = 0; d < rank; ++d) dims.push_back(d);
  }
  std::sort(dims.begin(), dims.end());
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  return dims;
}

// x's shape without `dims` (what a reduction without keepdim leaves).
ir::Shape without(const ir::Shape& shape, const ir::IntList& dims) {
  ir::Shape out;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end())
      out.push_back(shape[static_cast<size_t>(d)]);
  return out;
}

Expected<ValueId> reduce(const Ctx& c, OpKind op, ValueId x, const ir::IntList& dims, bool keepdim,
                         std::string_view suffix) {
  return c.build(op, {x}, attrs({{"dims", dims}, {"keepdim", keepdim}}), suffix);
}

// A kept-dims reduction's result as keepdim=False has it.
Expected<ValueId> squeezed(const Ctx& c, ValueId kept, ValueId x, const ir::IntList& dims,
                           std::string_view suffix) {
  return c.build(OpKind::kReshape, {kept}, attrs({{"shape", without(c.type(x).shape, dims)}}),
                 suffix);
}

}  // namespace

Expected<MeanVariance> mean_and_variance(const Ctx& c, ValueId x, const ir::IntList& dims,
                                         double correction, bool keepdim) {
  const ir::TensorType xt = c.type(x);  // a copy: building nodes moves the graph's values
  double count = 1;
  for (const int64_t d : dims) count *= static_cast<double>(xt.shape[static_cast<size_t>(d)]);
  INFERNO_ASSIGN_OR_RETURN(ValueId mean, reduce(c, OpKind::kMean, x, dims, true, "mean"));
  INFERNO_ASSIGN_OR_RETURN(ValueId deviation, c.build(OpKind::kSub, {x, mean}, {}, "deviation"));
  INFERNO_ASSIGN_OR_RETURN(ValueId square,
                           c.build(OpKind::kMul, {deviation, deviation}, {}, "square"));
  INFERNO_ASSIGN_OR_RETURN(ValueId sum, reduce(c, OpKind::kSum, square, dims, keepdim, "sum"));
  const ValueId divisor =
      ir::add_scalar_constant(c.g, std::max(0.0, count - correction), xt.dtype, c.name("divisor"));
  INFERNO_ASSIGN_OR_RETURN(ValueId variance, c.build(OpKind::kDiv, {sum, divisor}, {}, "variance"));
  return MeanVariance{mean, variance};
}

namespace {

Expected<ValueId> floating_self(const Ctx& c) {
  const ValueId x = c.a.tensor("self");
  if (!ir::is_floating(c.type(x).dtype))
    return c.unsupported_arg("expects a floating-point tensor, got " + c.type(x).to_string());
  return x;
}

// var and std, alone or with the mean; the correction: `correction` (default 1), or 1 -
// `unbiased` in the older overloads.
Builder moments(bool root, bool with_mean) {
  return [root, with_mean](Ctx& c) -> Outputs {
    INFERNO_ASSIGN_OR_RETURN(ValueId x, floating_self(c));
    INFERNO_ASSIGN_OR_RETURN(ir::IntList dims, reduced_dims(c, x, "dim"));
    double correction = 1;
    if (c.a.has("correction") && !c.a.is_none("correction")) {
      correction = number(c.a.get("correction"));
    } else if (c.a.has("unbiased")) {
      correction = c.a.get_bool("unbiased") ? 1 : 0;
    }
    const bool keepdim = c.a.has("keepdim") && c.a.get_bool("keepdim");
    INFERNO_ASSIGN_OR_RETURN(MeanVariance m, mean_and_variance(c, x, dims, correction, keepdim));
    ValueId result = m.variance;
    if (root) {
      INFERNO_ASSIGN_OR_RETURN(result, c.build(OpKind::kSqrt, {result}));
    }
    if (!with_mean) return std::vector<ValueId>{result};
    if (!keepdim) {
      INFERNO_ASSIGN_OR_RETURN(m.mean, squeezed(c, m.mean, x, dims, "mean_out"));
    }
    return std::vector<ValueId>{result, m.mean};
  };
}

// The vector norm of order `ord` (`p` in norm's overloads; None: 2) over dims: sum(|x|^p)^(1/p),
// with the special orders PyTorch names: 0 (the count of non-zeros), 1, 2, inf (max |x|) and -inf
// (min |x|).
Outputs vector_norm(Ctx& c) {
  ValueId x = c.a.tensor("self");
  if (std::optional<DType> dtype = c.a.opt_dtype("dtype")) {
    INFERNO_ASSIGN_OR_RETURN(x, cast(c, x, *dtype, "cast"));
  }
  if (!ir::is_floating(c.type(x).dtype))
    return c.unsupported_arg("expects a floating-point tensor, got " + c.type(x).to_string());
  const std::string_view order_name = c.a.has("ord") ? "ord" : "p";
  const double p =
      c.a.has(order_name) && !c.a.is_none(order_name) ? number(c.a.get(order_name)) : 2.0;
  INFERNO_ASSIGN_OR_RETURN(ir::IntList dims, reduced_dims(c, x, "dim"));
  const bool keepdim = c.a.has("keepdim") && c.a.get_bool("keepdim");
  const DType dtype = c.type(x).dtype;
  auto scalar = [&](double v, std::string_view name) {
    return ir::add_scalar_constant(c.g, v, dtype, c.name(name));
  };
  if (p == 0) {
    INFERNO_ASSIGN_OR_RETURN(ValueId nonzero,
                             c.build(OpKind::kNe, {x, scalar(0, "zero")}, {}, "nonzero"));
    INFERNO_ASSIGN_OR_RETURN(nonzero, cast(c, nonzero, dtype, "count"));
    return one(reduce(c, OpKind::kSum, nonzero, dims, keepdim, ""));
  }
  INFERNO_ASSIGN_OR_RETURN(ValueId magnitude, c.build(OpKind::kAbs, {x}, {}, "abs"));
  if (std::isinf(p)) {
    return one(
        reduce(c, p > 0 ? OpKind::kReduceMax : OpKind::kReduceMin, magnitude, dims, keepdim, ""));
  }
  if (p == 1) return one(reduce(c, OpKind::kSum, magnitude, dims, keepdim, ""));
  if (p == 2) {
    INFERNO_ASSIGN_OR_RETURN(ValueId square, c.build(OpKind::kMul, {x, x}, {}, "square"));
    INFERNO_ASSIGN_OR_RETURN(ValueId sum, reduce(c, OpKind::kSum, square, dims, keepdim, "sum"));
    return one(c.build(OpKind::kSqrt, {sum}));
  }
  INFERNO_ASSIGN_OR_RETURN(ValueId power,
                           c.build(OpKind::kPow, {magnitude, scalar(p, "p")}, {}, "power"));
  INFERNO_ASSIGN_OR_RETURN(ValueId sum, reduce(c, OpKind::kSum, power, dims, keepdim, "sum"));
  return one(c.build(OpKind::kPow, {sum, scalar(1 / p, "inverse_p")}));
}

// logsumexp over dims: log(sum(exp(x - m))) + m with m the max, taken as 0 where it is infinite
// (PyTorch's formula: all -inf gives -inf, an inf gives inf, not NaN).
Outputs logsumexp(Ctx& c) {
  INFERNO_ASSIGN_OR_RETURN(ValueId x, floating_self(c));
  INFERNO_ASSIGN_OR_RETURN(ir::IntList dims, reduced_dims(c, x, "dim"));
  const bool keepdim = c.a.get_bool("keepdim");
  INFERNO_ASSIGN_OR_RETURN(ValueId max, reduce(c, OpKind::kReduceMax, x, dims, true, "max"));
  INFERNO_ASSIGN_OR_RETURN(ValueId infinite, c.build(OpKind::kIsInf, {max}, {}, "max_inf"));
  const ValueId zero = ir::add_scalar_constant(c.g, 0, c.type(x).dtype, c.name("zero"));
  INFERNO_ASSIGN_OR_RETURN(ValueId shift,
                           c.build(OpKind::kWhere, {infinite, zero, max}, {}, "shift"));
  INFERNO_ASSIGN_OR_RETURN(ValueId shifted, c.build(OpKind::kSub, {x, shift}, {}, "shifted"));
  INFERNO_ASSIGN_OR_RETURN(ValueId exp, c.build(OpKind::kExp, {shifted}, {}, "exp"));
  INFERNO_ASSIGN_OR_RETURN(ValueId sum, reduce(c, OpKind::kSum, exp, dims, keepdim, "sum"));
  INFERNO_ASSIGN_OR_RETURN(ValueId log, c.build(OpKind::kLog, {sum}, {}, "log"));
  if (!keepdim) {
    INFERNO_ASSIGN_OR_RETURN(shift, squeezed(c, shift, x, dims, "shift_out"));
  }
  return one(c.build(OpKind::kAdd, {log, shift}));
}

// one_hot(x, num_classes): i64 [..., num_classes], 1 where the class is x's value. The class
// count must be given: PyTorch's default (the largest value + 1) depends on the data. Values
// outside [0, num_classes) give a row of zeros (PyTorch raises).
Outputs one_hot(Ctx& c) {
  const ValueId x = c.a.tensor("self");
  if (c.type(x).dtype != DType::kI64 && c.type(x).dtype != DType::kI32)
    return c.invalid("expects an integer tensor, got " + c.type(x).to_string());
  const int64_t classes = c.a.get_int("num_classes");
  if (classes <= 0) {
    return c.unsupported_arg(
        "num_classes must be given: the default (the largest value + 1) depends on the input");
  }
  if (classes > kMaxClasses)
    return c.invalid("num_classes " + std::to_string(classes) + " is over the limit of " +
                     std::to_string(kMaxClasses));
  ir::Tensor values = ir::Tensor::zeros({c.type(x).dtype, {classes}});
  for (int64_t i = 0; i < classes; ++i) values.set(i, static_cast<double>(i));
  const ValueId class_ids = c.g.add_constant(c.name("classes"), std::move(values));
  ir::Shape column = c.type(x).shape;
  column.push_back(1);
  INFERNO_ASSIGN_OR_RETURN(ValueId at,
                           c.build(OpKind::kReshape, {x}, attrs({{"shape", column}}), "column"));
  INFERNO_ASSIGN_OR_RETURN(ValueId hit, c.build(OpKind::kEq, {at, class_ids}, {}, "hit"));
  return one(cast(c, hit, DType::kI64));
}

}  // namespace

void add_statistics_entries(std::vector<OpEntry>& table) {
  const Schema with_correction = {arg("self", T), opt("dim", Ints), opt("correction", Num),
                                  arg("keepdim", Bool, false)};
  const Schema with_unbiased = {arg("self", T), opt("dim", Ints), arg("unbiased", Bool, true),
                                arg("keepdim", Bool, false)};
  const Schema whole = {arg("self", T), arg("unbiased", Bool, true)};
  std::vector<OpEntry> rows;
  for (const auto& [name, root, with_mean] :
       {std::tuple{"aten::var", false, false}, std::tuple{"aten::std", true, false},
        std::tuple{"aten::var_mean", false, true}, std::tuple{"aten::std_mean", true, true}}) {
    rows.push_back(
        {name, "correction correction_names", with_correction, moments(root, with_mean)});
    rows.push_back({name, "dim names_dim", with_unbiased, moments(root, with_mean)});
    rows.push_back({name, "default", whole, moments(root, with_mean)});
  }
  const std::vector<OpEntry> more = {
      {"aten::linalg_vector_norm",
       "",
       {arg("self", T), arg("ord", Num, 2.0), opt("dim", Ints), arg("keepdim", Bool, false),
        opt("dtype", DTy)},
       vector_norm},
      {"aten::norm",
       "",
       {arg("self", T), opt("p", Num), opt("dim", Ints), arg("keepdim", Bool, false),
        opt("dtype", DTy)},
       vector_norm},
      {"aten::logsumexp",
       "",
       {arg("self", T), arg("dim", Ints), arg("keepdim", Bool, false)},
       logsumexp},
      {"aten::one_hot", "", {arg("self", T), arg("num_classes", Int, int64_t{-1})}, one_hot},
  };
  rows.insert(rows.end(), more.begin(), more.end());
  table.insert(table.end(), rows.begin(), rows.end());
}

}  // namespace inferno::frontend::aten
