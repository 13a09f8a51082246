// Element types of IR tensors.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace inferno::ir {

/// Element type of a tensor. The text names ("f32", ...) are the IR's spelling.
enum class DType : uint8_t { kF32, kF16, kBF16, kF64, kI64, kI32, kBool };

inline constexpr DType kAllDTypes[] = {DType::kF32, DType::kF16, DType::kBF16, DType::kF64,
                                       DType::kI64, DType::kI32, DType::kBool};

/// "f32", "f16", "bf16", "f64", "i64", "i32", "bool".
std::string_view dtype_name(DType dtype);
/// Inverse of dtype_name; nullopt for an unknown name.
std::optional<DType> parse_dtype(std::string_view name);
/// Bytes per element.
int64_t dtype_size(DType dtype);
bool is_floating(DType dtype);
bool is_integral(DType dtype);  ///< i64, i32 (not bool)

/// PyTorch's type promotion for two tensor operands of equal standing (both tensors, or both
/// scalars): bool < integers < floating; within a category the wider type wins, and f16 with
/// bf16 gives f32.
DType promote_types(DType a, DType b);

}  // namespace inferno::ir
