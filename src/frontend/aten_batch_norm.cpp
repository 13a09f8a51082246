// Batch normalization at inference, as a per-channel scale and shift: y = x * scale + shift with
// scale = weight / sqrt(running_var + eps) and shift = bias - running_mean * scale (PyTorch's own
// inference formula), the parameters reshaped to [C, 1, ...] so they broadcast over dim 1. No new
// op: with constant parameters, fold-constants turns scale and shift into constants, and the
// multiply-add fuses with its neighbours like any elementwise op. Training mode (batch
// statistics) is unsupported. The 3-output forms (native_batch_norm,
// _native_batch_norm_legit_no_training) return kNoValue for the saved statistics, which the
// frontends refuse where a model uses them.
#include <string>
#include <vector>

#include "frontend/aten_builders.h"

namespace inferno::frontend::aten {
namespace {

using ir::OpKind;
using ir::ValueId;

constexpr ArgKind T = ArgKind::kTensor, Bool = ArgKind::kBool, Float = ArgKind::kFloat;

Outputs batch_norm(Ctx& c) {
  if (c.a.has("training") && c.a.get_bool("training"))
    return c.unsupported_arg("batch_norm in training mode (batch statistics) is not supported");
  const ValueId x = c.a.tensor("input");
  const ir::TensorType xt = c.type(x);  // a copy: building nodes moves the graph's values
  if (xt.rank() < 2)
    return c.invalid("expects an input with a channel dim (rank >= 2), got " + xt.to_string());
  const int64_t channels = xt.shape[1];
  const std::optional<ValueId> mean = c.a.opt_tensor("running_mean"),
                               var = c.a.opt_tensor("running_var");
  if (!mean || !var) return c.invalid("running_mean and running_var are needed at inference");
  for (const char* name : {"weight", "bias", "running_mean", "running_var"}) {
    const std::optional<ValueId> p = c.a.opt_tensor(name);
    if (p && c.type(*p).shape != ir::Shape{channels}) {
      return c.invalid(std::string(name) + " must be [" + std::to_string(channels) + "], got " +
                       c.type(*p).to_string());
    }
  }
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
  if (c.call.op == "aten::batch_norm") return std::vector<ValueId>{y};
  return std::vector<ValueId>{y, ir::kNoValue, ir::kNoValue};
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
  };
  table.insert(table.end(), rows.begin(), rows.end());
}

}  // namespace inferno::frontend::aten
