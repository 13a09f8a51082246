// Reference kernels of the convolution family: conv2d and conv_transpose2d (below). Per image and
// group, a tile of output positions is unfolded (im2col: one row per (channel, ky, kx) of the
// group's kernel, zeros where the window reads padding), then multiplied by the group's weights as
// a GEMM whose inner loop runs over the tile's positions (contiguous, so it vectorizes) for four
// output channels at a time. Everything is in double; each output sums its products in (channel,
// ky, kx) order from zero, then adds the bias, the residual and applies the activation, and is
// rounded once to the output dtype. The gate scales the input as it is read into double, and
// nhwc tensors are read and written through their own index order. The tile keeps the unfolded
// block near 1 MB, so memory stays bounded by the tensors' own sizes.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "reference/kernels.h"
#include "support/check.h"

namespace inferno::reference::detail {
namespace {

std::vector<double> to_doubles(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = t.get(i);
  return v;
}

struct ConvDims {
  int64_t n, c, h, w;      // input
  int64_t o, kh, kw;       // weight (channels per group: c / groups)
  int64_t oh, ow;          // output
  int64_t sh, sw, pt, pl;  // stride, padding before (top, left)
  int64_t dh, dw, groups;  // dilation, groups
};

// col[k * tile + j] for k = (ci, ky, kx) of group g and output positions p0 .. p0 + tile - 1.
void unfold(const std::vector<double>& x, const ConvDims& d, int64_t image, int64_t g, int64_t p0,
            int64_t tile, std::vector<double>& col) {
  const int64_t cg = d.c / d.groups;
  int64_t k = 0;
  for (int64_t ci = 0; ci < cg; ++ci) {
    const double* plane = x.data() + ((image * d.c + g * cg + ci) * d.h) * d.w;
    for (int64_t ky = 0; ky < d.kh; ++ky) {
      for (int64_t kx = 0; kx < d.kw; ++kx, ++k) {
        double* row = col.data() + k * tile;
        for (int64_t j = 0; j < tile; ++j) {
          const int64_t p = p0 + j, y = (p / d.ow) * d.sh - d.pt + ky * d.dh,
                        xx = (p % d.ow) * d.sw - d.pl + kx * d.dw;
          row[j] = (y >= 0 && y < d.h && xx >= 0 && xx < d.w) ? plane[y * d.w + xx] : 0.0;
        }
      }
    }
  }
}

// x as NCHW doubles, each input channel (n, c) scaled by the gate where there is one (the gate
// is [N, C, 1, 1] or [N, 1, 1, C]: element n * C + c either way).
std::vector<double> input_nchw(const Tensor& x, const Tensor* gate, bool nhwc) {
  const Shape& s = x.type.shape;
  const int64_t n_size = s[0], c_size = s[nhwc ? 3 : 1], hw = s[nhwc ? 1 : 2] * s[nhwc ? 2 : 3];
  std::vector<double> v(static_cast<size_t>(x.numel()));
  for (int64_t n = 0; n < n_size; ++n) {
    for (int64_t c = 0; c < c_size; ++c) {
      const double g = gate != nullptr ? gate->get(n * c_size + c) : 1.0;
      double* plane = v.data() + (n * c_size + c) * hw;
      for (int64_t p = 0; p < hw; ++p) {
        const double e = x.get(nhwc ? (n * hw + p) * c_size + c : (n * c_size + c) * hw + p);
        plane[p] = gate != nullptr ? e * g : e;
      }
    }
  }
  return v;
}

// w as OIHW doubles (from OHWI for nhwc).
std::vector<double> weight_oihw(const Tensor& w, bool nhwc) {
  if (!nhwc) return to_doubles(w);
  const Shape& s = w.type.shape;  // [O, kh, kw, C / groups]
  const int64_t o_size = s[0], taps = s[1] * s[2], cg = s[3];
  std::vector<double> v(static_cast<size_t>(w.numel()));
  for (int64_t o = 0; o < o_size; ++o) {
    for (int64_t t = 0; t < taps; ++t) {
      for (int64_t ci = 0; ci < cg; ++ci) {
        v[static_cast<size_t>((o * cg + ci) * taps + t)] = w.get((o * taps + t) * cg + ci);
      }
    }
  }
  return v;
}

}  // namespace

// The epilogue is applied per output as the contract says: the sum, then + bias, + residual, then
// the activation (the elementwise op's own expression), rounded once on store.
Tensor conv2d(const std::vector<const Tensor*>& in, const ir::Attributes& attrs,
              const TensorType& out) {
  const Tensor &x = *in[0], &w = *in[1];
  const bool nhwc = attrs.get_string("layout") == "nhwc", has_residual = attrs.get_bool("residual"),
             has_gate = attrs.get_bool("gate");
  const Tensor* bias = in.size() > 2 ? in[2] : nullptr;
  const Tensor* residual = has_residual ? in[3] : nullptr;
  const Tensor* gate = has_gate ? in[has_residual ? 4 : 3] : nullptr;
  ScalarFn activation = nullptr;
  if (const std::string& name = attrs.get_string("activation"); name != "none") {
    const std::optional<ir::OpKind> op = ir::parse_op_name(name);
    INFERNO_CHECK(op.has_value(), "conv2d: unknown activation " + name);
    activation = elementwise_scalar(*op);
  }
  const ir::IntList &stride = attrs.get_ints("stride"), &padding = attrs.get_ints("padding"),
                    &dilation = attrs.get_ints("dilation");
  const Shape &xs = x.type.shape, &ws = w.type.shape, &ys = out.shape;
  // Sizes by meaning (ops.def: which dim holds what in each layout).
  const int64_t kh = ws[nhwc ? 1 : 2], kw = ws[nhwc ? 2 : 3], cg = ws[nhwc ? 3 : 1];
  const ConvDims d{xs[0],
                   xs[nhwc ? 3 : 1],
                   xs[nhwc ? 1 : 2],
                   xs[nhwc ? 2 : 3],
                   ws[0],
                   kh,
                   kw,
                   ys[nhwc ? 1 : 2],
                   ys[nhwc ? 2 : 3],
                   stride[0],
                   stride[1],
                   padding[0],
                   padding[1],
                   dilation[0],
                   dilation[1],
                   attrs.get_int("groups")};
  INFERNO_CHECK(ys[0] == d.n && ys[nhwc ? 3 : 1] == d.o && cg * d.groups == d.c,
                "conv2d shapes do not match");
  const std::vector<double> xv = input_nchw(x, gate, nhwc), wv = weight_oihw(w, nhwc);
  const int64_t og = d.o / d.groups, k_size = cg * d.kh * d.kw, positions = d.oh * d.ow;
  // Positions per tile: the unfolded block about 1 MB, but at least 64 positions a row.
  const int64_t tile_max = std::max<int64_t>(64, (int64_t{1} << 17) / std::max<int64_t>(k_size, 1));
  std::vector<double> col, acc;
  Tensor y = Tensor::zeros(out);
  for (int64_t image = 0; image < d.n; ++image) {
    for (int64_t g = 0; g < d.groups; ++g) {
      for (int64_t p0 = 0; p0 < positions; p0 += tile_max) {
        const int64_t tile = std::min(tile_max, positions - p0);
        col.assign(static_cast<size_t>(k_size * tile), 0.0);
        unfold(xv, d, image, g, p0, tile, col);
        for (int64_t o0 = 0; o0 < og; o0 += 4) {
          const int64_t rows = std::min<int64_t>(4, og - o0);
          acc.assign(static_cast<size_t>(4 * tile), 0.0);
          double *a0 = acc.data(), *a1 = a0 + tile, *a2 = a1 + tile, *a3 = a2 + tile;
          const double* wrow = wv.data() + (g * og + o0) * k_size;
          for (int64_t k = 0; k < k_size; ++k) {
            const double* c = col.data() + k * tile;
            // Rows past `rows` multiply by 0 into accumulators that are never stored.
            const double w0 = wrow[k], w1 = rows > 1 ? wrow[k_size + k] : 0,
                         w2 = rows > 2 ? wrow[2 * k_size + k] : 0,
                         w3 = rows > 3 ? wrow[3 * k_size + k] : 0;
            for (int64_t j = 0; j < tile; ++j) {
              a0[j] += w0 * c[j];
              a1[j] += w1 * c[j];
              a2[j] += w2 * c[j];
              a3[j] += w3 * c[j];
            }
          }
          for (int64_t r = 0; r < rows; ++r) {
            const int64_t o = g * og + o0 + r;
            const double b = bias != nullptr ? bias->get(o) : 0.0;
            for (int64_t j = 0; j < tile; ++j) {
              const int64_t p = p0 + j;
              const int64_t at =
                  nhwc ? (image * positions + p) * d.o + o : (image * d.o + o) * positions + p;
              // Absent terms are not added (adding 0.0 would turn -0.0 into +0.0).
              double v = acc[static_cast<size_t>(r * tile + j)];
              if (bias != nullptr) v += b;
              if (residual != nullptr) v += residual->get(at);
              if (activation != nullptr) v = activation(&v);
              store(y, at, v);
            }
          }
        }
      }
    }
  }
  return y;
}

// The transposed convolution as a scatter: every input element adds x * w[ci, o, ky, kx] into
// output (iy * s - p + ky * d, ix * s - p + kx * d) where that lies inside the output; sums in
// double from zero, the bias last, rounded once.
Tensor conv_transpose2d(const Tensor& x, const Tensor& w, const Tensor* bias,
                        const ir::Attributes& attrs, const TensorType& out) {
  const ir::IntList &stride = attrs.get_ints("stride"), &padding = attrs.get_ints("padding"),
                    &dilation = attrs.get_ints("dilation");
  const int64_t groups = attrs.get_int("groups");
  const Shape &xs = x.type.shape, &ws = w.type.shape;
  const int64_t n_size = xs[0], c = xs[1], h = xs[2], wd = xs[3], og = ws[1], kh = ws[2],
                kw = ws[3], o_size = out.shape[1], oh = out.shape[2], ow = out.shape[3];
  const int64_t cg = c / groups;
  INFERNO_CHECK(ws[0] == c && og * groups == o_size && out.shape[0] == n_size,
                "conv_transpose2d shapes do not match");
  const std::vector<double> xv = to_doubles(x), wv = to_doubles(w);
  std::vector<double> acc(static_cast<size_t>(out.numel()), 0.0);
  for (int64_t n = 0; n < n_size; ++n) {
    for (int64_t ci = 0; ci < c; ++ci) {
      const int64_t g = ci / cg;
      for (int64_t iy = 0; iy < h; ++iy) {
        for (int64_t ix = 0; ix < wd; ++ix) {
          const double xval = xv[static_cast<size_t>(((n * c + ci) * h + iy) * wd + ix)];
          for (int64_t oc = 0; oc < og; ++oc) {
            const double* wk = wv.data() + (ci * og + oc) * kh * kw;
            double* plane = acc.data() + (n * o_size + g * og + oc) * oh * ow;
            for (int64_t ky = 0; ky < kh; ++ky) {
              const int64_t oy = iy * stride[0] - padding[0] + ky * dilation[0];
              if (oy < 0 || oy >= oh) continue;
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t ox = ix * stride[1] - padding[1] + kx * dilation[1];
                if (ox >= 0 && ox < ow) plane[oy * ow + ox] += xval * wk[ky * kw + kx];
              }
            }
          }
        }
      }
    }
  }
  Tensor y = Tensor::zeros(out);
  const int64_t plane_size = oh * ow;
  for (int64_t i = 0; i < out.numel(); ++i) {
    const double v = acc[static_cast<size_t>(i)];
    store(y, i, bias != nullptr ? v + bias->get((i / plane_size) % o_size) : v);
  }
  return y;
}

void register_conv_kernels(KernelTable& table) {
  table.add(ir::OpKind::kConvTranspose2d,
            [](const ir::Node& node, const std::vector<const Tensor*>& in,
               const TensorType& out) -> Expected<Tensor> {
              return conv_transpose2d(*in[0], *in[1], in.size() > 2 ? in[2] : nullptr, node.attrs,
                                      out);
            });
  table.add(ir::OpKind::kConv2d,
            [](const ir::Node& node, const std::vector<const Tensor*>& in,
               const TensorType& out) -> Expected<Tensor> { return conv2d(in, node.attrs, out); });
}

}  // namespace inferno::reference::detail
