// The elementwise op table: op -> CUDA expression, plus the loads, stores and literals that move
// values between their storage dtype and the type a kernel computes in.
//
// Compute types follow the reference interpreter (src/reference/elementwise.cpp) so results
// match it: integer and bool results are computed exactly in int64 with wrap-around; anything
// touching f64, or converting an integer to floating point, is computed in double; everything
// else (f32, f16, bf16) in float. For add/sub/mul/div float arithmetic then rounds exactly as the
// reference's double arithmetic followed by its rounding through float. Float -> integer stores
// truncate toward zero, saturate and map NaN to 0 (the __float2int_rz family), as the reference.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"

namespace inferno::codegen {

enum class ComputeType { kFloat, kDouble, kInt64 };

/// "float", "double", "int64_t".
std::string_view compute_type_name(ComputeType compute);
/// The compute type for a node reading `inputs` and writing `output` (rules above).
ComputeType choose_compute_type(const std::vector<ir::DType>& inputs, ir::DType output);
/// The CUDA element type a dtype is stored as: "float", "__half", "__nv_bfloat16", "double",
/// "int64_t", "int32_t", "uint8_t" (bool, one byte, any non-zero byte is true).
std::string_view storage_type(ir::DType dtype);
/// The short dtype name used in kernel names: "f32", "bool", ...
std::string_view dtype_tag(ir::DType dtype);

/// The expression computing elementwise op `op` (with its attributes: gelu's approximation) on
/// operands `a` and `b` of the compute type, or nullopt when the op has no form in that type
/// (e.g. exp on integers).
std::optional<std::string> op_expression(ir::OpKind op, const ir::Attributes& attrs,
                                         ComputeType compute);
inline std::optional<std::string> op_expression(const ir::Node& node, ComputeType compute) {
  return op_expression(node.op, node.attrs, compute);
}

/// Reads `element` (an lvalue of the stored dtype) as the compute type.
std::string load_expression(ir::DType stored, ComputeType compute, const std::string& element);
/// Converts `value` (of the compute type) to the stored dtype.
std::string store_expression(ir::DType stored, ComputeType compute, const std::string& value);
/// A rank-0 constant as a literal of the compute type, converted as a load would convert it.
std::string scalar_literal(const ir::Tensor& scalar, ComputeType compute);

}  // namespace inferno::codegen
