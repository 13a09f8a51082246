// Shape rule of rotary (ops.def): a floating x of rank >= 1, an even rotary_dim within its last
// dim, cos and sin of x's dtype whose last dim is rotary_dim and whose other dims broadcast to x's
// without widening it. The output has x's type.
#include <string>

#include "ir/rules/rules.h"

namespace inferno::ir::rules {
namespace {

// cos or sin (`name`): x's dtype, last dim r, each leading dim 1 or x's, rank at most x's.
Status check_table(OpKind op, const TensorType& x, const TensorType& t, int64_t r,
                   const char* name) {
  const std::string want = std::string(name) + " " + t.to_string() + " must be " +
                           std::string(dtype_name(x.dtype)) + " with last dim " +
                           std::to_string(r) + ", broadcasting to " + x.to_string();
  if (t.dtype != x.dtype || t.rank() < 1 || t.rank() > x.rank() || t.shape.back() != r)
    return bad(op, want);
  const size_t lead = x.shape.size() - t.shape.size();
  for (size_t d = 0; d + 1 < t.shape.size(); ++d) {
    if (t.shape[d] != 1 && t.shape[d] != x.shape[lead + d]) return bad(op, want);
  }
  return Status::ok();
}

Expected<Types> rotary(OpKind op, const Types& in, const Attributes& attrs) {
  const TensorType& x = in[0];
  INFERNO_RETURN_IF_ERROR(require_floating(op, x));
  if (x.rank() < 1) return bad(op, "expects x of rank >= 1, got " + x.to_string());
  const int64_t r = attrs.get_int("rotary_dim");
  if (r < 2 || r % 2 != 0 || r > x.shape.back()) {
    return bad(op, "rotary_dim " + std::to_string(r) + " must be even and within [2, " +
                       std::to_string(x.shape.back()) + "] for " + x.to_string());
  }
  INFERNO_RETURN_IF_ERROR(check_table(op, x, in[1], r, "cos"));
  INFERNO_RETURN_IF_ERROR(check_table(op, x, in[2], r, "sin"));
  return one(x);
}

}  // namespace

void register_rotary_rules(ShapeRuleTable& table) { table.add(OpKind::kRotary, rotary); }

}  // namespace inferno::ir::rules
