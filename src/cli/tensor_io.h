// NumPy files <-> IR tensors, for --data and --save-outputs.
#pragma once

#include <string>

#include "ir/tensor_type.h"
#include "support/npy.h"
#include "support/status.h"

namespace inferno::cli {

/// Reads an .npy file as an IR tensor. NumPy dtypes without an IR equivalent are refused.
Expected<ir::Tensor> read_tensor(const std::string& path);

/// Writes `tensor` as .npy. bf16 has no NumPy dtype: it is widened to float32 (exactly).
Status write_tensor(const std::string& path, const ir::Tensor& tensor);

}  // namespace inferno::cli
