// Elementwise code: the op expressions of ops.def with their operands substituted, and the
// loads, conversions, roundings and stores that move values between their storage dtype, the
// register type that holds them and the type a step computes in.
//
// A value lives in registers as the representation of its dtype (value_type): float for f32,
// f16 and bf16 (already rounded to the dtype), double for f64, and inferno::ew::Int (wrapping
// int64) for i64, i32 and bool. A step computes in the type the reference interpreter's rules
// give (choose_compute_type): exactly in ew::Int when its result and operands are integers or
// bool; in double when f64 or an i64/i32 operand is involved (the reference converts integers
// through double); in float otherwise. Its result is then rounded to its dtype (round_to), so a
// chain of steps gives what the chain of unfused ops gives. float -> integer conversions
// truncate toward zero, map NaN to 0 and saturate, as the reference does.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"

namespace inferno::codegen {

enum class ComputeType { kFloat, kDouble, kInt };

/// "float", "double", "inferno::ew::Int".
std::string_view compute_type_name(ComputeType compute);
/// The compute type of a step reading `inputs` and writing `output` (rules above).
ComputeType choose_compute_type(const std::vector<ir::DType>& inputs, ir::DType output);
/// The register representation of a value of `dtype` (see above).
ComputeType value_type(ir::DType dtype);
/// The CUDA element type a dtype is stored as: "float", "__half", "__nv_bfloat16", "double",
/// "int64_t", "int32_t", "uint8_t" (bool, one byte, any non-zero byte is true).
std::string_view storage_type(ir::DType dtype);
/// The short dtype name used in kernel names: "f32", "bool", ...
std::string_view dtype_tag(ir::DType dtype);

/// Op `op`'s expression (ops.def) in compute type `compute` with its operands x0, x1, ...
/// replaced by `operands` (C++ expressions of that type), or nullopt when the op has no form in
/// that type (a floating-point op in integers).
std::optional<std::string> elementwise_expression(ir::OpKind op,
                                                  const std::vector<std::string>& operands,
                                                  ComputeType compute);

/// Reads `element` (an lvalue of the stored dtype) as value_type(stored).
std::string load_value(ir::DType stored, const std::string& element);
/// Converts `value`, held as `from`, to compute type `to` (as the reference converts).
std::string convert_value(ComputeType from, ComputeType to, const std::string& value);
/// A step's result `value` (of type `compute`) rounded or converted to `dtype`, as
/// value_type(dtype).
std::string round_to(ir::DType dtype, ComputeType compute, const std::string& value);
/// Stores `value`, held as value_type(dtype), as the stored dtype.
std::string store_value(ir::DType dtype, const std::string& value);

/// Reads `element` (an lvalue of the stored dtype) as the compute type.
std::string load_expression(ir::DType stored, ComputeType compute, const std::string& element);
/// Converts `value` (of the compute type) to the stored dtype.
std::string store_expression(ir::DType stored, ComputeType compute, const std::string& value);
/// A rank-0 constant as a literal of the compute type, converted as a load would convert it.
std::string scalar_literal(const ir::Tensor& scalar, ComputeType compute);

}  // namespace inferno::codegen
