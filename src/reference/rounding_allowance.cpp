#include "reference/rounding_allowance.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "ir/channels_last.h"
#include "ir/norm_gemm.h"
#include "reference/kernels.h"

namespace inferno::reference {
namespace {

using ir::DType;
using ir::OpKind;
using ir::Tensor;
using ir::TensorType;

/// The multiple of u sqrt(K) sum|terms| a sum of K terms in another order may be off by. Its error
/// is sum_k delta_k * S_k (delta_k the k-th rounding, |delta_k| <= u, independent with mean zero in
/// the usual probabilistic model; S_k the partial sums, each at most sum|terms|). Hoeffding's
/// inequality bounds it by lambda * u * sqrt(K) * sum|terms| but with probability 2 exp(-lambda^2 /
/// 2): 2.5e-14 per element for lambda = 8, so a model's 10^8 checked values see a false mismatch
/// less than once in 10^5 runs. (Higham and Mary's probabilistic rounding-error analysis, 2019,
/// takes the same form.) Being a bound over sum|terms|, it is loose for terms of mixed signs, whose
/// partial sums stay small: a wrong kernel still has to be off by far less than the terms it sums
/// to be missed.
constexpr double kLambda = 8;

/// The steepest slope of an activation a kernel applies after its sum (conv2d's and gemm's
/// epilogues), by which the sum's error can grow: hardswish's (2x + 3) / 6 near x = 3; gelu's
/// is 1.13, silu's 1.10. relu and relu6 (slope 1) leave it as it is.
constexpr double kActivationSlope = 1.5;

double activation_slope(const ir::Node& node) {
  const ir::AttrValue* activation = node.attrs.find("activation");
  if (activation == nullptr) return 1;
  const std::string& name = std::get<std::string>(*activation);
  return name == "none" || name == "relu" || name == "relu6" ? 1 : kActivationSlope;
}

/// The unit roundoff (half an ulp at 1) of a floating dtype; 0 for integers and bool.
double unit_roundoff(DType dtype) {
  switch (dtype) {
    case DType::kF64:
      return 0x1p-53;
    case DType::kF32:
      return 0x1p-24;
    case DType::kF16:
      return 0x1p-11;
    case DType::kBF16:
      return 0x1p-8;
    default:
      return 0;
  }
}

/// The accumulator's unit roundoff: every kernel that sums f16, bf16 or f32 data sums in f32
/// (cuBLASLt CUBLAS_COMPUTE_32F, the tensor-core mma's f32 accumulators, acc_t<T> = float in
/// kernels/*.cuh), f64 data in f64.
double accumulator_roundoff(DType dtype) {
  return dtype == DType::kF64 ? unit_roundoff(DType::kF64) : unit_roundoff(DType::kF32);
}

/// TF32 keeps 10 mantissa bits; an operand may be truncated to them rather than rounded (cuBLAS
/// does not say), so each operand's relative error is below 2^-10 and a product's below 2^-9.
/// This is a hard bound per term, not a random walk: no sqrt(K).
constexpr double kTf32ProductError = 0x1p-9;

/// `t`'s absolute values in f64 (an f64 tensor, so that a later sum of magnitudes stored into it
/// cannot overflow a 16-bit type).
Tensor absolute(const Tensor& t) {
  Tensor a = Tensor::zeros(TensorType{DType::kF64, t.type.shape});
  for (int64_t i = 0; i < t.numel(); ++i) a.set(i, std::fabs(t.get(i)));
  return a;
}

TensorType f64_like(const Tensor& t) { return TensorType{DType::kF64, t.type.shape}; }

int64_t product(const ir::Shape& shape, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t d = from; d < to && d < shape.size(); ++d) n *= shape[d];
  return n;
}

/// |t| in t's own dtype for a floating t: its sign bits cleared, exact (an f16 LM head's weight
/// stays 77 MB where f64 would take 309 MB); other dtypes as absolute() gives them. For the GEMM
/// family, whose reference reads every operand into double and sums into the output's dtype.
Tensor sign_cleared(const Tensor& t) {
  if (!ir::is_floating(t.type.dtype)) return absolute(t);
  Tensor a = t;
  const size_t size = ir::dtype_size(t.type.dtype);  // little-endian: the sign is the top byte's
  for (size_t i = size - 1; i < a.data.size(); i += size) a.data[i] &= std::byte{0x7f};
  return a;
}

/// Copies of a node's inputs' absolute values (`magnitude`: absolute or sign_cleared), and
/// pointers to them in input order.
struct MagnitudeInputs {
  std::vector<Tensor> held;
  std::vector<const Tensor*> ptrs;
};

MagnitudeInputs magnitudes_of(const std::vector<const Tensor*>& inputs,
                              Tensor (*magnitude)(const Tensor&)) {
  MagnitudeInputs m;
  m.held.reserve(inputs.size());
  for (const Tensor* t : inputs) m.held.push_back(magnitude(*t));
  for (const Tensor& t : m.held) m.ptrs.push_back(&t);
  return m;
}

MagnitudeInputs absolute_inputs(const std::vector<const Tensor*>& inputs) {
  return magnitudes_of(inputs, absolute);
}

MagnitudeInputs sign_cleared_inputs(const std::vector<const Tensor*>& inputs) {
  return magnitudes_of(inputs, sign_cleared);
}

/// A gemm's sum before its activation (alpha, beta, bias and residual applied), in f64: what a
/// kernel that applies the activation in a second pass stores in the dtype first.
Tensor gemm_before_activation(const ir::Node& node, const std::vector<const Tensor*>& inputs,
                              const Tensor& expected) {
  ir::Attributes attrs = node.attrs;
  attrs.set("activation", std::string("none"));
  return detail::gemm(*inputs[0], *inputs[1], inputs.size() > 2 ? inputs[2] : nullptr,
                      inputs.size() > 3 ? inputs[3] : nullptr, attrs, f64_like(expected));
}

/// The reference's value of a node that is linear in each input (attention: in v), evaluated on
/// the absolute values of those inputs with |alpha|, |beta| and no activation: per element,
/// exactly the sum|terms| of the sum its kernel computes, in f64.
Tensor linear_magnitudes(const ir::Node& node, const std::vector<const Tensor*>& inputs,
                         const Tensor& expected) {
  const TensorType out = f64_like(expected);
  ir::Attributes attrs = node.attrs;
  switch (node.op) {
    case OpKind::kGemm:
    case OpKind::kAddMM:
    case OpKind::kLinear:
    case OpKind::kMatMul: {
      if (attrs.has("alpha")) attrs.set("alpha", std::fabs(attrs.get_float("alpha")));
      if (attrs.has("beta")) attrs.set("beta", std::fabs(attrs.get_float("beta")));
      if (attrs.has("activation")) attrs.set("activation", std::string("none"));
      const MagnitudeInputs m = sign_cleared_inputs(inputs);
      const auto& in = m.ptrs;
      if (node.op == OpKind::kLinear)
        return detail::linear(*in[0], *in[1], in.size() > 2 ? in[2] : nullptr, out);
      if (node.op == OpKind::kMatMul) return detail::matmul(*in[0], *in[1], out);
      if (node.op == OpKind::kAddMM)
        return detail::addmm(*in[0], *in[1], *in[2], attrs.get_float("alpha"),
                             attrs.get_float("beta"), out);
      return detail::gemm(*in[0], *in[1], in.size() > 2 ? in[2] : nullptr,
                          in.size() > 3 ? in[3] : nullptr, attrs, out);
    }
    case OpKind::kConv2d: {
      attrs.set("activation", std::string("none"));
      return detail::conv2d(absolute_inputs(inputs).ptrs, attrs, out);
    }
    case OpKind::kConvTranspose2d: {
      const MagnitudeInputs m = absolute_inputs(inputs);
      return detail::conv_transpose2d(*m.ptrs[0], *m.ptrs[1],
                                      m.ptrs.size() > 2 ? m.ptrs[2] : nullptr, attrs, out);
    }
    case OpKind::kAttention: {
      // sum_j P_ij |v_j|: the probabilities of the real q and k (and mask), |v|.
      const Tensor v = absolute(*inputs[2]);
      return detail::attention(*inputs[0], *inputs[1], v, inputs.size() > 3 ? inputs[3] : nullptr,
                               attrs, out);
    }
    case OpKind::kSum:
    case OpKind::kMean:
      return detail::sum_or_mean(absolute(*inputs[0]), attrs.get_ints("dims"),
                                 node.op == OpKind::kMean, out);
    case OpKind::kCumsum:
      return detail::cumsum(absolute(*inputs[0]), attrs.get_int("dim"), out);
    case OpKind::kAvgPool2d:
      return detail::pool2d(absolute(*inputs[0]), node.op, attrs, out);
    case OpKind::kAdaptiveAvgPool2d:
      return detail::adaptive_pool2d(absolute(*inputs[0]), /*is_max=*/false, attrs, out);
    default:
      return Tensor::zeros(out);
  }
}

/// The longest window of adaptive pooling from `in` to `out` positions along one dim.
int64_t adaptive_window(int64_t in, int64_t out) {
  int64_t longest = 0;
  for (int64_t i = 0; i < out; ++i) {
    const int64_t start = i * in / out, end = ((i + 1) * in + out - 1) / out;
    longest = std::max(longest, end - start);
  }
  return longest;
}

/// How many terms each output element of `node` sums (the longest, where they differ), or
/// nullopt for an op that sums nothing this model covers.
std::optional<int64_t> terms_per_element(const ir::Graph& graph, const ir::Node& node) {
  auto shape = [&](size_t input) -> const ir::Shape& {
    return graph.type(node.inputs[input]).shape;
  };
  const ir::Shape& out = graph.type(node.outputs[0]).shape;
  switch (node.op) {
    case OpKind::kGemm:
    case OpKind::kNormGemm:
    case OpKind::kLinear:
    case OpKind::kMatMul:
      return shape(0).empty() ? 1 : shape(0).back();  // a[..., M, K], x[..., K], or a 1-D [K]
    case OpKind::kAddMM:
      return shape(1).back();
    case OpKind::kConv2d:  // w[O, C / groups, kh, kw] or [O, kh, kw, C / groups]
      return product(shape(1), 1, 4);
    case OpKind::kConvTranspose2d: {  // w[C, O / groups, kh, kw]: C / groups channels, kh kw taps
      const int64_t groups = node.attrs.get_int("groups");
      return shape(1)[0] / std::max<int64_t>(groups, 1) * product(shape(1), 2, 4);
    }
    case OpKind::kAttention:
      return shape(1)[2];  // keys
    case OpKind::kSum:
    case OpKind::kMean: {
      const int64_t kept = product(out, 0, out.size());
      return kept > 0 ? product(shape(0), 0, shape(0).size()) / kept : 0;
    }
    case OpKind::kCumsum:
    case OpKind::kSoftmax:
    case OpKind::kLogSoftmax:
      return detail::lines_along(shape(0), node.attrs.get_int("dim")).n;
    case OpKind::kAvgPool2d: {
      const ir::IntList& kernel = node.attrs.get_ints("kernel");
      return kernel.size() == 2 ? kernel[0] * kernel[1] : 1;
    }
    case OpKind::kAdaptiveAvgPool2d: {
      const ir::PoolDims dims = ir::pool_dims(node.attrs, shape(0).size());
      return adaptive_window(shape(0)[dims.h], out[dims.h]) *
             adaptive_window(shape(0)[dims.w], out[dims.w]);
    }
    case OpKind::kLayerNorm:
    case OpKind::kRmsNorm: {
      const size_t r = shape(0).size();
      const auto dims = static_cast<size_t>(node.attrs.get_int("normalized_dims"));
      return product(shape(0), r - std::min(dims, r), r);
    }
    case OpKind::kGroupNorm: {
      const int64_t groups = std::max<int64_t>(node.attrs.get_int("groups"), 1);
      return shape(0)[1] / groups * product(shape(0), 2, shape(0).size());
    }
    default:
      return std::nullopt;
  }
}

double largest_magnitude(const Tensor* t) {
  double largest = 0;
  if (t == nullptr) return largest;
  for (int64_t i = 0; i < t->numel(); ++i) largest = std::max(largest, std::fabs(t->get(i)));
  return largest;
}

/// norm_gemm's allowance per output element: the product's walk over the reference's normalized
/// x (as a gemm's), plus what the kernel's own normalized x may differ by, carried through the
/// product: each element's f32 statistics (the norms' model below, walk_norm (|x_hat| + 2 max|b|
/// + max|w|)) and its rounding to the dtype landing on the neighbouring value (2 u_out |x_hat|).
std::vector<double> norm_gemm_allowance(const ir::Node& node,
                                        const std::vector<const Tensor*>& inputs,
                                        const Tensor& expected, double walk, double walk_norm,
                                        double u_out) {
  const std::optional<ir::NormGemmInputs> p = ir::norm_gemm_inputs(node.attrs, inputs.size());
  const Tensor normalized = detail::norm_gemm_normalized(inputs, node.attrs);
  const double w_max = largest_magnitude(inputs[static_cast<size_t>(p->weight)]);
  const double b_max = p->bias >= 0 ? largest_magnitude(inputs[static_cast<size_t>(p->bias)]) : 0;
  Tensor x_abs = absolute(normalized), x_error = absolute(normalized);
  for (int64_t i = 0; i < x_error.numel(); ++i) {
    const double x = x_abs.get(i);
    x_error.set(i, 2 * u_out * x + walk_norm * (x + 2 * b_max + w_max));
  }
  ir::Attributes attrs = node.attrs;
  attrs.set("alpha", std::fabs(attrs.get_float("alpha")));
  attrs.set("beta", std::fabs(attrs.get_float("beta")));
  attrs.set("activation", std::string("none"));
  const MagnitudeInputs m = sign_cleared_inputs(inputs);
  auto optional = [&](int i) { return i >= 0 ? m.ptrs[static_cast<size_t>(i)] : nullptr; };
  const Tensor& b = *m.ptrs[static_cast<size_t>(p->b)];
  const Tensor terms =
      detail::gemm(x_abs, b, optional(p->c), optional(p->d), attrs, f64_like(expected));
  const Tensor moved = detail::gemm(x_error, b, nullptr, nullptr, attrs, f64_like(expected));
  const double slope = activation_slope(node);
  std::vector<double> atol(static_cast<size_t>(expected.numel()));
  for (int64_t i = 0; i < expected.numel(); ++i)
    atol[static_cast<size_t>(i)] = slope * (walk * terms.get(i) + moved.get(i));
  return atol;
}

/// Per element: the largest score magnitude the query row can meet, |scale| * |q_i| * max_j |k_j|
/// (Cauchy-Schwarz), a bound on both |s_ij| and sum_d |scale q_id k_jd|.
std::vector<double> attention_score_bounds(const ir::Node& node, const Tensor& q, const Tensor& k,
                                           const ir::Shape& out) {
  const int64_t batch = q.type.shape[0], heads = q.type.shape[1], sq = q.type.shape[2];
  const int64_t d = q.type.shape[3], kv_heads = k.type.shape[1], skv = k.type.shape[2];
  const int64_t groups = std::max<int64_t>(node.attrs.get_int("kv_groups"), 1);
  const double scale = std::fabs(node.attrs.get_float("scale"));
  auto norm = [d](const Tensor& t, int64_t row) {
    double sum = 0;
    for (int64_t e = 0; e < d; ++e) sum += t.get(row * d + e) * t.get(row * d + e);
    return std::sqrt(sum);
  };
  std::vector<double> longest_key(static_cast<size_t>(batch * kv_heads), 0.0);
  for (int64_t bh = 0; bh < batch * kv_heads; ++bh) {
    for (int64_t j = 0; j < skv; ++j)
      longest_key[static_cast<size_t>(bh)] =
          std::max(longest_key[static_cast<size_t>(bh)], norm(k, bh * skv + j));
  }
  const int64_t dv = out[3];
  std::vector<double> bound(static_cast<size_t>(batch * heads * sq * dv));
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t h = 0; h < heads; ++h) {
      const double key = longest_key[static_cast<size_t>(b * kv_heads + h / groups)];
      for (int64_t i = 0; i < sq; ++i) {
        const int64_t row = (b * heads + h) * sq + i;
        const double s = scale * norm(q, row) * key;
        std::fill_n(bound.begin() + row * dv, dv, s);
      }
    }
  }
  return bound;
}

}  // namespace

