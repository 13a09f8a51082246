// inferno-run's host side of tensors: .npy arrays to a model input's bytes and a model output's
// bytes back to an .npy array, converting only where NumPy has no type (bf16 <-> f32).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "inferno/model_abi.h"
#include "npy.h"

namespace inferno::run {

/// Bytes of a tensor described by `desc` (dtype size times element count).
size_t byte_size(const inferno_tensor_desc& desc);
/// The model-input bytes for `array`, which must have the input's shape and its dtype; an f32
/// array ('<f4') is rounded to nearest-even for a bf16 input (which takes only '<f4') and for an
/// f16 input (which takes '<f2' as it is, too). Throws npy::Error naming `what`.
std::vector<std::byte> input_bytes(const npy::Array& array, const inferno_tensor_desc& desc,
                                   const std::string& what);
/// The .npy array of an output's bytes; bf16 is widened to f32 (NumPy has no bf16), f16 is '<f2'.
npy::Array output_array(const std::vector<std::byte>& bytes, const inferno_tensor_desc& desc);

/// bf16 <-> f32 (round to nearest even; NaN stays NaN).
uint16_t f32_to_bf16(float value);
float bf16_to_f32(uint16_t value);
/// f32 -> f16 bits (round to nearest even; beyond 65504 by half a unit or more: infinity; NaN
/// stays NaN; subnormals kept).
uint16_t f32_to_f16(float value);

}  // namespace inferno::run
