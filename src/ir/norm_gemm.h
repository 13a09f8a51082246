// norm_gemm's inputs by position (ops.def): x, b, the norm's weight, its bias (layer_norm only),
// then gemm's optional c and d. Every stage that reads a norm_gemm finds its operands here.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "ir/attributes.h"
#include "ir/op.h"

namespace inferno::ir {

/// The input index of each operand; -1 where the node has none.
struct NormGemmInputs {
  int x = 0, b = 1, weight = 2;
  int bias = -1;  ///< layer_norm's shift
  int c = -1, d = -1;
  /// How many inputs the gemm's own operands start after (x, b, weight and bias if any).
  int norm_end = 3;
};

/// The norm a norm_gemm's `norm` attribute names: kLayerNorm or kRmsNorm; nullopt otherwise.
std::optional<OpKind> norm_gemm_kind(std::string_view norm);

/// The positions of a norm_gemm's operands from its attributes and input count, or nullopt when
/// the count does not fit the norm (or the norm is unknown).
std::optional<NormGemmInputs> norm_gemm_inputs(const Attributes& attrs, size_t num_inputs);

}  // namespace inferno::ir
