// The cost model: for one IR node, the floating-point work it computes and the bytes it must move,
// by formula from the verified graph's types and attributes (no GPU, no lowering). The runtime's
// profiler divides these by measured times to get achieved TFLOP/s and GB/s, so the formulas are
// the textbook minimum, stated per family here and held to hand counts by
// test/unit/codegen_kernel_cost_test.cpp:
//
//  - FLOPs. A multiply-add counts 2. GEMM: 2 * K per output element; conv2d: 2 * (C / groups) *
//    KH * KW per output element (conv_transpose2d: 2 * (O / groups) * KH * KW per input
//    element); attention: 2 * (D + Dv) per (query, key) pair that the mask keeps by
//    construction (causal: key j <= query i), the softmax not counted. An epilogue term (bias,
//    C matrix, residual, gate, activation) adds 1 per output element. An elementwise op counts 1
//    per element of its result (a cast, a comparison, a select or a bitwise op 0: they do no
//    arithmetic). Norms: layer_norm and group_norm 5 per element (mean; variance as sub, square,
//    add; normalize as sub and multiply is 6, the mean's add shared: 5), rms_norm 3 (square,
//    add, scale), plus 1 per affine weight and 1 per bias. softmax and log_softmax 5 per element
//    (max, sub, exp, sum, divide or log). Reductions and cumsum 1 per input element. Pooling:
//    one per window tap per output element (adaptive pooling: one per input element). Bilinear
//    upsampling 7 per output element (4 products, 3 sums). rotary 3 per rotated element (two
//    products and a sum; rotate_half's sign is free), 0 per element it passes through. Layout
//    ops, gathers, scatters and nearest upsampling 0.
//  - Bytes. Read: every distinct input's bytes once (a value read twice counts once); a slice,
//    a gather (index_select) and an in-place row write (index_copy) read only the elements they
//    copy, plus their indices. Written: the output's bytes; index_copy writes only its rows.
#pragma once

#include <cstdint>

#include "ir/graph.h"

namespace inferno::codegen {

struct NodeWork {
  double flops = 0;           ///< floating-point operations (a multiply-add is 2)
  int64_t bytes_read = 0;     ///< the least the node must read from device memory
  int64_t bytes_written = 0;  ///< the least it must write
};

/// The work of `node` (a node of `graph`, which must be verified), by the formulas above.
NodeWork node_work(const ir::Graph& graph, const ir::Node& node);

}  // namespace inferno::codegen
