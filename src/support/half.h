// IEEE binary16 and bfloat16 conversions on the host, with round-to-nearest-even, matching what
// PyTorch does when it casts float32 to these types.
#pragma once

#include <cstdint>

namespace inferno {

uint16_t float_to_half_bits(float f);
float half_bits_to_float(uint16_t h);
uint16_t float_to_bf16_bits(float f);
float bf16_bits_to_float(uint16_t b);

}  // namespace inferno
