// The body of a fused_elementwise node: a small DAG of elementwise ops over the node's inputs,
// any arity. The fusion pass (or the IR parser) builds it once; the node's `expr` attribute
// carries it as a FusedBody through the passes, the reference interpreter and codegen, and the
// IR text prints it in the form below.
//
// Text form: steps separated by "; ", each an elementwise op applied to operands, where `$i` is
// the node's input i and `#k` the result of step k (k < the current step). The last step is the
// node's output. Ops with attributes spell their values in brackets, in the order of the op's
// schema (ops.def):
//
//   sigmoid($0); mul($0, #0)                 silu(x) as torch.export decomposes it
//   add($0, $1); gelu_tanh(#0)               gelu(x + bias, approximate="tanh")
//   cast[f16]($0); mul(#0, $1)               a cast to f16, then a product
//   where($0, $1, $2); clamp(#0, $3, $4)     any number of operands
//
// Every step is typed by its op's shape rule (ir/shape_rules.h) from its operands' types, so a
// fused node computes exactly what the unfused nodes did, rounding every step to its dtype;
// broadcasting works as in the unfused graph (each input broadcasts to the output's shape).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/attributes.h"
#include "ir/op.h"
#include "ir/tensor_type.h"
#include "support/status.h"

namespace inferno::ir {

/// Bounds on what a fused node may hold (the text is untrusted input when read from IR text).
inline constexpr int kMaxFusedSteps = 64;
inline constexpr int kMaxFusedInputs = 32;  // ops.def's max_inputs for fused_elementwise
/// Longest accepted text; 64 steps of the longest canonical step fit in well under half of it.
inline constexpr size_t kMaxFusedExprBytes = 4096;

/// One operand of a step: a node input or an earlier step.
struct FusedOperand {
  enum class Kind : uint8_t { kInput, kStep };
  Kind kind = Kind::kInput;
  int32_t index = 0;
  bool operator==(const FusedOperand&) const = default;
};

/// One elementwise op of the body.
struct FusedStep {
  OpKind op;                           ///< an op with the kElementwise trait
  Attributes attrs;                    ///< the unfused op's attributes (cast: dtype)
  std::vector<FusedOperand> operands;  ///< as many as the op takes
  TensorType type;                     ///< the step's result, from the op's shape rule
  bool operator==(const FusedStep&) const = default;
};

struct FusedExpr {
  std::vector<FusedStep> steps;  ///< in evaluation order; the last is the output
  const TensorType& result() const { return steps.back().type; }
  bool operator==(const FusedExpr&) const = default;
};

/// Parses and types `text` for a node with inputs of `input_types`. Errors (exit code 3 class:
/// invalid input) name the offending step: unknown or non-elementwise op, bad operand, operand
/// out of range or referring forward, wrong arity, a shape rule failure, too many steps, an
/// input no step reads, a step result no later step reads (so every input broadcasts to the
/// result). Only the canonical spelling is accepted (exactly "; " and ", " as separators, no
/// other spaces, indices without leading zeros): equal bodies have equal text, and
/// fused_expr_to_string(parse_fused_expr(t)) == t for every accepted t.
Expected<FusedExpr> parse_fused_expr(std::string_view text,
                                     const std::vector<TensorType>& input_types);

/// The text form of `expr` (parse_fused_expr's inverse; `type` fields are not printed).
std::string fused_expr_to_string(const FusedExpr& expr);

/// `expr` with every step typed again for inputs of `input_types` (the shape rule of
/// fused_elementwise; the same checks and errors as parse_fused_expr).
Expected<FusedExpr> type_fused_expr(const FusedExpr& expr,
                                    const std::vector<TensorType>& input_types);

/// A body as an attribute value.
FusedBody make_fused_body(FusedExpr expr);

/// Turns every attribute that `op`'s schema declares a body but that `attrs` holds as text (the
/// IR text form, or a builder's caller) into a FusedBody parsed against `input_types`: the one
/// place a body is parsed from text. Errors are parse_fused_expr's, prefixed with the op.
Status parse_body_attributes(OpKind op, const std::vector<TensorType>& input_types,
                             Attributes& attrs);

}  // namespace inferno::ir
