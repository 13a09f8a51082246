#include "ir/norm_gemm.h"

namespace inferno::ir {

std::optional<OpKind> norm_gemm_kind(std::string_view norm) {
  if (norm == "layer_norm") return OpKind::kLayerNorm;
  if (norm == "rms_norm") return OpKind::kRmsNorm;
  return std::nullopt;
}

std::optional<NormGemmInputs> norm_gemm_inputs(const Attributes& attrs, size_t num_inputs) {
  const std::optional<OpKind> kind = norm_gemm_kind(attrs.get_string("norm"));
  if (!kind) return std::nullopt;
  NormGemmInputs p;
  if (*kind == OpKind::kLayerNorm) p.bias = p.norm_end++;
  const auto n = static_cast<int>(num_inputs);
  if (n < p.norm_end || n > p.norm_end + 2) return std::nullopt;
  if (n > p.norm_end) p.c = p.norm_end;
  if (n > p.norm_end + 1) p.d = p.norm_end + 1;
  return p;
}

}  // namespace inferno::ir
