// Internal to the reference interpreter: the per-family kernels that evaluate_node dispatches to,
// and the small index and integer helpers they share. Every kernel receives its output type
// (already checked by the shape rules) and returns a fresh tensor of exactly that type.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "ir/attributes.h"
#include "ir/fused_expr.h"
#include "ir/graph.h"
#include "ir/op.h"
#include "ir/tensor_type.h"
#include "support/status.h"

namespace inferno::reference::detail {

using ir::Shape;
using ir::Tensor;
using ir::TensorType;

/// Maps a flat row-major index over `shape` to an offset into a source tensor, through one
/// stride per dim. A stride of 0 repeats the source along that dim (broadcasting); permuted
/// strides transpose. The one index helper behind layout ops, broadcasting and reductions.
struct StridedIndex {
  Shape shape;
  std::vector<int64_t> strides;  ///< in elements of the source, one per dim of `shape`

  int64_t operator()(int64_t flat) const {
    int64_t offset = 0;
    for (size_t d = shape.size(); d-- > 0;) {
      offset += (flat % shape[d]) * strides[d];
      flat /= shape[d];
    }
    return offset;
  }
};

/// Reads a tensor of shape `from` as if broadcast to `to` (NumPy rules; the shape rules have
/// already checked that `from` broadcasts to `to`).
StridedIndex broadcast_index(const Shape& from, const Shape& to);

/// Exact integer access for i64, i32 and bool tensors (Tensor::get goes through double, which
/// is not exact beyond 2^53). store_int wraps to i32 as two's complement, as PyTorch does, and
/// stores bool as v != 0.
int64_t load_int(const Tensor& t, int64_t i);
void store_int(Tensor& t, int64_t i, int64_t v);
/// Truncates toward zero into an integer dtype; NaN gives 0 and out-of-range values saturate
/// (CUDA's conversion rules; PyTorch leaves those cases undefined).
int64_t float_to_int(double v, ir::DType dtype);
/// Stores a double result into any dtype: rounds for floating dtypes (Tensor::set), converts with
/// float_to_int for integers, and stores v != 0 for bool. Kernels store through this.
void store(Tensor& t, int64_t i, double v);

// gemm.cpp
Tensor linear(const Tensor& x, const Tensor& w, const Tensor* bias, const TensorType& out);
Tensor matmul(const Tensor& a, const Tensor& b, const TensorType& out);
Tensor addmm(const Tensor& bias, const Tensor& a, const Tensor& b, double alpha, double beta,
             const TensorType& out);
/// The canonical gemm with its attributes (trans_b, alpha, beta, activation); c and d may be null.
Tensor gemm(const Tensor& a, const Tensor& b, const Tensor* c, const Tensor* d,
            const ir::Attributes& attrs, const TensorType& out);
/// norm_gemm's x normalized over its last dim as the layer_norm or rms_norm node would store it
/// (rounded to x's dtype); `in` holds the node's inputs (ir/norm_gemm.h).
Tensor norm_gemm_normalized(const std::vector<const Tensor*>& in, const ir::Attributes& attrs);
/// norm_gemm: exactly gemm(norm_gemm_normalized(in), b, c, d), as the unfused norm and gemm.
Tensor norm_gemm(const std::vector<const Tensor*>& in, const ir::Attributes& attrs,
                 const TensorType& out);

// layout.cpp (exact for every dtype: elements are copied as bytes)
Tensor reshape(const Tensor& x, const TensorType& out);
Tensor permute(const Tensor& x, const ir::IntList& dims, const TensorType& out);
Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1, const TensorType& out);
Tensor expand(const Tensor& x, const TensorType& out);

// elementwise.cpp
/// Any kElementwise op on its operands (broadcast to `out`), through the op's expression in
/// ops.def: computed in double, or exactly in wrapping int64 when the result and every operand
/// are integers or bool, and rounded once to `out`'s dtype.
Tensor elementwise(ir::OpKind op, const std::vector<const Tensor*>& in, const TensorType& out);

/// An elementwise op's expression on double operands (x0, x1, ... in order), as the kernel above
/// evaluates it: for ops that apply it inside another kernel (a convolution's activation).
using ScalarFn = double (*)(const double*);
ScalarFn elementwise_scalar(ir::OpKind op);

// fused.cpp
/// A fused_elementwise body, step by step with the kernels above.
Tensor fused_elementwise(const ir::FusedExpr& expr, const std::vector<const Tensor*>& in,
                         const TensorType& out);

