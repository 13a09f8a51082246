// 3-D pooling in the ATen table (video models: S3D's max_pool3d and its avg_pool3d head), onto
// the IR's 2-D pools: the frames go into the batch ([N, C, T, H, W] -> [N T, C, H, W]), each
// frame is pooled over H and W, and the frames of each temporal window are combined by
// elementwise maximum or sum. Both pools are separable, so this is the 3-D pool:
//  - max_pool3d: the time dim padded with -inf on both sides (a window never holds padding
//    alone: PyTorch bounds the padding by half the window), ceil_mode as PyTorch's (the last
//    window starts inside the input or its left padding);
//  - avg_pool3d: without time padding, and where no window reaches past the last frame, every
//    window holds kt frames, so PyTorch's divisor is kt times avg_pool2d's (count_include_pad or
//    not), and divisor_override divides the whole window's sum as avg_pool2d's does its part.
//    Time padding, or a ceil_mode window past the end, is unsupported (exit 2).
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "frontend/aten_builders.h"

namespace inferno::frontend::aten {
namespace {

using ir::IntList;
using ir::OpKind;
using ir::ValueId;

/// A size/stride/padding/dilation argument as three values (T, H, W); `fallback` for an empty
/// list.
Expected<IntList> three(const Ctx& c, std::string_view name, const IntList& fallback = {}) {
  IntList v = c.a.get_ints(name);
  if (v.empty() && !fallback.empty()) return fallback;
  if (v.size() == 1) v.assign(3, v[0]);
  if (v.size() != 3) {
    return c.invalid(std::string(name) + " must have one or three values, got " +
                     ir::shape_to_string(v));
  }
  return v;
}

/// The output frames of a window of `span` frames at `stride` over `frames` padded by `pad` on
/// each side: PyTorch's pooling size rule (ceil_mode's last window starts inside the input or
/// its left padding).
int64_t pooled_frames(int64_t frames, int64_t pad, int64_t span, int64_t stride, bool ceil_mode) {
  const int64_t room = frames + 2 * pad - span;
  int64_t out = (ceil_mode ? (room + stride - 1) / stride : room / stride) + 1;
  if (ceil_mode && (out - 1) * stride >= frames + pad) --out;
  return out;
}

/// Each frame of f ([N, Tp, C, H, W]) pooled by `pool2d` (an IR 2-D pool with `pool_attrs`) as
/// one batch, back as [N, Tp, C, H', W'].
Expected<ValueId> pool_frames(const Ctx& c, ValueId f, OpKind pool2d, ir::Attributes pool_attrs) {
  const ir::Shape s = c.type(f).shape;
  INFERNO_ASSIGN_OR_RETURN(
      ValueId b, c.build(OpKind::kReshape, {f},
                         attrs({{"shape", ir::Shape{s[0] * s[1], s[2], s[3], s[4]}}}), "batch"));
  INFERNO_ASSIGN_OR_RETURN(b, c.build(pool2d, {b}, std::move(pool_attrs), "pool2d"));
  const ir::Shape p = c.type(b).shape;
  return c.build(OpKind::kReshape, {b}, attrs({{"shape", ir::Shape{s[0], s[1], p[1], p[2], p[3]}}}),
                 "pooled");
}

/// The frames k * dilation, + stride, ... (out of them) of each tap k, combined by `combine`.
Expected<ValueId> combine_taps(const Ctx& c, ValueId pooled, int64_t taps, int64_t dilation,
                               int64_t stride, int64_t out, OpKind combine) {
  std::optional<ValueId> acc;
  for (int64_t k = 0; k < taps; ++k) {
    const std::string tap = "tap" + std::to_string(k);
    INFERNO_ASSIGN_OR_RETURN(
        const ValueId frames,
        slice_dim(c, pooled, 1, k * dilation, k * dilation + (out - 1) * stride + 1, stride, tap));
    if (acc) {
      INFERNO_ASSIGN_OR_RETURN(acc, c.build(combine, {*acc, frames}, {}, tap + "_combined"));
    } else {
      acc = frames;
    }
  }
  return *acc;
}

}  // namespace

Outputs max_pool3d(Ctx& c) {
  INFERNO_ASSIGN_OR_RETURN(const IntList kernel, three(c, "kernel_size"));
  INFERNO_ASSIGN_OR_RETURN(const IntList stride, three(c, "stride", kernel));
  INFERNO_ASSIGN_OR_RETURN(const IntList padding, three(c, "padding"));
  INFERNO_ASSIGN_OR_RETURN(const IntList dilation, three(c, "dilation"));
  const bool ceil_mode = c.a.get_bool("ceil_mode");
  const ValueId input = c.a.tensor("self");
  const int64_t frames = c.type(input).shape.size() >= 4 ? c.type(input).shape.end()[-3] : 0;
  const int64_t kt = kernel[0], st = stride[0], pt = padding[0], dt = dilation[0];
  if (kt < 1 || st < 1 || dt < 1 || pt < 0) {
    return c.invalid("kernel, stride and dilation must be positive and padding not negative");
  }
  const int64_t span = dt * (kt - 1) + 1;
  if (pt > span / 2) return c.invalid("padding should be at most half of the window");
  if (frames + 2 * pt < span) {
    return c.invalid("the window of " + std::to_string(span) + " frames is longer than the " +
                     std::to_string(frames + 2 * pt) + " frames (padded)");
  }
  const int64_t out = pooled_frames(frames, pt, span, st, ceil_mode);
  // Padding on the right for ceil_mode's last window too.
  const int64_t right = std::max(pt, (out - 1) * st + span - frames - pt);
  INFERNO_ASSIGN_OR_RETURN(const Frames f, frames_first(c, input));
  ValueId x = f.x;
  if (pt > 0 || right > 0) {
    const ValueId fill = ir::add_scalar_constant(c.g, -std::numeric_limits<double>::infinity(),
                                                 c.type(x).dtype, c.name("neg_inf"));
    INFERNO_ASSIGN_OR_RETURN(
        x,
        c.build(OpKind::kConstantPad, {x, fill},
                attrs({{"before", IntList{0, pt, 0, 0, 0}}, {"after", IntList{0, right, 0, 0, 0}}}),
                "frames_padded"));
  }
  INFERNO_ASSIGN_OR_RETURN(const ValueId pooled,
                           pool_frames(c, x, OpKind::kMaxPool2d,
                                       attrs({{"kernel", IntList{kernel[1], kernel[2]}},
                                              {"stride", IntList{stride[1], stride[2]}},
                                              {"padding", IntList{padding[1], padding[2]}},
                                              {"dilation", IntList{dilation[1], dilation[2]}},
                                              {"ceil_mode", ceil_mode}})));
  INFERNO_ASSIGN_OR_RETURN(const ValueId y,
                           combine_taps(c, pooled, kt, dt, st, out, OpKind::kMaximum));
  INFERNO_ASSIGN_OR_RETURN(std::vector<ValueId> result, frames_last(c, y, f.batched));
  if (c.call.op.find("indices") != std::string::npos) result.push_back(ir::kNoValue);
  return result;
}

Outputs avg_pool3d(Ctx& c) {
  INFERNO_ASSIGN_OR_RETURN(const IntList kernel, three(c, "kernel_size"));
  INFERNO_ASSIGN_OR_RETURN(const IntList stride, three(c, "stride", kernel));
  INFERNO_ASSIGN_OR_RETURN(const IntList padding, three(c, "padding"));
  const bool ceil_mode = c.a.get_bool("ceil_mode");
  int64_t divisor = 0;  // the IR's "none"
  if (!c.a.is_none("divisor_override")) {
    divisor = c.a.get_int("divisor_override");
    if (divisor == 0) return c.invalid("divisor_override must not be zero");
  }
  const ValueId input = c.a.tensor("self");
  const int64_t frames = c.type(input).shape.size() >= 4 ? c.type(input).shape.end()[-3] : 0;
  const int64_t kt = kernel[0], st = stride[0];
  if (kt < 1 || st < 1 || padding[0] < 0) {
    return c.invalid("kernel and stride must be positive and padding not negative");
  }
  if (frames < kt) {
    return c.invalid("the window of " + std::to_string(kt) + " frames is longer than the " +
                     std::to_string(frames) + " frames");
  }
  const int64_t out = pooled_frames(frames, 0, kt, st, ceil_mode);
  if (padding[0] != 0 || (out - 1) * st + kt > frames) {
    return c.unsupported_arg(
        "padding in time, or a ceil_mode window past the last frame, is not supported");
  }
  INFERNO_ASSIGN_OR_RETURN(const Frames f, frames_first(c, input));
  INFERNO_ASSIGN_OR_RETURN(
      const ValueId pooled,
      pool_frames(c, f.x, OpKind::kAvgPool2d,
                  attrs({{"kernel", IntList{kernel[1], kernel[2]}},
                         {"stride", IntList{stride[1], stride[2]}},
                         {"padding", IntList{padding[1], padding[2]}},
                         {"ceil_mode", ceil_mode},
                         {"count_include_pad", c.a.get_bool("count_include_pad")},
                         {"divisor_override", divisor}})));
  INFERNO_ASSIGN_OR_RETURN(ValueId y, combine_taps(c, pooled, kt, 1, st, out, OpKind::kAdd));
  if (divisor == 0 && kt > 1) {  // the mean of the taps; an override already divided the sum
    const ValueId scale = ir::add_scalar_constant(c.g, 1.0 / static_cast<double>(kt),
                                                  c.type(y).dtype, c.name("taps"));
    INFERNO_ASSIGN_OR_RETURN(y, c.build(OpKind::kMul, {y, scale}, {}, "mean"));
  }
  return frames_last(c, y, f.batched);
}

}  // namespace inferno::frontend::aten
