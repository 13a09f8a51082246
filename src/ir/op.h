// OpKind and everything the op table (ir/ops.def) says about an op: its text name, arity, traits,
// dtype class, attribute schema, elementwise expression and backend note.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
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
  kWindow = 1u << 6,  ///< each output element comes from a window of its input (pooling, resizing)
  kNormalization = 1u << 7,   ///< normalizes over dims (layer_norm, group_norm, rms_norm)
  kConvActivation = 1u << 8,  ///< a conv2d applies it in its epilogue (activation="<op name>")
  kGemmActivation = 1u << 9,  ///< a gemm applies it in its epilogue (activation="<op name>")
  /// Its result can pass f16's range although its operands do not (exp): under --precision fp16
  /// it and what reads its result stay f32 (passes/convert_precision.h).
  kWidensF16Range = 1u << 10,
  /// Its result is back in range whatever its operand (log, tanh, a norm): a wide value stops.
  kNarrowsRange = 1u << 11,
  /// Stays f32 under --precision fp16 and bf16 (softmax: its logits can exceed f16's range).
  kStaysF32 = 1u << 12,
};

/// Which operand dtypes an elementwise op accepts, and its result dtype. "Promoted" is PyTorch's
/// type promotion over the operands (ir/shape_rules.h, promote_operands). An op refuses operands
/// outside its class with an error; the frontends first insert the casts PyTorch would (an
/// integer tensor into sqrt becomes f32).
enum class DTypeClass : uint8_t {
  kFamily,   ///< not elementwise: the op family's shape rule decides
  kFloat,    ///< floating-point operands; result: promoted
  kNumeric,  ///< any dtype; result: promoted
  kTrueDiv,  ///< any dtype; result: promoted, and f32 when that is an integer or bool
  kCompare,  ///< any dtype, compared in the promoted dtype; result: bool
  kLogical,  ///< any dtype, each operand tested against zero; result: bool
  kSelect,   ///< operand 0 tested against zero, the others promoted; result: theirs
  kCast,     ///< any dtype; result: the `dtype` attribute
  kInteger,  ///< i32 and i64 (bool's bit ops are the logical ones); result: promoted
};

/// Whether ops of the class have an exact integer form (the reference's and the kernels' wrapping
/// int64 compute type): every class but the floating-point results.
constexpr bool has_integer_form(DTypeClass c) {
  return c != DTypeClass::kFloat && c != DTypeClass::kTrueDiv;
}
/// Whether ops of the class have a floating-point form (the reference's double): every class but
/// the integer-only bit operations.
constexpr bool has_floating_form(DTypeClass c) { return c != DTypeClass::kInteger; }

enum class OpKind : uint16_t {
#define INFERNO_OP(name, text, min_in, max_in, traits, dtypes, schema, backend) k##name,
#include "ir/ops.def"
#undef INFERNO_OP
};

inline constexpr int kNumOpKinds = 0
#define INFERNO_OP(name, text, min_in, max_in, traits, dtypes, schema, backend) +1
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
DTypeClass op_dtype_class(OpKind op);
/// The attribute schema as written in ops.def ("dims: ints, keepdim: bool"); parsed by
/// ir/attr_schema.h.
std::string_view op_attr_schema_text(OpKind op);
/// An elementwise op's expression as written in ops.def ("x0 + x1"); "" for other ops.
std::string_view op_expression(OpKind op);
/// Why codegen never sees the op ("legalized to gemm"); "" when codegen lowers it.
std::string_view op_backend_note(OpKind op);

/// The unary elementwise op an epilogue's `activation` attribute names, if it has `trait`
/// (kConvActivation or kGemmActivation); nullopt for "none" and for names without the trait.
std::optional<OpKind> epilogue_activation(std::string_view name, OpTrait trait);
/// "none" and every activation with `trait`, quoted, in table order: "\"none\", \"relu\" or
/// \"gelu\"" (for error messages).
std::string epilogue_activation_names(OpTrait trait);

/// Every OpKind, in table order (for tables and tests that cover all ops).
inline constexpr auto all_op_kinds() {
  struct Range {
    struct It {
      int i;
      OpKind operator*() const { return static_cast<OpKind>(i); }
      It& operator++() {
        ++i;
        return *this;
      }
      bool operator!=(const It& o) const { return i != o.i; }
    };
    It begin() const { return {0}; }
    It end() const { return {kNumOpKinds}; }
  };
  return Range{};
}

}  // namespace inferno::ir