// reduction.cpp
/// sum (mean = false) or mean over sorted, unique `dims` (empty = all); keepdim is implied by
/// `out`'s shape.
Tensor sum_or_mean(const Tensor& x, const ir::IntList& dims, bool mean, const TensorType& out);
/// A tensor of `shape` viewed as [outer, n, inner] around `dim` (a scalar is [1, 1, 1]): the
/// lines of n elements, inner apart, that softmax, cumsum and argmax walk.
struct Lines {
  int64_t outer = 1, n = 1, inner = 1;
};
Lines lines_along(const Shape& shape, int64_t dim);
/// softmax or log_softmax along `dim`.
Tensor softmax(const Tensor& x, int64_t dim, bool log, const TensorType& out);
/// Running sums along `dim` (double for floating results, wrapping int64 for integer ones).
Tensor cumsum(const Tensor& x, int64_t dim, const TensorType& out);

// pool.cpp
/// max_pool2d or avg_pool2d (`op`) with the node's attributes, over the dims its layout names
/// (ir/pool_dims.h).
Tensor pool2d(const Tensor& x, ir::OpKind op, const ir::Attributes& attrs, const TensorType& out);
/// adaptive_max_pool2d (is_max) or adaptive_avg_pool2d to `out`'s window dims (the same way).
Tensor adaptive_pool2d(const Tensor& x, bool is_max, const ir::Attributes& attrs,
                       const TensorType& out);

// conv.cpp
/// conv2d with the node's attributes; `in` holds x, w and the optional bias, residual and gate in
/// the order the attributes' flags give (ops.def).
Tensor conv2d(const std::vector<const Tensor*>& in, const ir::Attributes& attrs,
              const TensorType& out);
/// conv_transpose2d with the node's attributes; bias may be null.
Tensor conv_transpose2d(const Tensor& x, const Tensor& w, const Tensor* bias,
                        const ir::Attributes& attrs, const TensorType& out);

// join.cpp (exact for every dtype)
/// cat of `in` along `dim`.
Tensor cat(const std::vector<const Tensor*>& in, int64_t dim, const TensorType& out);
/// x's slices along `dim` picked by `index` (negative: from the end; then clamped into the dim).
Tensor index_select(const Tensor& x, const Tensor& index, int64_t dim, const TensorType& out);
/// index_copy (ops.def): x with the slices along `dim` at `index` replaced by source's.
Tensor index_copy(const Tensor& x, const Tensor& index, const Tensor& source, int64_t dim);
/// x padded by before[d] elements in front of each dim (negative: cropped) to `out`, with `fill`.
Tensor constant_pad(const Tensor& x, const Tensor& fill, const ir::IntList& before,
                    const TensorType& out);

// resize.cpp
/// upsample_bilinear2d (bilinear) or upsample_nearest2d with the node's attributes.
Tensor upsample2d(const Tensor& x, bool bilinear, const ir::Attributes& attrs,
                  const TensorType& out);

// norm.cpp
/// layer_norm over the last `dims` dims of x; weight and bias (of those dims' shape) may be null.
Tensor layer_norm(const Tensor& x, const Tensor* weight, const Tensor* bias, int64_t dims,
                  double eps, const TensorType& out);
/// rms_norm over the last `dims` dims of x; weight (of those dims' shape) may be null.
Tensor rms_norm(const Tensor& x, const Tensor* weight, int64_t dims, double eps,
                const TensorType& out);
/// group_norm of x[N, C, *] in `groups` groups of channels; weight and bias ([C]) may be null.
Tensor group_norm(const Tensor& x, const Tensor* weight, const Tensor* bias, int64_t groups,
                  double eps, const TensorType& out);

// rotary.cpp
/// rotary (ops.def) over the first `rotary_dim` elements of x's last dim, cos and sin broadcast.
Tensor rotary(const Tensor& x, const Tensor& cos, const Tensor& sin, int64_t rotary_dim,
              const TensorType& out);

// ---- the kernel table ------------------------------------------------------------------------
/// One node's reference kernel: its inputs (already checked against their types) and its output
/// type. Errors are for input the verifier may not have seen (a fused body read from text).
using KernelFn = Expected<Tensor> (*)(const ir::Node& node, const std::vector<const Tensor*>& in,
                                      const TensorType& out);

struct KernelTable {
  std::array<KernelFn, ir::kNumOpKinds> kernels{};
  void add(ir::OpKind op, KernelFn kernel) { kernels[static_cast<size_t>(op)] = kernel; }
};

// One per family file.
// attention.cpp
Tensor attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* mask,
                 const ir::Attributes& attrs, const TensorType& out);

void register_gemm_kernels(KernelTable& table);
void register_layout_kernels(KernelTable& table);
void register_elementwise_kernels(KernelTable& table);
void register_fused_kernels(KernelTable& table);
void register_reduction_kernels(KernelTable& table);
void register_extrema_kernels(KernelTable& table);
void register_conv_kernels(KernelTable& table);
void register_pool_kernels(KernelTable& table);
void register_join_kernels(KernelTable& table);
void register_resize_kernels(KernelTable& table);
void register_norm_kernels(KernelTable& table);
void register_attention_kernels(KernelTable& table);
void register_rotary_kernels(KernelTable& table);

}  // namespace inferno::reference::detail
