// Reference kernels for the GEMM family: linear, matmul (torch.matmul semantics) and addmm.
// Straight triple loops; every dot product accumulates in double and is rounded once, on
// store, to the output dtype (integer GEMMs are therefore exact while partial sums stay below
// 2^53 in magnitude).
#include "ir/shape_rules.h"
#include "reference/kernels.h"
#include "support/check.h"

namespace inferno::reference::detail {
namespace {

/// sum_k a[a_off + k * a_step] * b[b_off + k * b_step], in double.
double dot(const Tensor& a, int64_t a_off, int64_t a_step, const Tensor& b, int64_t b_off, int64_t b_step, int64_t k) {
  double acc = 0;
  for (int64_t i = 0; i < k; ++i) acc += a.get(a_off + i * a_step) * b.get(b_off + i * b_step);
  return acc;
}

}  // namespace

Tensor linear(const Tensor& x, const Tensor& w, const Tensor* bias, const TensorType& out) {
  const int64_t n_out = w.type.shape[0], k = w.type.shape[1];
  int64_t rows = 1;  // product of x's leading dims (not numel / k: k may be 0)
  for (size_t d = 0; d + 1 < x.type.shape.size(); ++d) rows *= x.type.shape[d];
  INFERNO_CHECK(x.type.shape.back() == k && rows * n_out == out.numel(), "linear shapes do not match");
  INFERNO_CHECK(bias == nullptr || bias->numel() == 1 || bias->numel() == n_out, "linear bias does not match");
  Tensor y = Tensor::zeros(out);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t n = 0; n < n_out; ++n) {
      double acc = dot(x, r * k, 1, w, n * k, 1, k);
      if (bias != nullptr) acc += bias->get(bias->numel() == 1 ? 0 : n);
      store(y, r * n_out + n, acc);
    }
  }
  return y;
}

// A 1-D a is treated as [1, K] and a 1-D b as [K, 1]; the batch dims (all but the last two)
// broadcast. Dropping the size-1 dims of 1-D operands does not change the row-major order of
// the result, so the output is written as [batch..., M, N].
Tensor matmul(const Tensor& a, const Tensor& b, const TensorType& out) {
  Shape sa = a.type.shape, sb = b.type.shape;
  if (sa.size() == 1) sa.insert(sa.begin(), 1);
  if (sb.size() == 1) sb.push_back(1);
  const int64_t m_size = sa[sa.size() - 2], k = sa.back(), n_size = sb.back();
  INFERNO_CHECK(sb[sb.size() - 2] == k, "matmul inner dimensions differ");
  const Shape batch_a(sa.begin(), sa.end() - 2), batch_b(sb.begin(), sb.end() - 2);
  Expected<Shape> batch = ir::broadcast_shapes(batch_a, batch_b);
  INFERNO_CHECK(batch.has_value(), "matmul batch dims do not broadcast");
  const StridedIndex a_batch = broadcast_index(batch_a, *batch), b_batch = broadcast_index(batch_b, *batch);
  const int64_t batches = ir::shape_numel(*batch);
  INFERNO_CHECK(batches * m_size * n_size == out.numel(), "matmul output size does not match");
  Tensor y = Tensor::zeros(out);
  for (int64_t bi = 0; bi < batches; ++bi) {
    const int64_t a_off = a_batch(bi) * m_size * k, b_off = b_batch(bi) * k * n_size;
    for (int64_t m = 0; m < m_size; ++m) {
      for (int64_t n = 0; n < n_size; ++n) {
        store(y, (bi * m_size + m) * n_size + n, dot(a, a_off + m * k, 1, b, b_off + n, n_size, k));
      }
    }
  }
  return y;
}

// beta * bias + alpha * (a @ b), bias broadcast to [M, N]. As in PyTorch, beta == 0 ignores
// the bias entirely (NaN or inf in it do not propagate).
Tensor addmm(const Tensor& bias, const Tensor& a, const Tensor& b, double alpha, double beta, const TensorType& out) {
  const int64_t m_size = a.type.shape[0], k = a.type.shape[1], n_size = b.type.shape[1];
  INFERNO_CHECK(b.type.shape[0] == k && out.numel() == m_size * n_size, "addmm shapes do not match");
  const StridedIndex bias_index = broadcast_index(bias.type.shape, out.shape);
  Tensor y = Tensor::zeros(out);
  for (int64_t m = 0; m < m_size; ++m) {
    for (int64_t n = 0; n < n_size; ++n) {
      const int64_t i = m * n_size + n;
      double v = alpha * dot(a, m * k, 1, b, n, n_size, k);
      if (beta != 0) v += beta * bias.get(bias_index(i));
      store(y, i, v);
    }
  }
  return y;
}

}  // namespace inferno::reference::detail
