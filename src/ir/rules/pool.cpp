// Shape rules of the pooling family: max_pool2d, avg_pool2d, adaptive_avg_pool2d,
// adaptive_max_pool2d (whose output size may be 0, as PyTorch's). They refuse what PyTorch refuses
// (pool2d_shape_check): a kernel, stride or dilation below 1, negative padding or padding over half
// the kernel, an output smaller than 1, empty spatial dims. Attributes above 2^31 - 1 are refused
// as PyTorch's int32 kernels do, which also keeps every index computation of the reference and the
// CUDA kernel far from overflowing.
#include <limits>
#include <string>

#include "ir/channels_last.h"
#include "ir/rules/rules.h"

namespace inferno::ir::rules {
namespace {

constexpr int64_t kMaxAttr = std::numeric_limits<int32_t>::max();

// The rank (3 or 4; 4 for layout "nhwc"), a floating dtype and non-empty dims after the batch dim.
Status check_input(OpKind op, const TensorType& x, const Attributes& attrs) {
  const std::string& layout = attrs.get_string("layout");
  if (layout != "nchw" && layout != "nhwc")
    return bad(op, "layout must be \"nchw\" or \"nhwc\", got \"" + layout + "\"");
  if (layout == "nhwc" && x.rank() != 4)
    return bad(op, "layout \"nhwc\" expects a 4-D [N, H, W, C] input, got " + x.to_string());
  if (x.rank() != 3 && x.rank() != 4) {
    return bad(op, "expects a 3-D [C, H, W] or 4-D [N, C, H, W] input, got " + x.to_string());
  }
  INFERNO_RETURN_IF_ERROR(require_floating(op, x));
  for (int64_t d = x.rank() - 3; d < x.rank(); ++d) {
    if (x.shape[static_cast<size_t>(d)] < 1) {
      return bad(op, "expects non-empty channel and spatial dims, got " + x.to_string());
    }
  }
  return Status::ok();
}

Expected<IntList> pair(OpKind op, const Attributes& attrs, const std::string& name, int64_t lo) {
  const IntList& v = attrs.get_ints(name);
  if (v.size() != 2)
    return bad(op, name + " must have two values (H, W), got " + shape_to_string(v));
  for (const int64_t e : v) {
    if (e < lo || e > kMaxAttr) {
      return bad(op, name + " " + shape_to_string(v) + " must be within [" + std::to_string(lo) +
                         ", " + std::to_string(kMaxAttr) + "]");
    }
  }
  return v;
}

// PyTorch's pooling_output_shape for one dim.
int64_t output_size(int64_t in, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation,
                    bool ceil_mode) {
  const int64_t span = in + 2 * pad - dilation * (kernel - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  // floor division (span may be negative when the kernel does not fit)
  int64_t out = (span >= 0 ? span / stride : -((-span + stride - 1) / stride)) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;  // the last window starts in the padding
  return out;
}

Expected<Types> pool(OpKind op, const Types& in, const Attributes& attrs) {
  const TensorType& x = in[0];
  INFERNO_RETURN_IF_ERROR(check_input(op, x, attrs));
  const PoolDims dims = pool_dims(attrs, x.shape.size());
  INFERNO_ASSIGN_OR_RETURN(IntList kernel, pair(op, attrs, "kernel", 1));
  INFERNO_ASSIGN_OR_RETURN(IntList stride, pair(op, attrs, "stride", 1));
  INFERNO_ASSIGN_OR_RETURN(IntList padding, pair(op, attrs, "padding", 0));
  IntList dilation = {1, 1};
  if (op == OpKind::kMaxPool2d) {
    INFERNO_ASSIGN_OR_RETURN(dilation, pair(op, attrs, "dilation", 1));
  } else {
    const int64_t divisor = attrs.get_int("divisor_override");
    if (divisor < -kMaxAttr || divisor > kMaxAttr)
      return bad(op, "divisor_override " + std::to_string(divisor) + " is out of range");
  }
  const bool ceil_mode = attrs.get_bool("ceil_mode");
  Shape out = x.shape;
  for (size_t i = 0; i < 2; ++i) {
    if (padding[i] > kernel[i] / 2) {
      return bad(op, "padding " + shape_to_string(padding) +
                         " must be at most half of the kernel " + shape_to_string(kernel));
    }
    const size_t d = i == 0 ? dims.h : dims.w;
    const int64_t o =
        output_size(x.shape[d], kernel[i], stride[i], padding[i], dilation[i], ceil_mode);
    if (o < 1) {
      return bad(op, "the kernel " + shape_to_string(kernel) + " (dilation " +
                         shape_to_string(dilation) + ", padding " + shape_to_string(padding) +
                         ") does not fit the input " + x.to_string());
    }
    out[d] = o;
  }
  return one({x.dtype, out});
}

Expected<Types> adaptive(OpKind op, const Types& in, const Attributes& attrs) {
  const TensorType& x = in[0];
  INFERNO_RETURN_IF_ERROR(check_input(op, x, attrs));
  const PoolDims dims = pool_dims(attrs, x.shape.size());
  INFERNO_ASSIGN_OR_RETURN(IntList size, pair(op, attrs, "output_size", 0));
  Shape out = x.shape;
  for (size_t i = 0; i < 2; ++i) {
    const size_t d = i == 0 ? dims.h : dims.w;
    // The window bounds compute i * in: keep that product within int64.
    if (size[i] > 0 && x.shape[d] > (int64_t{1} << 62) / size[i]) {
      return unsupported(std::string(op_name(op)) + ": output size " + shape_to_string(size) +
                         " for input " + x.to_string() + " is too large");
    }
    out[d] = size[i];
  }
  if (!checked_numel(out)) return bad(op, "output " + shape_to_string(out) + " is too large");
  return one({x.dtype, out});
}

}  // namespace

void register_pool_rules(ShapeRuleTable& table) {
  table.add(OpKind::kMaxPool2d, pool);
  table.add(OpKind::kAvgPool2d, pool);
  table.add(OpKind::kAdaptiveAvgPool2d, adaptive);
  table.add(OpKind::kAdaptiveMaxPool2d, adaptive);
}

}  // namespace inferno::ir::rules
