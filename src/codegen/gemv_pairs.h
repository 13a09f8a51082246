// A gated MLP's elementwise step computed by the GEMV that makes its operands.
//
// Llama, Qwen2, Phi-3 and Mistral compute act(x @ W_gate^T) * (x @ W_up^T); after
// fuse-parallel-gemms that is one product y = x @ [W_gate; W_up]^T whose two halves, sliced along
// the last dim, meet in one elementwise node: out = f(y[..., :N/2], y[..., N/2:]). In a decode
// step the product is a GEMV (emit_gemv.h), and f's kernel is one more launch that reads y back.
// Instead the GEMV computes f in its epilogue (kernels/gemv.cuh, "pairs"): each block holds
// both halves' columns j and j + N/2, rounds them as the product would be stored, and applies f
// to them exactly as f's own kernel would (emit_fused.h's steps). f's node launches nothing, and
// y is never written.
//
// The pattern, checked here and nowhere else: a gemm or norm_gemm that takes the GEMV path with an
// [N, K] weight, no addends, no activation, N even; its output no graph output and read only by
// two slices that its readers read in place (views.h), the first and second halves of the last
// dim; both read only by one elementwise or fused_elementwise node of two inputs, those two, with
// the halves' shape and dtype.
#pragma once

#include <cstdint>

#include "codegen/emit_context.h"
#include "codegen/source_writer.h"

namespace inferno::codegen {

/// The elementwise node whose values GEMV node `index` computes in its epilogue, or -1.
int32_t gemv_pair_target(const EmitContext& ctx, int32_t index);

/// The GEMV node that computes elementwise node `index`'s values in its epilogue, or -1.
int32_t gemv_pair_source(const EmitContext& ctx, int32_t index);

/// Writes the pair functor of GEMV node `gemv` for gemv_nk and gemv_nk_norm, `const auto pair =
/// [](T first, T second) { ... };`: node `target`'s body (its gemv_pair_target) applied to the
/// first half's and the second half's values, with the roundings of its own kernel. Fails with
/// the node's unsupported status where a step has no form.
Status write_gemv_pair_functor(const EmitContext& ctx, int32_t gemv, int32_t target,
                               SourceWriter& out);

}  // namespace inferno::codegen
