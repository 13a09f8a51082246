// Reference kernel for fused_elementwise: the body's steps run in order through the same
// elementwise kernels the unfused nodes use, each producing a full tensor of the step's type, so
// every intermediate rounds to its dtype exactly as in the unfused graph (bit-identical results).
#include "reference/kernels.h"
#include "support/check.h"

namespace inferno::reference::detail {

Tensor fused_elementwise(const ir::FusedExpr& expr, const std::vector<const Tensor*>& in,
                         const TensorType& out) {
  INFERNO_CHECK(!expr.steps.empty() && expr.result() == out,
                "fused body does not produce " + out.to_string());
  // last_use[k]: the last step reading step k's result, so intermediates are freed early.
  std::vector<size_t> last_use(expr.steps.size(), expr.steps.size());
  for (size_t k = 0; k < expr.steps.size(); ++k) {
    for (const ir::FusedOperand& operand : expr.steps[k].operands) {
      if (operand.kind == ir::FusedOperand::Kind::kStep)
        last_use[static_cast<size_t>(operand.index)] = k;
    }
  }
  std::vector<Tensor> results(expr.steps.size());
  for (size_t k = 0; k < expr.steps.size(); ++k) {
    const ir::FusedStep& step = expr.steps[k];
    std::vector<const Tensor*> operands;
    for (const ir::FusedOperand& operand : step.operands) {
      const auto index = static_cast<size_t>(operand.index);
      INFERNO_CHECK(operand.kind == ir::FusedOperand::Kind::kInput ? index < in.size() : index < k,
                    "fused operand out of range");
      operands.push_back(operand.kind == ir::FusedOperand::Kind::kInput ? in[index]
                                                                        : &results[index]);
    }
    results[k] = elementwise(step.op, operands, step.type);
    for (const ir::FusedOperand& operand : step.operands) {
      const auto index = static_cast<size_t>(operand.index);
      if (operand.kind == ir::FusedOperand::Kind::kStep && last_use[index] == k)
        results[index] = Tensor{};
    }
  }
  return std::move(results.back());
}

void register_fused_kernels(KernelTable& table) {
  table.add(ir::OpKind::kFusedElementwise,
            [](const ir::Node& node, const std::vector<const Tensor*>& in,
               const TensorType& out) -> Expected<Tensor> {
              // The body was typed for the node's inputs when it was built; a graph that was not
              // verified may hold one that no longer fits, so it is typed again here.
              std::vector<TensorType> types;
              for (const Tensor* t : in) types.push_back(t->type);
              Expected<ir::FusedExpr> expr =
                  ir::type_fused_expr(node.attrs.get_body("expr"), types);
              if (!expr) return invalid_input("fused_elementwise: " + expr.status().message());
              if (expr->result() != out) {
                return invalid_input("fused_elementwise: the body produces " +
                                     expr->result().to_string() + ", not " + out.to_string());
              }
              return fused_elementwise(*expr, in, out);
            });
}

}  // namespace inferno::reference::detail
