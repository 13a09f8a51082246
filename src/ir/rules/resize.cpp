// Shape rules of the resizing ops, upsample_nearest2d and upsample_bilinear2d: a 4-D floating
// input with non-empty channel and spatial dims, an output size of two values >= 1, scale factors
// that are 0 (none) or positive and finite, as PyTorch's upsample checks.
#include <cmath>
#include <string>

#include "ir/rules/rules.h"

namespace inferno::ir::rules {
namespace {

Expected<Types> upsample(OpKind op, const Types& in, const Attributes& attrs) {
  const TensorType& x = in[0];
  if (x.rank() != 4) return bad(op, "expects a 4-D [N, C, H, W] input, got " + x.to_string());
  INFERNO_RETURN_IF_ERROR(require_floating(op, x));
  if (x.shape[1] < 1 || x.shape[2] < 1 || x.shape[3] < 1)
    return bad(op, "expects non-empty channel and spatial dims, got " + x.to_string());
  const IntList& size = attrs.get_ints("output_size");
  if (size.size() != 2 || size[0] < 1 || size[1] < 1)
    return bad(op, "output_size must be two values >= 1, got " + shape_to_string(size));
  for (const char* name : {"scale_h", "scale_w"}) {
    const double s = attrs.get_float(name);
    if (!(s == 0 || (s > 0 && std::isfinite(s))))
      return bad(op, std::string(name) + " must be 0 (none) or positive, got " + std::to_string(s));
  }
  const Shape out = {x.shape[0], x.shape[1], size[0], size[1]};
  if (!checked_numel(out)) return bad(op, "output " + shape_to_string(out) + " is too large");
  return one({x.dtype, out});
}

}  // namespace

void register_resize_rules(ShapeRuleTable& table) {
  table.add(OpKind::kUpsampleNearest2d, upsample);
  table.add(OpKind::kUpsampleBilinear2d, upsample);
}

}  // namespace inferno::ir::rules
