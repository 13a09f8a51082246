#include "target/target.h"

#include <string>

namespace inferno::target {
namespace {

// The shape without its leading 1s: two shapes of one broadcast that agree on it hold the same
// elements in the same order.
ir::Shape without_leading_ones(const ir::Shape& shape) {
  size_t first = 0;
  while (first < shape.size() && shape[first] == 1) ++first;
  return ir::Shape(shape.begin() + static_cast<std::ptrdiff_t>(first), shape.end());
}

}  // namespace

std::optional<std::vector<GemvAddendSlot>> gemv_addend_slots(const std::vector<ir::Shape>& addends,
                                                             const ir::Shape& out) {
  if (out.empty()) return std::nullopt;
  const int64_t n = out.back();
  std::vector<GemvAddendSlot> slots;
  bool row_taken = false, full_taken = false;
  for (const ir::Shape& addend : addends) {
    const bool row = !addend.empty() && addend.back() == n && ir::shape_numel(addend) == n;
    const bool full = without_leading_ones(addend) == without_leading_ones(out);
    if (row && !row_taken) {
      row_taken = true;
      slots.push_back(GemvAddendSlot::kRow);
    } else if (full && !full_taken) {
      full_taken = true;
      slots.push_back(GemvAddendSlot::kFull);
    } else {
      return std::nullopt;
    }
  }
  return slots;
}

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
