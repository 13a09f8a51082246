// layer_norm, rms_norm and group_norm, and the 3-output forms native_layer_norm and
// native_group_norm, whose saved mean and rstd are kNoValue (the frontends refuse a model that
// uses them). The parameters are cast to x's dtype where they differ (PyTorch's mixed-precision
// kernels read f32 parameters next to an f16 x; rounding them to f16 first differs from that by
// f16's rounding of the parameters only); a bias without a weight gets a weight of ones, the op's
// single form.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "frontend/aten_builders.h"

namespace inferno::frontend::aten {
namespace {

using ir::OpKind;
using ir::ValueId;

constexpr ArgKind T = ArgKind::kTensor, Int = ArgKind::kInt, Ints = ArgKind::kInts,
                  Float = ArgKind::kFloat, Any = ArgKind::kAny;

// x, then the weight and bias present, in x's dtype; a weight of `shape` ones when only the bias
// is given.
Expected<std::vector<ValueId>> operands(Ctx& c, ValueId x, const ir::Shape& shape) {
  const ir::DType dtype = c.type(x).dtype;
  std::optional<ValueId> weight = c.a.opt_tensor("weight");
  const std::optional<ValueId> bias =
      c.a.has("bias") ? c.a.opt_tensor("bias") : std::optional<ValueId>{};
  if (!weight && bias) {
    ir::Tensor ones = ir::Tensor::zeros({dtype, shape});
    for (int64_t i = 0; i < ones.numel(); ++i) ones.set(i, 1);
    weight = c.g.add_constant(c.name("ones"), std::move(ones));
  }
  std::vector<ValueId> in = {x};
  for (const auto& [p, suffix] : {std::pair{weight, "weight"}, std::pair{bias, "bias"}}) {
    if (!p) continue;
    INFERNO_ASSIGN_OR_RETURN(ValueId v, cast(c, *p, dtype, suffix));
    in.push_back(v);
  }
  return in;
}

Outputs with_unused_statistics(Ctx& c, ValueId y) {
  if (c.call.op.rfind("aten::native_", 0) != 0) return std::vector<ValueId>{y};
  return std::vector<ValueId>{y, ir::kNoValue, ir::kNoValue};
}

// PyTorch's check: normalized_shape is x's trailing shape. The number of its dims, or an invalid
// input Status.
Expected<int64_t> normalized_dims(Ctx& c, const ir::TensorType& xt) {
  const std::vector<int64_t> normalized = c.a.get_ints("normalized_shape");
  const auto k = static_cast<int64_t>(normalized.size());
  if (k < 1 || k > xt.rank() ||
      !std::equal(normalized.begin(), normalized.end(), xt.shape.end() - k)) {
    return c.invalid("normalized_shape " + ir::shape_to_string(normalized) +
                     " must be a non-empty trailing part of the input's shape, got " +
                     xt.to_string());
  }
  return k;
}

Outputs layer_norm(Ctx& c) {
  const ValueId x = c.a.tensor("input");
  const ir::TensorType xt = c.type(x);  // a copy: building nodes moves the graph's values
  INFERNO_ASSIGN_OR_RETURN(const int64_t k, normalized_dims(c, xt));
  INFERNO_ASSIGN_OR_RETURN(std::vector<ValueId> in,
                           operands(c, x, ir::Shape(xt.shape.end() - k, xt.shape.end())));
  INFERNO_ASSIGN_OR_RETURN(ValueId y,
                           c.build(OpKind::kLayerNorm, std::move(in),
                                   attrs({{"normalized_dims", k}, {"eps", c.a.get_float("eps")}})));
  return with_unused_statistics(c, y);
}

// torch.finfo(dtype).eps, rms_norm's eps when the model gives None.
double machine_epsilon(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::kF16:
      return 0.0009765625;  // 2^-10
    case ir::DType::kBF16:
      return 0.0078125;  // 2^-7
    case ir::DType::kF64:
      return 2.220446049250313e-16;
    default:
      return 1.1920928955078125e-07;  // f32's 2^-23 (other dtypes fail the shape rule)
  }
}

Outputs rms_norm(Ctx& c) {
  const ValueId x = c.a.tensor("input");
  const ir::TensorType xt = c.type(x);
  INFERNO_ASSIGN_OR_RETURN(const int64_t k, normalized_dims(c, xt));
  INFERNO_ASSIGN_OR_RETURN(std::vector<ValueId> in,
                           operands(c, x, ir::Shape(xt.shape.end() - k, xt.shape.end())));
  const double eps = c.a.is_none("eps") ? machine_epsilon(xt.dtype) : c.a.get_float("eps");
  return one(
      c.build(OpKind::kRmsNorm, std::move(in), attrs({{"normalized_dims", k}, {"eps", eps}})));
}

Outputs group_norm(Ctx& c) {
  const ValueId x = c.a.tensor("input");
  const ir::TensorType xt = c.type(x);
  if (xt.rank() < 2) return c.invalid("expects an input [N, C, *], got " + xt.to_string());
  const bool native = c.a.has("group");
  const int64_t groups = c.a.get_int(native ? "group" : "num_groups");
  if (native) {
    // native_group_norm restates x's shape as N, C and HxW; a model whose numbers disagree with
    // its tensor is malformed.
    const int64_t n = xt.shape[0], channels = xt.shape[1];
    const int64_t hxw = n * channels == 0 ? c.a.get_int("HxW") : xt.numel() / (n * channels);
    if (c.a.get_int("N") != n || c.a.get_int("C") != channels || c.a.get_int("HxW") != hxw) {
      return c.invalid("N, C, HxW = " + std::to_string(c.a.get_int("N")) + ", " +
                       std::to_string(c.a.get_int("C")) + ", " +
                       std::to_string(c.a.get_int("HxW")) + " do not describe the input " +
                       xt.to_string());
    }
  }
  INFERNO_ASSIGN_OR_RETURN(std::vector<ValueId> in, operands(c, x, {xt.shape[1]}));
  INFERNO_ASSIGN_OR_RETURN(ValueId y,
                           c.build(OpKind::kGroupNorm, std::move(in),
                                   attrs({{"groups", groups}, {"eps", c.a.get_float("eps")}})));
  return with_unused_statistics(c, y);
}

}  // namespace

void add_norm_entries(std::vector<OpEntry>& table) {
  const std::vector<OpEntry> rows = {
      {"aten::layer_norm",
       "",
       {arg("input", T), arg("normalized_shape", Ints), opt("weight", T), opt("bias", T),
        arg("eps", Float, 1e-5), arg("cudnn_enable", Any, true)},
       layer_norm},
      {"aten::native_layer_norm",
       "",
       {arg("input", T), arg("normalized_shape", Ints), opt("weight", T), opt("bias", T),
        arg("eps", Float)},
       layer_norm},
      {"aten::rms_norm",
       "",
       {arg("input", T), arg("normalized_shape", Ints), opt("weight", T), opt("eps", Float)},
       rms_norm},
      {"aten::group_norm",
       "",
       {arg("input", T), arg("num_groups", Int), opt("weight", T), opt("bias", T),
        arg("eps", Float, 1e-5), arg("cudnn_enabled", Any, true)},
       group_norm},
      {"aten::native_group_norm",
       "",
       {arg("input", T), opt("weight", T), opt("bias", T), arg("N", Int), arg("C", Int),
        arg("HxW", Int), arg("group", Int), arg("eps", Float)},
       group_norm},
  };
  table.insert(table.end(), rows.begin(), rows.end());
}

}  // namespace inferno::frontend::aten
