#include "cli/tensor_io.h"

#include <array>
#include <utility>

namespace inferno::cli {
namespace {

constexpr std::array<std::pair<const char*, ir::DType>, 6> kNpyDTypes = {{
    {"<f4", ir::DType::kF32},
    {"<f2", ir::DType::kF16},
    {"<f8", ir::DType::kF64},
    {"<i8", ir::DType::kI64},
    {"<i4", ir::DType::kI32},
    {"|b1", ir::DType::kBool},
}};

}  // namespace

Expected<ir::Tensor> read_tensor(const std::string& path) {
  INFERNO_ASSIGN_OR_RETURN(NpyArray array, read_npy(path));
  for (const auto& [descr, dtype] : kNpyDTypes) {
    if (array.descr != descr) continue;
    ir::Tensor t;
    t.type = {dtype, array.shape};
    t.data = std::move(array.data);
    return t;
  }
  return unsupported("'" + path + "' has NumPy dtype '" + array.descr +
                     "', which no model input can take (supported: float32, float16, float64, "
                     "int64, int32, bool)");
}

Status write_tensor(const std::string& path, const ir::Tensor& tensor) {
  if (tensor.type.dtype == ir::DType::kBF16) {
    ir::Tensor widened = ir::Tensor::zeros({ir::DType::kF32, tensor.type.shape});
    for (int64_t i = 0; i < tensor.numel(); ++i) widened.set(i, tensor.get(i));
    return write_tensor(path, widened);
  }
  for (const auto& [descr, dtype] : kNpyDTypes) {
    if (dtype == tensor.type.dtype)
      return write_npy(path, NpyArray{descr, tensor.type.shape, tensor.data});
  }
  return internal_error("no NumPy dtype for " + tensor.type.to_string());
}

}  // namespace inferno::cli
