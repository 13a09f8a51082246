#include "target/target.h"

#include <string>

namespace inferno::target {

std::optional<ir::DType> Target::compute_dtype() const {
  switch (precision) {
    case Precision::kFp16:
      return ir::DType::kF16;
    case Precision::kBf16:
      return ir::DType::kBF16;
    case Precision::kFp32:
    case Precision::kTf32:
      break;
  }
  return std::nullopt;
}

Status Target::check_precision() const {
  if (precision != Precision::kBf16) return Status::ok();
  for (const int arch : sm_archs) {
    if (arch < kBf16MinComputeCapability) {
      return toolchain_error("--precision bf16 needs sm_" +
                             std::to_string(kBf16MinComputeCapability) +
                             " or newer, but the target includes sm_" + std::to_string(arch) +
                             " (choose --arch sm_80 or newer, or fp16)");
    }
  }
  return Status::ok();
}

}  // namespace inferno::target
