// Batch normalization. At inference, a per-channel scale and shift: y = x * scale + shift with
// scale = weight / sqrt(running_var + eps) and shift = bias - running_mean * scale (PyTorch's own
// inference formula), the parameters reshaped to [C, 1, ...] so they broadcast over dim 1. No new
// op: with constant parameters, fold-constants turns scale and shift into constants, and the
// multiply-add fuses with its neighbours like any elementwise op. In training mode (batch
// statistics: what torch.export makes of instance_norm, on a [1, N C, ...] view) and in
// instance_norm itself, x is normalized with its own mean and biased variance, over every dim but
// the channels (per sample and channel for instance_norm), then scaled and shifted by weight and
// bias. The running statistics are not updated. The 3-output forms (native_batch_norm,
// _native_batch_norm_legit and its no_training and no_stats overloads) return kNoValue for the
// saved statistics, which the frontends refuse where a model uses them.
#include <string>
#include <vector>

#include "frontend/aten_builders.h"

namespace inferno::frontend::aten {
namespace {

using ir::OpKind;
using ir::ValueId;

constexpr ArgKind T = ArgKind::kTensor, Bool = ArgKind::kBool, Float = ArgKind::kFloat;

// Tensor argument `name`, or nullopt where it is None or the overload has none (no_stats has no
// running statistics).
std::optional<ValueId> given(const Ctx& c, const char* name) {
  return c.a.has(name) ? c.a.opt_tensor(name) : std::nullopt;
}

// The result as the op returns it: one tensor or three (the saved statistics not kept).
Outputs result(const Ctx& c, ValueId y) {
  if (c.call.op == "aten::batch_norm" || c.call.op == "aten::instance_norm")
    return std::vector<ValueId>{y};
  return std::vector<ValueId>{y, ir::kNoValue, ir::kNoValue};
}

// x normalized with its own mean and biased variance over every dim but 0 (`per_sample`) and 1,
// then multiplied by weight and shifted by bias (each [C], broadcast over dim 1).
Outputs normalize_by_statistics(Ctx& c, ValueId x, bool per_sample) {
  const ir::TensorType xt = c.type(x);
  if (!ir::is_floating(xt.dtype)) return c.invalid("expects a floating-point input");
  ir::IntList dims;
  for (int64_t d = per_sample ? 2 : 0; d < xt.rank(); ++d)
    if (d != 1) dims.push_back(d);
  INFERNO_ASSIGN_OR_RETURN(MeanVariance m, mean_and_variance(c, x, dims, 0, true));
  const ValueId eps = ir::add_scalar_constant(c.g, c.a.get_float("eps"), xt.dtype, c.name("eps"));
  INFERNO_ASSIGN_OR_RETURN(ValueId var_eps,
                           c.build(OpKind::kAdd, {m.variance, eps}, {}, "var_eps"));
  INFERNO_ASSIGN_OR_RETURN(ValueId invstd, c.build(OpKind::kRsqrt, {var_eps}, {}, "invstd"));
  INFERNO_ASSIGN_OR_RETURN(ValueId centered, c.build(OpKind::kSub, {x, m.mean}, {}, "centered"));
  INFERNO_ASSIGN_OR_RETURN(ValueId y, c.build(OpKind::kMul, {centered, invstd}, {}, "normalized"));
  ir::Shape per_channel(static_cast<size_t>(xt.rank() - 1), 1);
  per_channel[0] = xt.shape[1];
  const ir::Attributes to_shape = attrs({{"shape", per_channel}});
  for (const auto& [name, op] : {std::pair{"weight", OpKind::kMul}, {"bias", OpKind::kAdd}}) {
    if (std::optional<ValueId> p = c.a.opt_tensor(name)) {
      INFERNO_ASSIGN_OR_RETURN(ValueId column,
                               c.build(OpKind::kReshape, {*p}, to_shape, std::string(name) + "_c"));
      INFERNO_ASSIGN_OR_RETURN(y, c.build(op, {y, column}, {}, name));
    }
  }
  INFERNO_ASSIGN_OR_RETURN(y, cast(c, y, xt.dtype));
  return result(c, y);
}

Outputs batch_norm(Ctx& c) {
  const ValueId x = c.a.tensor("input");
  const ir::TensorType xt = c.type(x);  // a copy: building nodes moves the graph's values
  if (xt.rank() < 2)
    return c.invalid("expects an input with a channel dim (rank >= 2), got " + xt.to_string());
  const int64_t channels = xt.shape[1];
  for (const char* name : {"weight", "bias", "running_mean", "running_var"}) {
    const std::optional<ValueId> p = given(c, name);
    if (p && c.type(*p).shape != ir::Shape{channels}) {
      return c.invalid(std::string(name) + " must be [" + std::to_string(channels) + "], got " +
                       c.type(*p).to_string());
    }
  }
  if (c.a.has("use_input_stats") ? c.a.get_bool("use_input_stats")
                                 : c.a.has("training") && c.a.get_bool("training"))
    return normalize_by_statistics(c, x, c.call.op == "aten::instance_norm");
  const std::optional<ValueId> mean = given(c, "running_mean"), var = given(c, "running_var");
  if (!mean || !var) return c.invalid("running_mean and running_var are needed at inference");
  const ValueId eps =
      ir::add_scalar_constant(c.g, c.a.get_float("eps"), c.type(*var).dtype, c.name("eps"));
  INFERNO_ASSIGN_OR_RETURN(ValueId var_eps, c.build(OpKind::kAdd, {*var, eps}, {}, "var_eps"));
  INFERNO_ASSIGN_OR_RETURN(ValueId scale, c.build(OpKind::kRsqrt, {var_eps}, {}, "invstd"));
  if (std::optional<ValueId> w = c.a.opt_tensor("weight")) {
    INFERNO_ASSIGN_OR_RETURN(scale, c.build(OpKind::kMul, {*w, scale}, {}, "scale"));
  }
  INFERNO_ASSIGN_OR_RETURN(ValueId shift, c.build(OpKind::kMul, {*mean, scale}, {}, "mean_scale"));
  if (std::optional<ValueId> b = c.a.opt_tensor("bias")) {
    INFERNO_ASSIGN_OR_RETURN(shift, c.build(OpKind::kSub, {*b, shift}, {}, "shift"));
  } else {
    INFERNO_ASSIGN_OR_RETURN(shift, c.build(OpKind::kNeg, {shift}, {}, "shift"));
  }
  ir::Shape per_channel(static_cast<size_t>(xt.rank() - 1), 1);
  per_channel[0] = channels;
  const ir::Attributes to_shape = attrs({{"shape", per_channel}});
  INFERNO_ASSIGN_OR_RETURN(scale, c.build(OpKind::kReshape, {scale}, to_shape, "scale_c"));
  INFERNO_ASSIGN_OR_RETURN(shift, c.build(OpKind::kReshape, {shift}, to_shape, "shift_c"));
  INFERNO_ASSIGN_OR_RETURN(ValueId scaled, c.build(OpKind::kMul, {x, scale}, {}, "scaled"));
  // Reduced-precision inputs with f32 parameters compute in f32, and the result keeps x's dtype.
  INFERNO_ASSIGN_OR_RETURN(ValueId y, c.build(OpKind::kAdd, {scaled, shift}, {},
                                              xt.dtype == c.type(scaled).dtype ? "" : "f"));
  INFERNO_ASSIGN_OR_RETURN(y, cast(c, y, xt.dtype));
  return result(c, y);
}

}  // namespace

void add_batch_norm_entries(std::vector<OpEntry>& table) {
  const Schema params = {arg("input", T), opt("weight", T), opt("bias", T), opt("running_mean", T),
                         opt("running_var", T)};
  auto with = [](Schema s, const Schema& more) {
    s.insert(s.end(), more.begin(), more.end());
    return s;
  };
  const std::vector<OpEntry> rows = {
      {"aten::batch_norm", "",
       with(params, {arg("training", Bool), arg("momentum", Float), arg("eps", Float),
                     arg("cudnn_enabled", Bool)}),
       batch_norm},
      {"aten::native_batch_norm", "",
       with(params, {arg("training", Bool), arg("momentum", Float), arg("eps", Float)}),
       batch_norm},
      {"aten::_native_batch_norm_legit_no_training", "",
       with(params, {arg("momentum", Float), arg("eps", Float)}), batch_norm},
      {"aten::_native_batch_norm_legit",
       "no_stats",
       {arg("input", T), opt("weight", T), opt("bias", T), arg("training", Bool),
        arg("momentum", Float), arg("eps", Float)},
       batch_norm},
      {"aten::_native_batch_norm_legit", "",
       with(params, {arg("training", Bool), arg("momentum", Float), arg("eps", Float)}),
       batch_norm},
      {"aten::instance_norm", "",
       with(params, {arg("use_input_stats", Bool), arg("momentum", Float), arg("eps", Float),
                     arg("cudnn_enabled", Bool)}),
       batch_norm},
  };
  table.insert(table.end(), rows.begin(), rows.end());
}

}  // namespace inferno::frontend::aten
