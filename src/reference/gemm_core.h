// The one matrix product behind the reference's GEMM family (linear, matmul, addmm, gemm,
// norm_gemm) and the rounding allowance's magnitude products. Every dot product is summed in
// double, k from first to last, starting from +0.0, one multiply and one add per term (no fused
// multiply-add): exactly the bits of the straight triple loop
//
//     acc = 0; for k: acc += double(a[m, k]) * double(op(b)[k, n])
//
// however the work is blocked or split over threads. Integer operands are therefore summed
// exactly while partial sums stay below 2^53 in magnitude.
#pragma once

#include <cstdint>
#include <functional>

#include "ir/tensor_type.h"

namespace inferno::reference::detail {

/// Receives one element of a product: its flat index in the row-major result [batch..., M, N]
/// and its dot product. Called from worker threads, each index exactly once: it may write only
/// element `flat` of its own output.
using EmitFn = std::function<void(int64_t flat, double dot)>;

/// emit(i, dot) for every element i of a[batch_a..., M, K] @ op(b), op(b) = b[batch_b..., K, N],
/// or b[batch_b..., N, K] transposed when `trans_b`; the batch dims broadcast. `sa` and `sb` are
/// the operands' shapes as the product sees them (rank >= 2: matmul lifts 1-D operands, linear
/// flattens x's leading dims), each of the same element count as its tensor. `workers`: at most
/// that many threads; 0 picks by size (parallel.h). Throws (INFERNO_CHECK) on shapes that do not
/// multiply or do not give `out_numel` elements.
void batched_product(const ir::Tensor& a, const ir::Shape& sa, const ir::Tensor& b,
                     const ir::Shape& sb, bool trans_b, int64_t out_numel, const EmitFn& emit,
                     int workers = 0);

}  // namespace inferno::reference::detail
