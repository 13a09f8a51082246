// Reference kernels for the GEMM family: linear, matmul (torch.matmul semantics), addmm, the
// canonical gemm and norm_gemm (the norm's kernel, then gemm's). Every dot product comes from one
// blocked, threaded product (gemm_core.h) with the bits of a straight triple loop in double, and
// is rounded once, on store, to the output dtype (integer GEMMs are therefore exact while partial
// sums stay below 2^53 in magnitude). All of them sum the same products in the same order, so a
// gemm that replaces linear, matmul or addmm gives bit-identical results.
#include <optional>
#include <string>

#include "ir/norm_gemm.h"
#include "reference/gemm_core.h"
#include "reference/kernels.h"
#include "support/check.h"

namespace inferno::reference::detail {

Tensor linear(const Tensor& x, const Tensor& w, const Tensor* bias, const TensorType& out) {
  const int64_t n_out = w.type.shape[0], k = w.type.shape[1];
  int64_t rows = 1;  // product of x's leading dims (not numel / k: k may be 0)
  for (size_t d = 0; d + 1 < x.type.shape.size(); ++d) rows *= x.type.shape[d];
  INFERNO_CHECK(x.type.shape.back() == k && rows * n_out == out.numel(),
                "linear shapes do not match");
  INFERNO_CHECK(bias == nullptr || bias->numel() == 1 || bias->numel() == n_out,
                "linear bias does not match");
  Tensor y = Tensor::zeros(out);
  batched_product(x, {rows, k}, w, w.type.shape, /*trans_b=*/true, out.numel(),
                  [&](int64_t i, double acc) {
                    if (bias != nullptr) acc += bias->get(bias->numel() == 1 ? 0 : i % n_out);
                    store(y, i, acc);
                  });
  return y;
}

// A 1-D a is treated as [1, K] and a 1-D b as [K, 1]; the batch dims (all but the last two)
// broadcast. Dropping the size-1 dims of 1-D operands does not change the row-major order of
// the result, so the output is written as [batch..., M, N].
Tensor matmul(const Tensor& a, const Tensor& b, const TensorType& out) {
  Shape sa = a.type.shape, sb = b.type.shape;
  if (sa.size() == 1) sa.insert(sa.begin(), 1);
  if (sb.size() == 1) sb.push_back(1);
  Tensor y = Tensor::zeros(out);
  batched_product(a, sa, b, sb, /*trans_b=*/false, out.numel(),
                  [&](int64_t i, double v) { store(y, i, v); });
  return y;
}

// beta * bias + alpha * (a @ b), bias broadcast to [M, N]. As in PyTorch, beta == 0 ignores
// the bias entirely (NaN or inf in it do not propagate).
Tensor addmm(const Tensor& bias, const Tensor& a, const Tensor& b, double alpha, double beta,
             const TensorType& out) {
  const int64_t m_size = a.type.shape[0], k = a.type.shape[1], n_size = b.type.shape[1];
  INFERNO_CHECK(b.type.shape[0] == k && out.numel() == m_size * n_size,
                "addmm shapes do not match");
  const StridedIndex bias_index = broadcast_index(bias.type.shape, out.shape);
  Tensor y = Tensor::zeros(out);
  batched_product(a, a.type.shape, b, b.type.shape, /*trans_b=*/false, out.numel(),
                  [&](int64_t i, double dot) {
                    double v = alpha * dot;
                    if (beta != 0) v += beta * bias.get(bias_index(i));
                    store(y, i, v);
                  });
  return y;
}

// activation(alpha * (a @ op(b)) + beta * c + d): the sum is rounded to the output dtype first,
// then the activation runs as the unfused relu/gelu node would on that rounded value, so
// gemm{relu} is bit-identical to gemm -> relu. As addmm, beta == 0 ignores c entirely. Absent
// terms are not added at all (adding 0.0 would turn a -0.0 result into +0.0).
Tensor gemm(const Tensor& a, const Tensor& b, const Tensor* c, const Tensor* d,
            const ir::Attributes& attrs, const TensorType& out) {
  const double alpha = attrs.get_float("alpha"), beta = attrs.get_float("beta");
  if (beta == 0) c = nullptr;
  std::optional<StridedIndex> c_index, d_index;
  if (c != nullptr) c_index = broadcast_index(c->type.shape, out.shape);
  if (d != nullptr) d_index = broadcast_index(d->type.shape, out.shape);
  Tensor y = Tensor::zeros(out);
  batched_product(a, a.type.shape, b, b.type.shape, attrs.get_bool("trans_b"), out.numel(),
                  [&](int64_t i, double v) {
                    v *= alpha;
                    if (c != nullptr) v += beta * c->get((*c_index)(i));
                    if (d != nullptr) v += d->get((*d_index)(i));
                    store(y, i, v);
                  });
  const std::string& activation = attrs.get_string("activation");
  if (activation == "none") return y;
  const std::optional<ir::OpKind> op = ir::parse_op_name(activation);
  INFERNO_CHECK(op.has_value(), "unknown gemm activation " + activation);
  return elementwise(*op, {&y}, out);
}

Tensor norm_gemm_normalized(const std::vector<const Tensor*>& in, const ir::Attributes& attrs) {
  const std::optional<ir::NormGemmInputs> p = ir::norm_gemm_inputs(attrs, in.size());
  INFERNO_CHECK(p.has_value(), "norm_gemm: inputs that do not fit its norm");
  const Tensor& x = *in[static_cast<size_t>(p->x)];
  const Tensor* weight = in[static_cast<size_t>(p->weight)];
  const double eps = attrs.get_float("eps");
  if (p->bias < 0) return rms_norm(x, weight, 1, eps, x.type);
  return layer_norm(x, weight, in[static_cast<size_t>(p->bias)], 1, eps, x.type);
}

Tensor norm_gemm(const std::vector<const Tensor*>& in, const ir::Attributes& attrs,
                 const TensorType& out) {
  const std::optional<ir::NormGemmInputs> p = ir::norm_gemm_inputs(attrs, in.size());
  INFERNO_CHECK(p.has_value(), "norm_gemm: inputs that do not fit its norm");
  const Tensor normalized = norm_gemm_normalized(in, attrs);
  auto optional = [&](int i) { return i >= 0 ? in[static_cast<size_t>(i)] : nullptr; };
  return gemm(normalized, *in[static_cast<size_t>(p->b)], optional(p->c), optional(p->d), attrs,
              out);
}

void register_gemm_kernels(KernelTable& table) {
  table.add(ir::OpKind::kLinear,
            [](const ir::Node&, const std::vector<const Tensor*>& in,
               const TensorType& out) -> Expected<Tensor> {
              return linear(*in[0], *in[1], in.size() > 2 ? in[2] : nullptr, out);
            });
  table.add(ir::OpKind::kMatMul,
            [](const ir::Node&, const std::vector<const Tensor*>& in,
               const TensorType& out) -> Expected<Tensor> { return matmul(*in[0], *in[1], out); });
  table.add(ir::OpKind::kAddMM,
            [](const ir::Node& node, const std::vector<const Tensor*>& in,
               const TensorType& out) -> Expected<Tensor> {
              return addmm(*in[0], *in[1], *in[2], node.attrs.get_float("alpha"),
                           node.attrs.get_float("beta"), out);
            });
  table.add(ir::OpKind::kGemm,
            [](const ir::Node& node, const std::vector<const Tensor*>& in,
               const TensorType& out) -> Expected<Tensor> {
              return gemm(*in[0], *in[1], in.size() > 2 ? in[2] : nullptr,
                          in.size() > 3 ? in[3] : nullptr, node.attrs, out);
            });
  table.add(
      ir::OpKind::kNormGemm,
      [](const ir::Node& node, const std::vector<const Tensor*>& in,
         const TensorType& out) -> Expected<Tensor> { return norm_gemm(in, node.attrs, out); });
}

}  // namespace inferno::reference::detail
