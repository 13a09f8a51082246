// Reading a model.so's self-description (model_abi.h): dtype names and sizes, the "f32[4,8]" text
// of a tensor type, and the sanity checks that make every later use of the struct safe.
#pragma once

#include <cstdint>
#include <string>

#include "inferno/model_abi.h"

namespace inferno::runtime {

/// Largest rank the runtime accepts (the check keeps shape loops and messages bounded).
constexpr int32_t kMaxRank = 16;
/// Most states and variants a model may declare (bounds the descriptor walk and its allocations).
constexpr int32_t kMaxStates = 1 << 16;
constexpr int32_t kMaxVariants = 64;

/// "f32", "f16", "bf16", "f64", "i64", "i32", "bool"; "dtype(<n>)" for anything else.
std::string dtype_name(int32_t dtype);
/// Bytes per element; 0 for an unknown dtype.
int64_t dtype_size(int32_t dtype);
/// Bytes of a tensor with this (validated) description.
int64_t tensor_bytes(const inferno_tensor_desc& desc);
/// "f32[4,8]"; a rank-0 tensor is "f32[]". `shape` may be null only when rank is 0.
std::string type_text(int32_t dtype, int32_t rank, const int64_t* shape);

/// Checks the ABI version and struct size, then that every pointer, count, dtype, shape and size
/// in `model` is usable: every tensor's size in bytes fits in int64_t, every state's initial value
/// lies inside the weights, every variant is a complete entry point of its own (same ABI, no
/// variants, input types no other entry point has). Throws ABI_MISMATCH naming `path` and the
/// first problem found.
void validate_descriptor(const inferno_model& model, const std::string& path);

}  // namespace inferno::runtime
