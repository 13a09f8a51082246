// How far a correct GPU kernel's output may lie from the reference interpreter's, element by
// element, for the nodes whose kernels sum many terms (verify's per-node tolerance,
// reference/node_check.h). The reference sums in double and rounds once; a kernel sums in its
// accumulator type (f32 for f16, bf16 and f32 data) in an order of its own, and some round an
// intermediate to 16 bits (attention's probabilities before the P @ V product). The difference
// grows with the number of terms K and with the magnitudes summed, not with the result: a small
// result of cancelling terms keeps the error of the large terms. So each such node gets an absolute
// allowance per element from the error model of its sum:
//
//     allowance = lambda * u_acc * sqrt(K) * sum|terms|  (+ the hard bounds of 16-bit or TF32
//                                                          roundings of the terms themselves)
//
// with sum|terms| computed exactly where the op is linear in one operand (the reference run on the
// absolute values of its inputs: gemm, conv, attention's P @ |V|, sum, mean, cumsum, average
// pooling) and from the output's own magnitude where it is not (softmax, log_softmax, the norms).
// Every constant is explained where rounding_allowance.cpp defines it. Ops that compute each
// element from a few values (elementwise, layout, max, gathers) get none: torch.testing's
// per-dtype tolerance covers their one or two roundings.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"

namespace inferno::reference {

/// What the kernels were compiled for, as far as their rounding goes.
struct AllowanceOptions {
  /// f32 GEMMs ran on TF32 tensor cores (--precision tf32): their operands were rounded to 10
  /// mantissa bits.
  bool tf32_gemms = false;
};

struct RoundingAllowance {
  /// What it was derived for, for messages: "a 2048-term gemm". Empty when the node has none.
  std::string what;
  /// Per output element (flat, row-major), added to the dtype's atol; empty when none.
  std::vector<double> atol;
};

/// The allowance of `node` (a node of `graph`) given the tensors its kernel read (`inputs`, one
/// per node input, of the node's input types) and the reference's output on them (`expected`).
/// Costs at most one more reference evaluation of the node (on the absolute values).
RoundingAllowance rounding_allowance(const ir::Graph& graph, const ir::Node& node,
                                     const std::vector<const ir::Tensor*>& inputs,
                                     const ir::Tensor& expected, const AllowanceOptions& options);

}  // namespace inferno::reference
