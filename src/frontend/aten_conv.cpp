// The convolution entries of the ATen table: TorchScript's aten::_convolution (and
// _convolution_mode, its trace of a string padding), core ATen's aten::convolution, and
// aten::conv3d / conv2d / conv1d (int and string padding overloads), aten::conv_transpose2d /
// conv_transpose1d. All become one IR conv2d or conv_transpose2d: a 1-D convolution runs over
// [N, C, 1, L] (input, weight and output reshaped around it) and an unbatched input gets a batch
// dim of 1. Padding "same" puts the odd pixel after, as PyTorch does. A 3-D convolution (video
// models: r3d, mc3, r2plus1d) becomes one conv2d per temporal tap over the frames folded into the
// batch, summed (build_conv3d); 3-D transposed convolutions are unsupported (exit 2).
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "frontend/aten_builders.h"

namespace inferno::frontend::aten {
namespace {

using ir::IntList;
using ir::OpKind;
using ir::ValueId;

constexpr ArgKind T = ArgKind::kTensor, Int = ArgKind::kInt, Bool = ArgKind::kBool,
                  Ints = ArgKind::kInts, Str = ArgKind::kString, Any = ArgKind::kAny;

/// `v` with one value per spatial dim: a single value is repeated, as PyTorch's _pair does.
Expected<IntList> per_dim(const Ctx& c, const std::string& name, IntList v, size_t dims) {
  if (v.size() == 1 && dims > 1) v.assign(dims, v[0]);
  if (v.size() != dims) {
    return c.invalid(name + " must have " + std::to_string(dims) + " value" +
                     (dims == 1 ? "" : "s") + ", got " + ir::shape_to_string(v));
  }
  return v;
}

struct ConvArgs {
  ValueId x, w;
  std::optional<ValueId> bias;
  IntList stride, dilation;
  std::variant<IntList, std::string> padding;  ///< per spatial dim, or "same" / "valid"
  int64_t groups = 1;
  bool transposed = false;
  IntList output_padding = {0};  ///< transposed only
};

/// Stride, dilation, output padding and padding (before and after) per spatial dim.
struct ConvDims {
  IntList stride, dilation, output_padding, before, after;
};

Expected<ConvDims> conv_dims(const Ctx& c, const ConvArgs& a, const ir::TensorType& wt,
                             size_t dims) {
  ConvDims r;
  INFERNO_ASSIGN_OR_RETURN(r.stride, per_dim(c, "stride", a.stride, dims));
  INFERNO_ASSIGN_OR_RETURN(r.dilation, per_dim(c, "dilation", a.dilation, dims));
  INFERNO_ASSIGN_OR_RETURN(r.output_padding, per_dim(c, "output_padding", a.output_padding, dims));
  r.before.assign(dims, 0);
  r.after.assign(dims, 0);
  if (a.transposed && std::holds_alternative<std::string>(a.padding)) {
    return c.invalid("a transposed convolution takes integer padding only");
  }
  if (const auto* mode = std::get_if<std::string>(&a.padding)) {
    if (*mode == "same") {
      for (size_t i = 0; i < dims; ++i) {
        if (r.stride[i] != 1) return c.invalid("padding='same' needs stride 1");
        // dilation and kernel are bounded by the shape rule later; this product fits int64
        // for any values below 2^31, and larger ones are refused there
        const int64_t k = wt.shape[2 + i], d = r.dilation[i];
        if (k < 1 || d < 1 || k > (int64_t{1} << 31) || d > (int64_t{1} << 31)) {
          return c.invalid("kernel " + wt.to_string() + " or dilation out of range");
        }
        const int64_t total = d * (k - 1);
        r.before[i] = total / 2;
        r.after[i] = total - r.before[i];
      }
    } else if (*mode != "valid") {
      return c.invalid("padding must be 'same', 'valid' or integers, got '" + *mode + "'");
    }
  } else {
    INFERNO_ASSIGN_OR_RETURN(r.before, per_dim(c, "padding", std::get<IntList>(a.padding), dims));
    r.after = r.before;
  }
  return r;
}

/// A 3-D convolution of x [N, C, T, H, W] (or unbatched [C, T, H, W]) by w [Co, C/g, KT, KH, KW]:
/// the frames go into the batch ([N T', C, H, W], padded along T first), and each temporal tap
/// k is a conv2d of the frames k * dt, k * dt + st, ... by w[:, :, k]; the taps' outputs are
/// summed (the bias added by the first) and the result put back as [N, Co, T', H', W'].
Outputs build_conv3d(Ctx& c, const ConvArgs& a, const ir::TensorType& xt,
                     const ir::TensorType& wt) {
  if (a.transposed) return c.unsupported_arg("3-D transposed convolutions are not supported");
  if (xt.rank() != 5 && xt.rank() != 4) {
    return c.invalid("input " + xt.to_string() + " does not match weight " + wt.to_string());
  }
  INFERNO_ASSIGN_OR_RETURN(const ConvDims r, conv_dims(c, a, wt, 3));
  ir::Shape x5 = xt.shape;
  if (xt.rank() == 4) x5.insert(x5.begin(), 1);
  const int64_t n = x5[0], channels = x5[1], frames = x5[2], taps = wt.shape[2];
  const int64_t st = r.stride[0], dt = r.dilation[0];
  if (st < 1 || dt < 1 || taps < 1 || r.before[0] < 0 || r.after[0] < 0) {
    return c.invalid("stride, dilation, kernel and padding of the time dim must be positive");
  }
  const int64_t span = dt * (taps - 1) + 1, padded = frames + r.before[0] + r.after[0];
  if (padded < span) {
    return c.invalid("the input's " + std::to_string(padded) +
                     " frames (padded) are fewer than the kernel spans (" + std::to_string(span) +
                     ")");
  }
  const int64_t out_frames = (padded - span) / st + 1;
  INFERNO_ASSIGN_OR_RETURN(const Frames f, frames_first(c, a.x));
  ValueId x = f.x;
  if (r.before[0] > 0 || r.after[0] > 0) {
    const ValueId zero = ir::add_scalar_constant(c.g, 0.0, xt.dtype, c.name("zero"));
    INFERNO_ASSIGN_OR_RETURN(x, c.build(OpKind::kConstantPad, {x, zero},
                                        attrs({{"before", IntList{0, r.before[0], 0, 0, 0}},
                                               {"after", IntList{0, r.after[0], 0, 0, 0}}}),
                                        "frames_padded"));
  }
  const ir::Attributes conv_attrs =
      attrs({{"stride", IntList{r.stride[1], r.stride[2]}},
             {"dilation", IntList{r.dilation[1], r.dilation[2]}},
             {"groups", a.groups},
             {"padding", IntList{r.before[1], r.before[2], r.after[1], r.after[2]}}});
  std::optional<ValueId> sum;
  for (int64_t k = 0; k < taps; ++k) {
    const std::string tap = "tap" + std::to_string(k);
    INFERNO_ASSIGN_OR_RETURN(
        ValueId frames_k,
        slice_dim(c, x, 1, k * dt, k * dt + (out_frames - 1) * st + 1, st, tap + "_frames"));
    INFERNO_ASSIGN_OR_RETURN(
        frames_k, c.build(OpKind::kReshape, {frames_k},
                          attrs({{"shape", ir::Shape{n * out_frames, channels, x5[3], x5[4]}}}),
                          tap + "_batch"));
    INFERNO_ASSIGN_OR_RETURN(ValueId w_k, slice_dim(c, a.w, 2, k, k + 1, 1, tap + "_weight"));
    INFERNO_ASSIGN_OR_RETURN(
        w_k,
        c.build(OpKind::kReshape, {w_k},
                attrs({{"shape", ir::Shape{wt.shape[0], wt.shape[1], wt.shape[3], wt.shape[4]}}}),
                tap + "_weight2d"));
    std::vector<ValueId> in = {frames_k, w_k};
    if (k == 0 && a.bias) in.push_back(*a.bias);
    INFERNO_ASSIGN_OR_RETURN(const ValueId y,
                             c.build(OpKind::kConv2d, std::move(in), conv_attrs, tap + "_conv2d"));
    if (sum) {
      INFERNO_ASSIGN_OR_RETURN(sum, c.build(OpKind::kAdd, {*sum, y}, {}, tap + "_sum"));
    } else {
      sum = y;
    }
  }
  const ir::Shape planes = c.type(*sum).shape;  // [N T', Co, H', W']
  INFERNO_ASSIGN_OR_RETURN(
      const ValueId y,
      c.build(OpKind::kReshape, {*sum},
              attrs({{"shape", ir::Shape{n, out_frames, planes[1], planes[2], planes[3]}}}),
              "output_frames"));
  return frames_last(c, y, f.batched);
}

/// Reshapes to 4-D where needed, builds the conv2d and reshapes its result back.
Outputs build_conv(Ctx& c, const ConvArgs& a) {
  // Copies: building nodes below grows the graph and may move its values.
  const ir::TensorType xt = c.type(a.x), wt = c.type(a.w);
  if (wt.rank() == 5) return build_conv3d(c, a, xt, wt);
  if (wt.rank() != 3 && wt.rank() != 4) {
    return c.invalid("expects a 3-D (conv1d), 4-D (conv2d) or 5-D (conv3d) weight, got " +
                     wt.to_string());
  }
  const auto dims = static_cast<size_t>(wt.rank() - 2);
  const bool batched = xt.rank() == wt.rank();
  if (!batched && xt.rank() != wt.rank() - 1) {
    return c.invalid("input " + xt.to_string() + " does not match weight " + wt.to_string());
  }
  INFERNO_ASSIGN_OR_RETURN(ConvDims r, conv_dims(c, a, wt, dims));
  IntList stride = std::move(r.stride), dilation = std::move(r.dilation),
          output_padding = std::move(r.output_padding), before = std::move(r.before),
          after = std::move(r.after);
  // To 4-D: conv1d gets an H of 1 (kernel 1, stride 1, no padding, dilation 1).
  if (dims == 1) {
    stride.insert(stride.begin(), 1);
    dilation.insert(dilation.begin(), 1);
    output_padding.insert(output_padding.begin(), 0);
    before.insert(before.begin(), 0);
    after.insert(after.begin(), 0);
  }
  ir::Shape x4 = xt.shape, w4 = wt.shape;
  if (!batched) x4.insert(x4.begin(), 1);
  if (dims == 1) {
    x4.insert(x4.end() - 1, 1);
    w4.insert(w4.end() - 1, 1);
  }
  ValueId x = a.x, w = a.w;
  if (x4 != xt.shape) {
    INFERNO_ASSIGN_OR_RETURN(x, c.build(OpKind::kReshape, {x}, attrs({{"shape", x4}}), "input4d"));
  }
  if (w4 != wt.shape) {
    INFERNO_ASSIGN_OR_RETURN(w, c.build(OpKind::kReshape, {w}, attrs({{"shape", w4}}), "weight4d"));
  }
  std::vector<ValueId> in = {x, w};
  if (a.bias) in.push_back(*a.bias);
  const bool reshape_out = dims == 1 || !batched;
  ir::Attributes conv_attrs =
      attrs({{"stride", stride}, {"dilation", dilation}, {"groups", a.groups}});
  if (a.transposed) {
    conv_attrs.set("padding", before);
    conv_attrs.set("output_padding", output_padding);
  } else {
    conv_attrs.set("padding", IntList{before[0], before[1], after[0], after[1]});
  }
  const OpKind op = a.transposed ? OpKind::kConvTranspose2d : OpKind::kConv2d;
  INFERNO_ASSIGN_OR_RETURN(ValueId y, c.build(op, std::move(in), std::move(conv_attrs),
                                              reshape_out ? ir::op_name(op) : ""));
  if (!reshape_out) return std::vector<ValueId>{y};
  ir::Shape shape = c.type(y).shape;
  if (dims == 1) shape.erase(shape.end() - 2);
  if (!batched) shape.erase(shape.begin());
  return one(c.build(OpKind::kReshape, {y}, attrs({{"shape", shape}})));
}

ConvArgs common_args(const Ctx& c) {
  ConvArgs a;
  a.x = c.a.tensor("input");
  a.w = c.a.tensor("weight");
  a.bias = c.a.opt_tensor("bias");
  a.stride = c.a.get_ints("stride");
  a.dilation = c.a.get_ints("dilation");
  a.groups = c.a.get_int("groups");
  if (c.a.has("output_padding")) a.output_padding = c.a.get_ints("output_padding");
  if (const auto* mode = std::get_if<std::string>(&c.a.get("padding"))) {
    a.padding = *mode;
  } else {
    a.padding = c.a.get_ints("padding");
  }
  return a;
}

// aten::conv3d / aten::conv2d / aten::conv1d: `rank` is the weight's (5, 4 or 3).
Builder conv_nd(int64_t rank) {
  return [rank](Ctx& c) -> Outputs {
    const ConvArgs a = common_args(c);
    if (c.type(a.w).rank() != rank) {
      return c.invalid("expects a " + std::to_string(rank) + "-D weight, got " +
                       c.type(a.w).to_string());
    }
    return build_conv(c, a);
  };
}

// aten::_convolution_mode: TorchScript's trace of a string padding; any rank.
Outputs convolution_mode(Ctx& c) { return build_conv(c, common_args(c)); }

// aten::conv_transpose2d / aten::conv_transpose1d: `rank` is the weight's (4 or 3).
Builder conv_transpose_nd(int64_t rank) {
  return [rank](Ctx& c) -> Outputs {
    ConvArgs a = common_args(c);
    a.transposed = true;
    if (c.type(a.w).rank() != rank) {
      return c.invalid("expects a " + std::to_string(rank) + "-D weight, got " +
                       c.type(a.w).to_string());
    }
    return build_conv(c, a);
  };
}

// aten::_convolution and aten::convolution.
Outputs convolution(Ctx& c) {
  ConvArgs a = common_args(c);
  a.transposed = c.a.get_bool("transposed");
  return build_conv(c, a);
}

}  // namespace

void add_conv_entries(std::vector<OpEntry>& table) {
  const Schema head = {arg("input", T), arg("weight", T), opt("bias", T)};
  auto with = [](Schema s, const Schema& more) {
    s.insert(s.end(), more.begin(), more.end());
    return s;
  };
  const Schema ints_padding =
      with(head, {arg("stride", Ints, IntList{1}), arg("padding", Ints, IntList{0}),
                  arg("dilation", Ints, IntList{1}), arg("groups", Int, int64_t{1})});
  const Schema string_padding =
      with(head, {arg("stride", Ints, IntList{1}), arg("padding", Str, std::string("valid")),
                  arg("dilation", Ints, IntList{1}), arg("groups", Int, int64_t{1})});
  // conv_transpose{1,2}d.input: groups before dilation
  const Schema transpose_schema =
      with(head, {arg("stride", Ints, IntList{1}), arg("padding", Ints, IntList{0}),
                  arg("output_padding", Ints, IntList{0}), arg("groups", Int, int64_t{1}),
                  arg("dilation", Ints, IntList{1})});
  const Schema convolution_schema =
      with(head, {arg("stride", Ints), arg("padding", Ints), arg("dilation", Ints),
                  arg("transposed", Bool), arg("output_padding", Ints), arg("groups", Int)});
  table.insert(table.end(),
               {
                   {"aten::conv2d", "padding", string_padding, conv_nd(4)},
                   {"aten::conv2d", "", ints_padding, conv_nd(4)},
                   {"aten::conv1d", "padding", string_padding, conv_nd(3)},
                   {"aten::conv3d", "padding", string_padding, conv_nd(5)},
                   {"aten::conv3d", "", ints_padding, conv_nd(5)},
                   {"aten::conv1d", "", ints_padding, conv_nd(3)},
                   {"aten::_convolution_mode", "", string_padding, convolution_mode},
                   {"aten::conv_transpose2d", "", transpose_schema, conv_transpose_nd(4)},
                   {"aten::conv_transpose1d", "", transpose_schema, conv_transpose_nd(3)},
                   {"aten::convolution", "", convolution_schema, convolution},
                   // benchmark, deterministic, cudnn_enabled, allow_tf32: backend hints
                   {"aten::_convolution", "",
                    with(convolution_schema,
                         {arg("benchmark", Any, false), arg("deterministic", Any, false),
                          arg("cudnn_enabled", Any, false), arg("allow_tf32", Any, false)}),
                    convolution},
               });
}

}  // namespace inferno::frontend::aten
