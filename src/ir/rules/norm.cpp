// Shape rules of the normalization ops, layer_norm, rms_norm and group_norm: a floating input, the
// optional weight and bias of x's dtype and of exactly the shape PyTorch requires (the normalized
// dims for layer_norm and rms_norm, [C] for group_norm), a finite eps. The output has x's type.
#include <cmath>
#include <string>

#include "ir/rules/rules.h"

namespace inferno::ir::rules {
namespace {

// Inputs 1 and 2 (weight, bias) where present: x's dtype and shape `want`.
Status check_affine(OpKind op, const Types& in, const Shape& want, const std::string& what) {
  const char* names[] = {"", "weight", "bias"};
  for (size_t k = 1; k < in.size(); ++k) {
    if (in[k].dtype != in[0].dtype || in[k].shape != want) {
      return bad(op, std::string(names[k]) + " " + in[k].to_string() + " must be " +
                         std::string(dtype_name(in[0].dtype)) + shape_to_string(want) + " (" +
                         what + " of " + in[0].to_string() + ")");
    }
  }
  return Status::ok();
}

Status check_eps(OpKind op, const Attributes& attrs) {
  const double eps = attrs.get_float("eps");
  if (std::isfinite(eps)) return Status::ok();
  return bad(op, "eps must be finite, got " + std::to_string(eps));
}

Expected<Types> layer_norm(OpKind op, const Types& in, const Attributes& attrs) {
  const TensorType& x = in[0];
  INFERNO_RETURN_IF_ERROR(require_floating(op, x));
  const int64_t k = attrs.get_int("normalized_dims");
  if (k < 1 || k > x.rank()) {
    return bad(op, "normalized_dims " + std::to_string(k) + " must be within [1, " +
                       std::to_string(x.rank()) + "] for " + x.to_string());
  }
  const Shape normalized(x.shape.end() - k, x.shape.end());
  INFERNO_RETURN_IF_ERROR(check_affine(op, in, normalized, "the normalized dims"));
  INFERNO_RETURN_IF_ERROR(check_eps(op, attrs));
  return one(x);
}

Expected<Types> group_norm(OpKind op, const Types& in, const Attributes& attrs) {
  const TensorType& x = in[0];
  INFERNO_RETURN_IF_ERROR(require_floating(op, x));
  if (x.rank() < 2) return bad(op, "expects an input [N, C, *], got " + x.to_string());
  const int64_t groups = attrs.get_int("groups"), channels = x.shape[1];
  if (groups < 1 || channels % groups != 0) {
    return bad(op, "groups " + std::to_string(groups) + " must be >= 1 and divide the " +
                       std::to_string(channels) + " channels of " + x.to_string());
  }
  INFERNO_RETURN_IF_ERROR(check_affine(op, in, {channels}, "one per channel"));
  INFERNO_RETURN_IF_ERROR(check_eps(op, attrs));
  return one(x);
}

}  // namespace

void register_norm_rules(ShapeRuleTable& table) {
  table.add(OpKind::kLayerNorm, layer_norm);
  table.add(OpKind::kRmsNorm, layer_norm);  // the same operands, less the bias (its arity)
  table.add(OpKind::kGroupNorm, group_norm);
}

}  // namespace inferno::ir::rules
