// Shape rule of attention: q[B, Hq, Sq, D], k[B, Hkv, Skv, D], v[B, Hkv, Skv, Dv] of one floating
// dtype, Hq = Hkv * kv_groups, a finite scale, and a mask (when the `mask` attribute names one)
// that broadcasts to the scores [B, Hq, Sq, Skv]: bool, or of q's dtype when additive. The output
// is [B, Hq, Sq, Dv] of q's dtype.
#include <cmath>
#include <string>

#include "ir/rules/rules.h"
#include "ir/shape_rules.h"

namespace inferno::ir::rules {
namespace {

Status check_mask(OpKind op, const Types& in, const std::string& kind, const Shape& scores) {
  const bool has_mask = in.size() == 4;
  if (kind == "none") {
    if (has_mask) return bad(op, "has a mask input but mask = none");
    return Status::ok();
  }
  if (kind != "bool" && kind != "additive")
    return bad(op, "mask must be none, bool or additive, got '" + kind + "'");
  if (!has_mask) return bad(op, "mask = " + kind + " needs a mask input");
  const TensorType& m = in[3];
  const DType want = kind == "bool" ? DType::kBool : in[0].dtype;
  if (m.dtype != want) {
    return bad(op, "a " + kind + " mask must be " + std::string(dtype_name(want)) + ", got " +
                       m.to_string());
  }
  auto joined = broadcast_shapes(m.shape, scores);
  if (m.rank() > 4 || !joined || *joined != scores) {
    return bad(op, "mask " + m.to_string() + " does not broadcast to the scores " +
                       shape_to_string(scores));
  }
  return Status::ok();
}

Expected<Types> attention(OpKind op, const Types& in, const Attributes& attrs) {
  const TensorType &q = in[0], &k = in[1], &v = in[2];
  INFERNO_RETURN_IF_ERROR(require_floating(op, q));
  if (q.rank() != 4 || k.rank() != 4 || v.rank() != 4) {
    return bad(op, "expects q, k and v of rank 4 [batch, heads, sequence, head dim], got " +
                       types_str({q, k, v}));
  }
  if (k.dtype != q.dtype || v.dtype != q.dtype)
    return bad(op, "q, k and v must share a dtype, got " + types_str({q, k, v}));
  const int64_t groups = attrs.get_int("kv_groups");
  const bool kv_agree = k.shape[0] == q.shape[0] && v.shape[0] == q.shape[0] &&
                        k.shape[1] == v.shape[1] && k.shape[2] == v.shape[2] &&
                        k.shape[3] == q.shape[3];
  if (!kv_agree) {
    return bad(op,
               "k and v must be [B, Hkv, Skv, D] and [B, Hkv, Skv, Dv] for q [B, Hq, Sq, D], "
               "got " +
                   types_str({q, k, v}));
  }
  if (groups < 1 || k.shape[1] * groups != q.shape[1]) {
    return bad(op, "kv_groups " + std::to_string(groups) + " times the " +
                       std::to_string(k.shape[1]) + " kv heads must be the " +
                       std::to_string(q.shape[1]) + " query heads");
  }
  const double scale = attrs.get_float("scale");
  if (!std::isfinite(scale)) return bad(op, "scale must be finite, got " + std::to_string(scale));
  const Shape scores = {q.shape[0], q.shape[1], q.shape[2], k.shape[2]};
  INFERNO_RETURN_IF_ERROR(check_mask(op, in, attrs.get_string("mask"), scores));
  return one(TensorType{q.dtype, {q.shape[0], q.shape[1], q.shape[2], v.shape[3]}});
}

}  // namespace

void register_attention_rules(ShapeRuleTable& table) { table.add(OpKind::kAttention, attention); }

}  // namespace inferno::ir::rules
