#include "ir/dtype.h"

#include "support/check.h"

namespace inferno::ir {

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return "f32";
    case DType::kF16:
      return "f16";
    case DType::kBF16:
      return "bf16";
    case DType::kF64:
      return "f64";
    case DType::kI64:
      return "i64";
    case DType::kI32:
      return "i32";
    case DType::kBool:
      return "bool";
  }
  INFERNO_CHECK(false, "bad dtype");
  return {};
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (DType d : kAllDTypes) {
    if (dtype_name(d) == name) return d;
  }
  return std::nullopt;
}

int64_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return 4;
    case DType::kF16:
      return 2;
    case DType::kBF16:
      return 2;
    case DType::kF64:
      return 8;
    case DType::kI64:
      return 8;
    case DType::kI32:
      return 4;
    case DType::kBool:
      return 1;
  }
  INFERNO_CHECK(false, "bad dtype");
  return 0;
}

bool is_floating(DType dtype) {
  return dtype == DType::kF32 || dtype == DType::kF16 || dtype == DType::kBF16 ||
         dtype == DType::kF64;
}

bool is_integral(DType dtype) { return dtype == DType::kI64 || dtype == DType::kI32; }

namespace {
int category(DType d) { return d == DType::kBool ? 0 : is_integral(d) ? 1 : 2; }
int width_rank(DType d) {
  switch (d) {
    case DType::kBool:
      return 0;
    case DType::kI32:
      return 1;
    case DType::kI64:
      return 2;
    case DType::kF16:
      return 1;
    case DType::kBF16:
      return 1;
    case DType::kF32:
      return 2;
    case DType::kF64:
      return 3;
  }
  return 0;
}
}  // namespace

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (category(a) != category(b)) return category(a) > category(b) ? a : b;
  if ((a == DType::kF16 && b == DType::kBF16) || (a == DType::kBF16 && b == DType::kF16)) {
    return DType::kF32;
  }
  return width_rank(a) >= width_rank(b) ? a : b;
}

}  // namespace inferno::ir