RoundingAllowance rounding_allowance(const ir::Graph& graph, const ir::Node& node,
                                     const std::vector<const ir::Tensor*>& inputs,
                                     const ir::Tensor& expected, const AllowanceOptions& options) {
  RoundingAllowance allowance;
  const DType dtype = expected.type.dtype;
  if (!ir::is_floating(dtype)) return allowance;  // integer and bool results are exact
  const std::optional<int64_t> terms = terms_per_element(graph, node);
  if (!terms) return allowance;
  const int64_t n = expected.numel();
  const double k = static_cast<double>(*terms);
  const double u_acc = accumulator_roundoff(dtype), u_out = unit_roundoff(dtype);
  // The random walk of the accumulation, per unit of sum|terms|.
  const double walk = kLambda * u_acc * std::sqrt(k);
  allowance.what = "a " + std::to_string(*terms) + "-term " + std::string(ir::op_name(node.op));
  allowance.atol.assign(static_cast<size_t>(n), 0.0);
  auto& atol = allowance.atol;
  auto at = [](int64_t i) { return static_cast<size_t>(i); };

  switch (node.op) {
    case OpKind::kGemm:
    case OpKind::kLinear:
    case OpKind::kMatMul:
    case OpKind::kAddMM:
    case OpKind::kConv2d:
    case OpKind::kConvTranspose2d: {
      const Tensor magnitude = linear_magnitudes(node, inputs, expected);
      double per_unit = walk;
      const bool tf32 = options.tf32_gemms && dtype == DType::kF32 && node.op != OpKind::kConv2d &&
                        node.op != OpKind::kConvTranspose2d;  // the conv kernels never use TF32
      if (tf32) per_unit += kTf32ProductError;
      // A gemm with both a C matrix and a residual may have its sum stored (rounded to the dtype)
      // before an epilogue kernel adds the second addend (codegen/emit_gemm.h); a gated conv
      // rounds x * gate to the dtype before the 16-bit tensor-core product. Each is one more
      // rounding of the terms, a hard bound of u_out per unit of sum|terms|.
      const bool extra_rounding =
          (node.op == OpKind::kGemm && node.inputs.size() == 4) ||
          (node.op == OpKind::kConv2d && node.attrs.get_bool("gate") && u_out > u_acc);
      if (extra_rounding) per_unit += u_out;
      per_unit *= activation_slope(node);
      for (int64_t i = 0; i < n; ++i) atol[at(i)] = per_unit * magnitude.get(i);
      // A 16-bit gemm whose activation is not relu stores cuBLASLt's sum in the dtype, and an
      // epilogue kernel applies the activation to it (codegen/emit_gemm.h): one more rounding, of
      // the sum itself (not of its terms), by at most u_out |sum|, times the activation's slope.
      // (The GEMV path, codegen/emit_gemv.h, applies it before its one rounding: there this
      // term, like the extra rounding above, is an over-estimate.)
      // Measured on an H100: BERT's f16 gelu gemm 2 ulps, GPT-2's gelu_new gemm 3 ulps from the
      // reference, which rounds once.
      if (node.op == OpKind::kGemm && activation_slope(node) > 1 && u_out > u_acc) {
        const Tensor sum = gemm_before_activation(node, inputs, expected);
        for (int64_t i = 0; i < n; ++i)
          atol[at(i)] += kActivationSlope * u_out * std::fabs(sum.get(i));
      }
      return allowance;
    }
    case OpKind::kNormGemm: {
      // Always the GEMV (codegen/emit_gemv.h): f32 sums, one rounding, the activation before it.
      allowance.atol =
          norm_gemm_allowance(node, inputs, expected, walk, walk + kLambda * u_acc * 4, u_out);
      return allowance;
    }
    case OpKind::kAttention: {
      // Three sources, per unit of sum_j P_j |v_j| (the magnitude):
      //  - P rounded to the 16-bit dtype as the A operand of the tensor-core P @ V (f16/bf16;
      //    f32 and f64 keep P in the accumulator type): each term off by at most u_out, a hard
      //    bound of u_out when the normalizer l sums the unrounded P (as kernels/attention.cuh
      //    does), up to 2 u_out when it sums the rounded ones: 2 u_out covers either;
      //  - the f32 sum over the keys (and the running rescales, the exp2 and the division, a few
      //    roundings more: + 4);
      //  - each score's error e_j (its D-term f32 dot product, lambda u sqrt(D) sum_d |s q k|, and
      //    its rounding in the log2 domain, u |s - max| <= 2 u S) moves the output by
      //    sum_j P_j e_j (v_j - out), at most 2 max_j e_j sum_j P_j |v_j|; S bounds the row's
      //    scores (attention_score_bounds). An additive mask's own size is not modelled: kept keys
      //    usually carry 0 or small biases.
      const Tensor magnitude = linear_magnitudes(node, inputs, expected);
      const double p_rounding = u_out > u_acc ? 2 * u_out : 0;
      const double d = static_cast<double>(inputs[0]->type.shape[3]);
      const std::vector<double> score =
          attention_score_bounds(node, *inputs[0], *inputs[1], expected.type.shape);
      for (int64_t i = 0; i < n; ++i) {
        const double score_error = kLambda * u_acc * (std::sqrt(d) + 2) * score[at(i)];
        const double per_unit = p_rounding + kLambda * u_acc * (std::sqrt(k) + 4) + 2 * score_error;
        atol[at(i)] = per_unit * magnitude.get(i);
      }
      return allowance;
    }
    case OpKind::kSum:
    case OpKind::kMean:
    case OpKind::kCumsum:
    case OpKind::kAvgPool2d:
    case OpKind::kAdaptiveAvgPool2d: {
      // Linear in x: sum|terms| is the same reduction of |x|; one rounding more for the division.
      const Tensor magnitude = linear_magnitudes(node, inputs, expected);
      for (int64_t i = 0; i < n; ++i) atol[at(i)] = (walk + u_acc) * magnitude.get(i);
      return allowance;
    }
    case OpKind::kSoftmax: {
      // y_j = exp(x_j - m) / sum: the sum's relative error (the walk, its terms all positive, so
      // sum|terms| is the sum itself), exp's and the division's (a few u), and the argument's
      // rounding, u |x_j - m|, which exp turns into a relative error of y_j. From y alone:
      // |x_j - m| = |log y_j + log sum| <= |log y_j| + log K.
      const double log_k = std::log(std::max(k, 1.0));
      for (int64_t i = 0; i < n; ++i) {
        const double y = std::fabs(expected.get(i));
        if (y == 0 || !std::isfinite(y)) continue;
        atol[at(i)] = (walk + kLambda * u_acc * (4 + std::fabs(std::log(y)) + log_k)) * y;
      }
      return allowance;
    }
    case OpKind::kLogSoftmax: {
      // y_j = (x_j - m) - log(sum): log turns the sum's relative error into an absolute one (the
      // walk), and the two subtractions and the log round values of at most |y_j| each (x_j - m
      // and log(sum) are both within |y_j| in size), a few u_acc |y_j|.
      for (int64_t i = 0; i < n; ++i) {
        const double y = std::fabs(expected.get(i));
        if (!std::isfinite(y)) continue;
        atol[at(i)] = walk + kLambda * u_acc * 4 * y;
      }
      return allowance;
    }
    case OpKind::kLayerNorm:
    case OpKind::kRmsNorm:
    case OpKind::kGroupNorm: {
      // y = (x - mean) / sigma * w + b. The kernels (kernels/norm.cuh) shift by a row element and
      // take a two-pass variance, so mean and sigma carry relative errors of the walk's size
      // against sigma; those move y_i by about walk * |w_i| (|x_hat_i| + 1). Without evaluating
      // the normalization again, a documented scale: |y_i| + 2 max|b| + max|w| (a missing weight
      // is 1, a missing bias 0), at least |y_i - b_i| + |w_i| = |w_i| (|x_hat_i| + 1) and |b_i|;
      // and a few roundings of the affine step.
      const Tensor* weight = inputs.size() > 1 ? inputs[1] : nullptr;
      const Tensor* bias = node.op != OpKind::kRmsNorm && inputs.size() > 2 ? inputs[2] : nullptr;
      const double w_max = weight != nullptr ? largest_magnitude(weight) : 1.0;
      const double b_max = largest_magnitude(bias);
      for (int64_t i = 0; i < n; ++i) {
        const double y = std::fabs(expected.get(i));
        if (!std::isfinite(y)) continue;
        atol[at(i)] = (walk + kLambda * u_acc * 4) * (y + 2 * b_max + w_max);
      }
      return allowance;
    }
    default:
      return RoundingAllowance{};
  }
}

}  // namespace inferno::reference
