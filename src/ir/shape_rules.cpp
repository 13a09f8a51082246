// The dispatcher of the shape rules: arity and attributes from the op table, then the rule its
// family registered (ir/rules/), and the broadcasting and promotion helpers every family uses.
#include "ir/shape_rules.h"

#include <algorithm>
#include <string>

#include "ir/attr_schema.h"
#include "ir/rules/rules.h"
#include "support/check.h"

namespace inferno::ir {
namespace {

const rules::ShapeRuleTable& rule_table() {
  static const rules::ShapeRuleTable table = [] {
    rules::ShapeRuleTable t;
    rules::register_gemm_rules(t);
    rules::register_layout_rules(t);
    rules::register_reduction_rules(t);
    rules::register_elementwise_rules(t);
    rules::register_fused_rules(t);
    rules::register_conv_rules(t);
    rules::register_pool_rules(t);
    rules::register_join_rules(t);
    rules::register_resize_rules(t);
    rules::register_norm_rules(t);
    rules::register_attention_rules(t);
    rules::register_rotary_rules(t);
    return t;
  }();
  return table;
}

int category(DType d) { return d == DType::kBool ? 0 : is_integral(d) ? 1 : 2; }

std::optional<DType> promote_all(const std::vector<DType>& dtypes) {
  if (dtypes.empty()) return std::nullopt;
  DType d = dtypes[0];
  for (const DType e : dtypes) d = promote_types(d, e);
  return d;
}

}  // namespace

namespace rules {

Status bad(OpKind op, const std::string& what) {
  return invalid_input(std::string(op_name(op)) + ": " + what);
}

std::string types_str(const Types& types) {
  std::string s;
  for (size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + types[i].to_string();
  return s;
}

Status require_floating(OpKind op, const TensorType& t) {
  if (is_floating(t.dtype)) return Status::ok();
  return unsupported(std::string(op_name(op)) + ": expects a floating-point input, got " +
                     t.to_string());
}

}  // namespace rules

bool has_shape_rule(OpKind op) { return rule_table().rules[static_cast<size_t>(op)] != nullptr; }

Expected<std::vector<TensorType>> infer_output_types(OpKind op,
                                                     const std::vector<TensorType>& inputs,
                                                     const Attributes& attrs) {
  const int n = static_cast<int>(inputs.size());
  if (n < op_min_inputs(op) || n > op_max_inputs(op)) {
    const bool fixed = op_min_inputs(op) == op_max_inputs(op);
    return rules::bad(op, "takes " + std::to_string(op_min_inputs(op)) +
                              (fixed ? "" : " to " + std::to_string(op_max_inputs(op))) +
                              " inputs, got " + std::to_string(n));
  }
  for (const TensorType& t : inputs) {
    if (!checked_numel(t.shape)) {
      return rules::bad(op, "input shape " + t.to_string() + " is invalid or too large");
    }
  }
  INFERNO_RETURN_IF_ERROR(check_attributes(op, attrs));
  const rules::ShapeRule rule = rule_table().rules[static_cast<size_t>(op)];
  INFERNO_CHECK(rule != nullptr, "op without a shape rule: " + std::string(op_name(op)));
  return rule(op, inputs, attrs);
}

Expected<Shape> broadcast_shapes(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      return invalid_input("shapes " + shape_to_string(a) + " and " + shape_to_string(b) +
                           " do not broadcast");
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Expected<int64_t> normalize_dim(int64_t dim, int64_t rank) {
  const int64_t r = std::max<int64_t>(rank, 1);
  if (dim < -r || dim >= r) {
    return invalid_input("dim " + std::to_string(dim) + " out of range for rank " +
                         std::to_string(rank));
  }
  return dim < 0 ? dim + r : dim;
}

DType promote_operands(const std::vector<TensorType>& operands) {
  std::vector<DType> with_dims, zero_dim;
  for (const TensorType& t : operands) (t.rank() > 0 ? with_dims : zero_dim).push_back(t.dtype);
  const std::optional<DType> dims = promote_all(with_dims), scalars = promote_all(zero_dim);
  INFERNO_CHECK(dims || scalars, "promote_operands of no operands");
  if (!dims) return *scalars;
  if (scalars && category(*scalars) > category(*dims)) return promote_types(*dims, *scalars);
  return *dims;
}

}  // namespace inferno::ir
