// Internal to the shape rules: the table indexed by op kind that each op family's file fills
// (ir/rules/<family>.cpp), and the helpers the rules share.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "ir/attributes.h"
#include "ir/op.h"
#include "ir/tensor_type.h"
#include "support/status.h"

namespace inferno::ir::rules {

using Types = std::vector<TensorType>;
/// A family's rule: the op's output types for these input types. Arity and attribute types are
/// checked before a rule runs (from the op table), so rules read attributes with the checked
/// getters.
using ShapeRule = Expected<Types> (*)(OpKind op, const Types& inputs, const Attributes& attrs);

struct ShapeRuleTable {
  std::array<ShapeRule, kNumOpKinds> rules{};
  void add(OpKind op, ShapeRule rule) { rules[static_cast<size_t>(op)] = rule; }
};

// One per family file.
void register_gemm_rules(ShapeRuleTable& table);
void register_layout_rules(ShapeRuleTable& table);
void register_reduction_rules(ShapeRuleTable& table);
void register_elementwise_rules(ShapeRuleTable& table);
void register_fused_rules(ShapeRuleTable& table);
void register_conv_rules(ShapeRuleTable& table);
void register_pool_rules(ShapeRuleTable& table);
void register_join_rules(ShapeRuleTable& table);
void register_resize_rules(ShapeRuleTable& table);
void register_norm_rules(ShapeRuleTable& table);
void register_attention_rules(ShapeRuleTable& table);
void register_rotary_rules(ShapeRuleTable& table);

/// "<op>: <what>", invalid input.
Status bad(OpKind op, const std::string& what);
/// "f32[2,3], i64[]" for messages.
std::string types_str(const Types& types);
Status require_floating(OpKind op, const TensorType& t);
inline Expected<Types> one(TensorType t) { return Types{std::move(t)}; }

}  // namespace inferno::ir::rules
