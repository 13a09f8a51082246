// OpKind and its traits, generated from ir/ops.def.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace inferno::ir {

/// Trait bits of an op (combine with |).
enum OpTrait : uint32_t {
  kNoTraits = 0,
  kElementwise = 1u << 0,  ///< output[i] depends on input[i] only (after broadcasting)
  kCommutative = 1u << 1,  ///< binary op whose operands may be swapped
  kLayout = 1u << 2,       ///< rearranges elements without computing (reshape, transpose, ...)
  kReduction = 1u << 3,    ///< combines elements along dims (sum, softmax, ...)
  kGemm = 1u << 4,         ///< matrix multiplication family
  kFusion = 1u << 5,       ///< a fused group whose body is in its attributes (fused_elementwise)
};

enum class OpKind : uint16_t {
#define INFERNO_OP(name, text, min_in, max_in, traits) k##name,
#include "ir/ops.def"
#undef INFERNO_OP
};

inline constexpr int kNumOpKinds = 0
#define INFERNO_OP(name, text, min_in, max_in, traits) +1
#include "ir/ops.def"
#undef INFERNO_OP
    ;

/// The op's name in the IR text form, e.g. "linear".
std::string_view op_name(OpKind op);
/// Inverse of op_name; nullopt for an unknown name.
std::optional<OpKind> parse_op_name(std::string_view name);
int op_min_inputs(OpKind op);
int op_max_inputs(OpKind op);
bool op_has_trait(OpKind op, OpTrait trait);

}  // namespace inferno::ir
