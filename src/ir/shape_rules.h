// Shape and dtype rules: for every op, the output types given the input types and attributes.
// Frontends use them to type the nodes they build, the verifier to re-check every node, and the
// .pt2 frontend to cross-check its own recorded shapes. Each op family registers its rules in its
// own file, ir/rules/<family>.cpp; this header is the one entry point.
#pragma once

#include <vector>

#include "ir/attributes.h"
#include "ir/op.h"
#include "ir/tensor_type.h"
#include "support/status.h"

namespace inferno::ir {

/// Output types of `op` applied to `inputs` with `attrs`, or a Status that says what does not
/// fit: invalid input for arity, ranks, shapes and attributes (checked against the op's schema),
/// unsupported for a dtype the op's class refuses.
Expected<std::vector<TensorType>> infer_output_types(OpKind op,
                                                     const std::vector<TensorType>& inputs,
                                                     const Attributes& attrs);

/// Whether the op has a shape rule (the op table test holds every op to it).
bool has_shape_rule(OpKind op);

/// NumPy/PyTorch broadcasting of two shapes.
Expected<Shape> broadcast_shapes(const Shape& a, const Shape& b);

/// Maps a possibly negative dim into [0, rank); an error if out of range. For rank 0, dims 0 and -1
/// are accepted (PyTorch treats a scalar as rank 1 for dim arguments) and map to 0.
Expected<int64_t> normalize_dim(int64_t dim, int64_t rank);

/// PyTorch's result type of an elementwise op's operands: operands with dims promote among
/// themselves, and rank-0 operands only widen that when they are of a higher category (bool <
/// integer < floating): `f16 tensor + f32 0-d tensor` is f16, `i64 tensor + f32 0-d tensor` f32.
DType promote_operands(const std::vector<TensorType>& operands);

}  // namespace inferno::ir
