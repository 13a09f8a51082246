// Shape rule of fused_elementwise: its body, typed against the node's inputs, gives the result.
#include "ir/fused_expr.h"
#include "ir/rules/rules.h"

namespace inferno::ir::rules {
namespace {

Expected<Types> fused(OpKind op, const Types& in, const Attributes& attrs) {
  Expected<FusedExpr> typed = type_fused_expr(attrs.get_body("expr"), in);
  if (!typed) return bad(op, typed.status().message());
  return one(typed->result());
}

}  // namespace

void register_fused_rules(ShapeRuleTable& table) { table.add(OpKind::kFusedElementwise, fused); }

}  // namespace inferno::ir::rules
