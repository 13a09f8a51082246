#include "codegen/kernel_cost.h"

#include <algorithm>
#include <set>

#include "ir/fused_expr.h"
#include "ir/norm_gemm.h"
#include "support/check.h"

namespace inferno::codegen {
namespace {

using ir::OpKind;

double numel(const ir::Graph& graph, ir::ValueId v) {
  return static_cast<double>(graph.type(v).numel());
}

int64_t bytes(const ir::Graph& graph, ir::ValueId v) { return graph.type(v).size_bytes(); }

// Elementwise ops that do no arithmetic: they move, compare or select.
bool does_arithmetic(OpKind op) {
  switch (op) {
    case OpKind::kCast:
    case OpKind::kEq:
    case OpKind::kNe:
    case OpKind::kLt:
    case OpKind::kLe:
    case OpKind::kGt:
    case OpKind::kGe:
    case OpKind::kIsNan:
    case OpKind::kIsInf:
    case OpKind::kLogicalNot:
    case OpKind::kLogicalAnd:
    case OpKind::kLogicalOr:
    case OpKind::kBitwiseAnd:
    case OpKind::kBitwiseOr:
    case OpKind::kBitwiseXor:
    case OpKind::kBitwiseNot:
    case OpKind::kWhere:
      return false;
    default:
      return true;
  }
}

// The epilogue terms of a gemm or conv2d: each addend and the activation, 1 per output element.
double epilogue_terms(const ir::Node& node) {
  double terms = node.attrs.get_string("activation") == "none" ? 0 : 1;
  if (node.op == OpKind::kGemm) {
    if (node.inputs.size() >= 3 && node.attrs.get_float("beta") != 0.0) terms += 1;
    if (node.inputs.size() == 4) terms += 1;
  } else if (node.op == OpKind::kNormGemm) {
    const std::optional<ir::NormGemmInputs> p =
        ir::norm_gemm_inputs(node.attrs, node.inputs.size());
    INFERNO_CHECK(p.has_value(), "norm_gemm: inputs that do not fit its norm");
    if (p->c >= 0 && node.attrs.get_float("beta") != 0.0) terms += 1;
    if (p->d >= 0) terms += 1;
  } else {
    terms += static_cast<double>(node.inputs.size() - 2);  // bias, residual, gate
  }
  return terms;
}

double gemm_flops(const ir::Graph& graph, const ir::Node& node) {
  const int64_t k = graph.type(node.inputs[0]).shape.back();
  const double out = numel(graph, node.outputs[0]);
  return 2.0 * out * static_cast<double>(k) + out * epilogue_terms(node);
}

double conv_flops(const ir::Graph& graph, const ir::Node& node) {
  const ir::TensorType& w = graph.type(node.inputs[1]);
  const double out = numel(graph, node.outputs[0]);
  // Every weight dim but the output channels: C / groups and the taps, in either layout.
  const double taps = static_cast<double>(w.numel() / w.shape[0]);
  if (node.op == OpKind::kConvTranspose2d) {
    // w[C, O / groups, kh, kw]: each input element scatters into O / groups * kh * kw outputs.
    return 2.0 * numel(graph, node.inputs[0]) * taps + (node.inputs.size() > 2 ? out : 0.0);
  }
  return 2.0 * out * taps + out * epilogue_terms(node);
}

// (query, key) pairs attention computes: all of them, or key j <= query i when causal (top-left
// aligned: query i sees min(i + 1, Skv) keys).
double attention_flops(const ir::Graph& graph, const ir::Node& node) {
  const ir::TensorType& q = graph.type(node.inputs[0]);
  const ir::TensorType& v = graph.type(node.inputs[2]);
  const int64_t sq = q.shape[2], skv = graph.type(node.inputs[1]).shape[2];
  double rows_pairs = static_cast<double>(sq) * static_cast<double>(skv);
  if (node.attrs.get_bool("causal")) {
    const int64_t full = std::min(sq, skv);  // rows 0..full-1 see i + 1 keys, the rest all skv
    rows_pairs = static_cast<double>(full) * static_cast<double>(full + 1) / 2.0 +
                 static_cast<double>(sq - full) * static_cast<double>(skv);
  }
  const double pairs = static_cast<double>(q.shape[0] * q.shape[1]) * rows_pairs;
  return 2.0 * pairs * static_cast<double>(q.shape[3] + v.shape[3]);
}

double norm_flops(const ir::Graph& graph, const ir::Node& node) {
  const double per_element = node.op == OpKind::kRmsNorm ? 3.0 : 5.0;
  const double affine = static_cast<double>(node.inputs.size() - 1);  // weight, bias
  return numel(graph, node.inputs[0]) * (per_element + affine);
}

// The norm's work on x (as its own kernel would do it, once per row: the GEMV's blocks each
// normalize the rows again, which this does not count) plus the product's.
double norm_gemm_flops(const ir::Graph& graph, const ir::Node& node) {
  const bool rms = node.attrs.get_string("norm") == "rms_norm";
  const double per_element = rms ? 3.0 + 1.0 : 5.0 + 2.0;  // the statistics, weight (and bias)
  return numel(graph, node.inputs[0]) * per_element + gemm_flops(graph, node);
}

double pool_flops(const ir::Graph& graph, const ir::Node& node) {
  if (node.op == OpKind::kAdaptiveAvgPool2d || node.op == OpKind::kAdaptiveMaxPool2d)
    return numel(graph, node.inputs[0]);
  const ir::IntList& kernel = node.attrs.get_ints("kernel");
  return numel(graph, node.outputs[0]) * static_cast<double>(kernel[0] * kernel[1]);
}

double fused_flops(const ir::Node& node) {
  double flops = 0;
  for (const ir::FusedStep& step : node.attrs.get_body("expr").steps) {
    if (does_arithmetic(step.op)) flops += static_cast<double>(step.type.numel());
  }
  return flops;
}

double flops(const ir::Graph& graph, const ir::Node& node) {
  if (ir::op_has_trait(node.op, ir::kElementwise))
    return does_arithmetic(node.op) ? numel(graph, node.outputs[0]) : 0.0;
  switch (node.op) {
    case OpKind::kGemm:
      return gemm_flops(graph, node);
    case OpKind::kNormGemm:
      return norm_gemm_flops(graph, node);
    case OpKind::kConv2d:
    case OpKind::kConvTranspose2d:
      return conv_flops(graph, node);
    case OpKind::kAttention:
      return attention_flops(graph, node);
    case OpKind::kLayerNorm:
    case OpKind::kGroupNorm:
    case OpKind::kRmsNorm:
      return norm_flops(graph, node);
    case OpKind::kSoftmax:
    case OpKind::kLogSoftmax:
      return 5.0 * numel(graph, node.inputs[0]);
    case OpKind::kSum:
    case OpKind::kMean:
    case OpKind::kReduceMax:
    case OpKind::kReduceMin:
    case OpKind::kArgMax:
    case OpKind::kArgMin:
    case OpKind::kCumsum:
      return numel(graph, node.inputs[0]);
    case OpKind::kMaxPool2d:
    case OpKind::kAvgPool2d:
    case OpKind::kAdaptiveAvgPool2d:
    case OpKind::kAdaptiveMaxPool2d:
      return pool_flops(graph, node);
    case OpKind::kUpsampleBilinear2d:
      return 7.0 * numel(graph, node.outputs[0]);
    case OpKind::kFusedElementwise:
      return fused_flops(node);
    case OpKind::kRotary: {  // two products and their sum per rotated element
      const ir::TensorType& x = graph.type(node.inputs[0]);
      return 3.0 *
             static_cast<double>(x.numel() / x.shape.back() * node.attrs.get_int("rotary_dim"));
    }
    default:
      return 0.0;  // layout ops, gathers, scatters, nearest upsampling: no arithmetic
  }
}

}  // namespace

NodeWork node_work(const ir::Graph& graph, const ir::Node& node) {
  INFERNO_CHECK(node.outputs.size() == 1, "node_work: one output per node");
  const ir::ValueId out = node.outputs[0];
  NodeWork work;
  work.flops = flops(graph, node);
  work.bytes_written = bytes(graph, out);
  switch (node.op) {
    case OpKind::kSlice:
      work.bytes_read = bytes(graph, out);
      return work;
    case OpKind::kIndexSelect:  // (x, index): the gathered rows and the indices
      work.bytes_read = bytes(graph, out) + bytes(graph, node.inputs[1]);
      return work;
    case OpKind::kIndexCopy:  // (self, index, source): source's rows land in self's
      work.bytes_read = bytes(graph, node.inputs[1]) + bytes(graph, node.inputs[2]);
      work.bytes_written = bytes(graph, node.inputs[2]);
      return work;
    default:
      break;
  }
  const std::set<ir::ValueId> distinct(node.inputs.begin(), node.inputs.end());
  for (const ir::ValueId v : distinct) work.bytes_read += bytes(graph, v);
  return work;
}

}  // namespace inferno::codegen
