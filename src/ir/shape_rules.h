// Shape and dtype rules: for every op, the output types given the input types and attributes.
// Frontends use them to type the nodes they build, the verifier to re-check every node, and the
// .pt2 frontend to cross-check its own recorded shapes.
#pragma once

#include <vector>

#include "ir/attributes.h"
#include "ir/op.h"
#include "ir/tensor_type.h"
#include "support/status.h"

namespace inferno::ir {

/// Output types of `op` applied to `inputs` with `attrs`, or an invalid-input Status that says
/// what does not fit (arity, ranks, shapes, dtypes, missing or bad attributes).
Expected<std::vector<TensorType>> infer_output_types(OpKind op,
                                                     const std::vector<TensorType>& inputs,
                                                     const Attributes& attrs);

/// NumPy/PyTorch broadcasting of two shapes.
Expected<Shape> broadcast_shapes(const Shape& a, const Shape& b);

/// Maps a possibly negative dim into [0, rank); an error if out of range. For rank 0, dims 0 and -1
/// are accepted (PyTorch treats a scalar as rank 1 for dim arguments) and map to 0.
Expected<int64_t> normalize_dim(int64_t dim, int64_t rank);

/// Result dtype of a binary elementwise op: PyTorch promotion, where a rank-0 operand does not
/// widen a higher-rank operand of the same category (`f16 tensor + f32 0-d tensor` is f16).
DType binary_result_dtype(OpKind op, const TensorType& a, const TensorType& b);

}  // namespace inferno::ir
