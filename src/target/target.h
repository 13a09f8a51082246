// What a model is compiled for: the GPU architectures, the precision it computes in, and what
// each lowering supports there. The CLI builds one from its flags; the passes (PassOptions) and
// codegen (CodegenOptions) ask it, so a limit or an arch rule is stated here once.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/dtype.h"
#include "ir/tensor_type.h"
#include "support/status.h"

namespace inferno::target {

/// The precision the model computes in (--precision). fp32 and tf32 keep f32 storage (tf32 only
/// changes how codegen runs f32 GEMMs); fp16 and bf16 make convert-precision
/// (passes/convert_precision.h) convert the model.
enum class Precision { kFp32, kTf32, kFp16, kBf16 };

/// Compute capabilities from which bf16 runs: bf16 GEMMs (cuBLASLt) and tensor-core MMA.
inline constexpr int kBf16MinComputeCapability = 80;

/// The attention kernel's limits (kernels/attention.cuh): its largest head tile, batch and query
/// heads as grid dims y and z, sequence lengths as int.
struct AttentionLimits {
  int64_t max_head_dim = 256;
  int64_t max_grid = 65535;
  int64_t max_seq = 0x7fffffff;
  /// Query rows up to which the decode kernel runs (kernels/attention_decode.cuh's
  /// kAttentionDecodeMaxRows, which the launcher applies at run time).
  int64_t decode_max_rows = 4;
};
inline constexpr AttentionLimits kAttentionLimits{};

/// Whether the attention kernel runs q[batch, heads, *, head_dim] with v's head dim v_head_dim
/// (recognize-attention rewrites only such patterns; codegen refuses others).
constexpr bool attention_fits(int64_t head_dim, int64_t v_head_dim, int64_t batch, int64_t heads) {
  return head_dim <= kAttentionLimits.max_head_dim && v_head_dim <= kAttentionLimits.max_head_dim &&
         batch <= kAttentionLimits.max_grid && heads <= kAttentionLimits.max_grid;
}

/// The decode GEMV's limits (kernels/gemv.cuh, lowered by codegen/emit_gemv.h): the most rows
/// of x it takes (its kGemvMaxRows, which a static_assert there ties to this), N and K as int, and
/// the shared memory in which a fused norm (norm_gemm, passes/fuse_norm_gemv.h) stages the
/// normalized rows of x: 44 KB, leaving room for its reduction scratch within the 48 KB a block
/// may use without opting in (the kernel's kGemvNormStagedBytes, held to it by a static_assert).
struct GemvLimits {
  int64_t max_rows = 8;
  int64_t max_extent = 0x7fffffff;
  int64_t max_norm_staged_bytes = 44 * 1024;
};
inline constexpr GemvLimits kGemvLimits{};

/// Whether the normalized rows of x[rows, k] of `element_bytes` each fit the fused norm's staging.
constexpr bool gemv_norm_fits(int64_t rows, int64_t k, int64_t element_bytes) {
  return rows >= 1 && rows <= kGemvLimits.max_rows && k >= 1 &&
         k <= kGemvLimits.max_norm_staged_bytes / (rows * element_bytes);
}

/// Where the GEMV adds an addend to a product out[..., N]: its row slot (a vector of the output's
/// N values, read at [n]: a bias) or its full slot (the output's elements in the output's own
/// order, read at [m, n]: a residual).
enum class GemvAddendSlot { kRow, kFull };

/// The slot of each addend (shapes that broadcast to `out`, in order): a row vector takes the row
/// slot while it is free, else the full slot; nullopt when the addends do not fit (a broadcast the
/// kernel cannot read, or more than one of a kind).
std::optional<std::vector<GemvAddendSlot>> gemv_addend_slots(const std::vector<ir::Shape>& addends,
                                                             const ir::Shape& out);

struct Target {
  /// Compute capabilities with machine code (90 = sm_90 / sm_90a).
  std::vector<int> sm_archs = {90};
  /// The machine code for compute capability 9.0 is sm_90a's alone (no plain sm_90 beside it), so
  /// that kernels may use wgmma (kernels/conv_igemm_wgmma.cuh) on a 9.0 GPU.
  bool wgmma = false;
  Precision precision = Precision::kFp32;

  /// TF32 in f32 GEMMs (CUBLAS_COMPUTE_32F_FAST_TF32); otherwise full f32, like PyTorch.
  bool tf32() const { return precision == Precision::kTf32; }
  /// The 16-bit dtype the model computes in (fp16, bf16), or nullopt (fp32, tf32).
  std::optional<ir::DType> compute_dtype() const;
  /// Whether every arch runs the precision: bf16 needs sm_80 (a toolchain error naming the arch).
  Status check_precision() const;
};

}  // namespace inferno::target
