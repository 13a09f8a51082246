// Reference kernels of the convolution family: conv2d and conv_transpose2d (below). Per image and
// group, a tile of output positions is unfolded (im2col: one row per (channel, ky, kx) of the
// group's kernel, zeros where the window reads padding), then multiplied by the group's weights as
// a GEMM whose inner loop runs over the tile's positions (contiguous, so it vectorizes) for four
// output channels at a time. Everything is in double; each output sums its products in (channel,
// ky, kx) order from zero, adds the bias last and is rounded once to the output dtype. The tile
// keeps the unfolded block near 1 MB, so memory stays bounded by the tensors' own sizes.
#include <algorithm>
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

}  // namespace

Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor* bias, const ir::Attributes& attrs,
              const TensorType& out) {
  const ir::IntList &stride = attrs.get_ints("stride"), &padding = attrs.get_ints("padding"),
                    &dilation = attrs.get_ints("dilation");
  const Shape &xs = x.type.shape, &ws = w.type.shape;
  const ConvDims d{xs[0],        xs[1],       xs[2],       xs[3],
                   ws[0],        ws[2],       ws[3],       out.shape[2],
                   out.shape[3], stride[0],   stride[1],   padding[0],
                   padding[1],   dilation[0], dilation[1], attrs.get_int("groups")};
  INFERNO_CHECK(out.shape[0] == d.n && out.shape[1] == d.o && ws[1] * d.groups == d.c,
                "conv2d shapes do not match");
  const std::vector<double> xv = to_doubles(x), wv = to_doubles(w);
  const int64_t og = d.o / d.groups, k_size = ws[1] * d.kh * d.kw, positions = d.oh * d.ow;
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
            const int64_t base = (image * d.o + o) * positions + p0;
            for (int64_t j = 0; j < tile; ++j) {
              const double v = acc[static_cast<size_t>(r * tile + j)];
              store(y, base + j, bias != nullptr ? v + b : v);
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
               const TensorType& out) -> Expected<Tensor> {
              return conv2d(*in[0], *in[1], in.size() > 2 ? in[2] : nullptr, node.attrs, out);
            });
}

}  // namespace inferno::reference::detail
