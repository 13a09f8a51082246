// Shape rules of the convolution family: conv2d and conv_transpose2d. conv2d refuses what PyTorch
// refuses (ConvUtils.h, check_shape_forward): channels not divisible by groups, a weight that does
// not match them, a bias of the wrong size, stride or dilation below 1, negative padding, a
// (dilated) kernel larger than the padded input. Attributes above 2^31 - 1 are refused, which keeps
// every index computation of the reference and the CUDA kernel far from overflowing int64. Integer
// convolutions are unsupported (PyTorch has no integer conv kernel on the GPU either). The fused
// operands (residual, gate) must match their flags and have exactly their types; an unknown
// activation or layout is invalid input too.
#include <limits>
#include <string>

#include "ir/rules/rules.h"

namespace inferno::ir::rules {
namespace {

constexpr int64_t kMaxAttr = std::numeric_limits<int32_t>::max();

Expected<IntList> values(OpKind op, const Attributes& attrs, const std::string& name, size_t count,
                         int64_t lo) {
  const IntList& v = attrs.get_ints(name);
  if (v.size() != count) {
    return bad(op,
               name + " must have " + std::to_string(count) + " values, got " + shape_to_string(v));
  }
  for (const int64_t e : v) {
    if (e < lo || e > kMaxAttr) {
      return bad(op, name + " " + shape_to_string(v) + " must be within [" + std::to_string(lo) +
                         ", " + std::to_string(kMaxAttr) + "]");
    }
  }
  return v;
}

// x, w, bias, residual, gate: which operand is where, from the flags; checks the count.
struct ConvOperands {
  bool nhwc = false;
  int residual = -1, gate = -1;  // operand indices, -1 absent
};

Expected<ConvOperands> conv_operands(OpKind op, const Types& in, const Attributes& attrs) {
  ConvOperands o;
  const std::string& layout = attrs.get_string("layout");
  if (layout != "nchw" && layout != "nhwc") {
    return bad(op, "layout must be \"nchw\" or \"nhwc\", got \"" + layout.substr(0, 32) + "\"");
  }
  o.nhwc = layout == "nhwc";
  const std::string& activation = attrs.get_string("activation");
  if (activation != "none" && !epilogue_activation(activation, kConvActivation)) {
    return bad(op, "unknown activation \"" + activation.substr(0, 32) + "\"");
  }
  const bool residual = attrs.get_bool("residual"), gate = attrs.get_bool("gate");
  const size_t expected = residual || gate ? 3 + size_t{residual} + size_t{gate} : in.size();
  if (in.size() != expected || (!residual && !gate && in.size() > 3)) {
    return bad(op, "takes x, w, bias" + std::string(residual ? ", residual" : "") +
                       (gate ? ", gate" : "") + " (residual=" + (residual ? "true" : "false") +
                       ", gate=" + (gate ? "true" : "false") + "), got " +
                       std::to_string(in.size()) + " operands (" + types_str(in) + ")");
  }
  if (residual) o.residual = 3;
  if (gate) o.gate = 3 + int{residual};
  return o;
}

Expected<Types> conv2d(OpKind op, const Types& in, const Attributes& attrs) {
  INFERNO_ASSIGN_OR_RETURN(ConvOperands operands, conv_operands(op, in, attrs));
  const TensorType &x = in[0], &w = in[1];
  for (const TensorType& t : in) {
    if (t.dtype != x.dtype) return bad(op, "operand dtypes differ (" + types_str(in) + ")");
  }
  INFERNO_RETURN_IF_ERROR(require_floating(op, x));
  const bool nhwc = operands.nhwc;
  if (x.rank() != 4 || w.rank() != 4) {
    return bad(op, std::string(nhwc ? "expects x[N, H, W, C] and w[O, kh, kw, C / groups] (layout "
                                      "nhwc), got "
                                    : "expects x[N, C, H, W] and w[O, C / groups, kh, kw], got ") +
                       types_str(in));
  }
  // Dims by meaning: channels and spatial sizes of x, kernel sizes and channels of w.
  const int64_t channels = x.shape[nhwc ? 3 : 1], w_channels = w.shape[nhwc ? 3 : 1];
  const int64_t in_size[2] = {x.shape[nhwc ? 1 : 2], x.shape[nhwc ? 2 : 3]};
  const int64_t kernel_size[2] = {w.shape[nhwc ? 1 : 2], w.shape[nhwc ? 2 : 3]};
  INFERNO_ASSIGN_OR_RETURN(IntList stride, values(op, attrs, "stride", 2, 1));
  INFERNO_ASSIGN_OR_RETURN(IntList padding, values(op, attrs, "padding", 4, 0));
  INFERNO_ASSIGN_OR_RETURN(IntList dilation, values(op, attrs, "dilation", 2, 1));
  const int64_t groups = attrs.get_int("groups");
  if (groups < 1 || groups > kMaxAttr) {
    return bad(op, "groups " + std::to_string(groups) + " must be within [1, " +
                       std::to_string(kMaxAttr) + "]");
  }
  const int64_t out_channels = w.shape[0];
  if (channels % groups != 0 || out_channels % groups != 0) {
    return bad(op, "input channels " + std::to_string(channels) + " and output channels " +
                       std::to_string(out_channels) + " must be divisible by groups " +
                       std::to_string(groups));
  }
  if (w_channels != channels / groups) {
    return bad(op, "weight " + w.to_string() + " expects " + std::to_string(w_channels * groups) +
                       " input channels (groups " + std::to_string(groups) + "), got " +
                       x.to_string());
  }
  if (in.size() > 2 && (in[2].rank() != 1 || in[2].shape[0] != out_channels)) {
    return bad(op, "bias " + in[2].to_string() + " must be [" + std::to_string(out_channels) +
                       "] for weight " + w.to_string());
  }
  int64_t out_size[2] = {0, 0};
  for (size_t i = 0; i < 2; ++i) {
    const int64_t kernel = kernel_size[i];
    if (kernel < 1 || kernel > kMaxAttr) {
      return bad(op, "kernel size of weight " + w.to_string() + " must be within [1, " +
                         std::to_string(kMaxAttr) + "]");
    }
    // All terms are below 2^31: no overflow.
    const int64_t padded = in_size[i] + padding[i] + padding[i + 2];
    const int64_t span = dilation[i] * (kernel - 1) + 1;
    if (span > padded) {
      return bad(op, "the kernel of " + w.to_string() + " (dilation " + shape_to_string(dilation) +
                         ") is larger than the padded input " + x.to_string() + " (padding " +
                         shape_to_string(padding) + ")");
    }
    out_size[i] = (padded - span) / stride[i] + 1;
  }
  const TensorType out{x.dtype, nhwc ? Shape{x.shape[0], out_size[0], out_size[1], out_channels}
                                     : Shape{x.shape[0], out_channels, out_size[0], out_size[1]}};
  if (operands.residual >= 0 && in[operands.residual].shape != out.shape) {
    return bad(op, "residual " + in[operands.residual].to_string() + " must be the output's type " +
                       out.to_string());
  }
  if (operands.gate >= 0) {
    const Shape gate = nhwc ? Shape{x.shape[0], 1, 1, channels} : Shape{x.shape[0], channels, 1, 1};
    if (in[operands.gate].shape != gate) {
      return bad(op, "gate " + in[operands.gate].to_string() + " must be " +
                         TensorType{x.dtype, gate}.to_string() + " for input " + x.to_string());
    }
  }
  return one(out);
}

// The transposed convolution: weight [C, O / groups, kh, kw]. PyTorch's refusals: output_padding
// at least both stride and dilation, an output size below 1.
Expected<Types> conv_transpose2d(OpKind op, const Types& in, const Attributes& attrs) {
  const TensorType &x = in[0], &w = in[1];
  for (const TensorType& t : in) {
    if (t.dtype != x.dtype) return bad(op, "operand dtypes differ (" + types_str(in) + ")");
  }
  INFERNO_RETURN_IF_ERROR(require_floating(op, x));
  if (x.rank() != 4 || w.rank() != 4) {
    return bad(op, "expects x[N, C, H, W] and w[C, O / groups, kh, kw], got " + types_str(in));
  }
  INFERNO_ASSIGN_OR_RETURN(IntList stride, values(op, attrs, "stride", 2, 1));
  INFERNO_ASSIGN_OR_RETURN(IntList padding, values(op, attrs, "padding", 2, 0));
  INFERNO_ASSIGN_OR_RETURN(IntList output_padding, values(op, attrs, "output_padding", 2, 0));
  INFERNO_ASSIGN_OR_RETURN(IntList dilation, values(op, attrs, "dilation", 2, 1));
  const int64_t groups = attrs.get_int("groups");
  if (groups < 1 || groups > kMaxAttr) {
    return bad(op, "groups " + std::to_string(groups) + " must be within [1, " +
                       std::to_string(kMaxAttr) + "]");
  }
  const int64_t channels = x.shape[1];
  if (channels % groups != 0 || w.shape[0] != channels) {
    return bad(op, "weight " + w.to_string() + " must have the input's " +
                       std::to_string(channels) + " channels first, a multiple of groups " +
                       std::to_string(groups));
  }
  if (w.shape[1] > kMaxAttr) return bad(op, "weight " + w.to_string() + " is too large");
  const int64_t out_channels = w.shape[1] * groups;
  if (in.size() == 3 && (in[2].rank() != 1 || in[2].shape[0] != out_channels)) {
    return bad(op, "bias " + in[2].to_string() + " must be [" + std::to_string(out_channels) +
                       "] for weight " + w.to_string() + " and groups " + std::to_string(groups));
  }
  Shape out = {x.shape[0], out_channels, 0, 0};
  for (size_t i = 0; i < 2; ++i) {
    const int64_t kernel = w.shape[2 + i];
    if (kernel < 1 || kernel > kMaxAttr) {
      return bad(op, "kernel size of weight " + w.to_string() + " must be within [1, " +
                         std::to_string(kMaxAttr) + "]");
    }
    if (output_padding[i] >= stride[i] && output_padding[i] >= dilation[i]) {
      return bad(op, "output_padding " + shape_to_string(output_padding) +
                         " must be smaller than either stride " + shape_to_string(stride) +
                         " or dilation " + shape_to_string(dilation));
    }
    // Inputs are below 2^62 elements (checked_numel) and attributes below 2^31: no overflow.
    const int64_t size = x.shape[2 + i];
    if (size > kMaxAttr) return bad(op, "input " + x.to_string() + " is too large");
    out[2 + i] = (size - 1) * stride[i] - 2 * padding[i] + dilation[i] * (kernel - 1) +
                 output_padding[i] + 1;
    if (out[2 + i] < 1) {
      return bad(op, "the output of " + x.to_string() + " with padding " +
                         shape_to_string(padding) + " would be empty");
    }
  }
  if (!checked_numel(out)) return bad(op, "the output " + shape_to_string(out) + " is too large");
  return one({x.dtype, out});
}

}  // namespace

void register_conv_rules(ShapeRuleTable& table) {
  table.add(OpKind::kConv2d, conv2d);
  table.add(OpKind::kConvTranspose2d, conv_transpose2d);
}

}  // namespace inferno::ir::rules
