// Reference kernels of the joins and gathers: cat, constant_pad and index_select, exact for every
// dtype (elements are copied as bytes; the fill is the rank-0 input's bytes).
#include <algorithm>
#include <cstring>

#include "reference/kernels.h"
#include "support/check.h"

namespace inferno::reference::detail {

Tensor cat(const std::vector<const Tensor*>& in, int64_t dim, const TensorType& out) {
  Tensor y = Tensor::zeros(out);
  const size_t elem = static_cast<size_t>(ir::dtype_size(out.dtype));
  int64_t outer = 1, inner = 1;  // out viewed as [outer, total, inner]
  for (int64_t d = 0; d < out.rank(); ++d) {
    if (d < dim) outer *= out.shape[static_cast<size_t>(d)];
    if (d > dim) inner *= out.shape[static_cast<size_t>(d)];
  }
  const int64_t total = out.shape[static_cast<size_t>(dim)];
  int64_t offset = 0;  // where this input starts along dim
  for (const Tensor* t : in) {
    const int64_t size = t->type.shape[static_cast<size_t>(dim)];
    const size_t row = static_cast<size_t>(size * inner) * elem;
    for (int64_t o = 0; o < outer && row > 0; ++o) {
      std::memcpy(y.data.data() + static_cast<size_t>((o * total + offset) * inner) * elem,
                  t->data.data() + static_cast<size_t>(o) * row, row);
    }
    offset += size;
  }
  INFERNO_CHECK(offset == total, "cat: sizes do not add up");
  return y;
}

Tensor constant_pad(const Tensor& x, const Tensor& fill, const ir::IntList& before,
                    const TensorType& out) {
  Tensor y = Tensor::zeros(out);
  const size_t elem = static_cast<size_t>(ir::dtype_size(out.dtype));
  const std::vector<int64_t> in_strides = ir::contiguous_strides(x.type.shape);
  for (int64_t i = 0; i < out.numel(); ++i) {
    int64_t rest = i, src = 0;
    bool inside = true;
    for (size_t d = out.shape.size(); d-- > 0;) {
      const int64_t k = rest % out.shape[d] - before[d];  // the input index along d
      rest /= out.shape[d];
      inside = inside && k >= 0 && k < x.type.shape[d];
      src += k * in_strides[d];
    }
    const std::byte* from =
        inside ? x.data.data() + static_cast<size_t>(src) * elem : fill.data.data();
    std::memcpy(y.data.data() + static_cast<size_t>(i) * elem, from, elem);
  }
  return y;
}

// index_select: each picked slice copied as bytes (exact for every dtype); the index wraps once
// when negative and is then clamped into the dim, as the CUDA kernel does.
Tensor index_select(const Tensor& x, const Tensor& index, int64_t dim, const TensorType& out) {
  const ir::Shape& s = x.type.shape;
  INFERNO_CHECK(dim >= 0 && dim < static_cast<int64_t>(s.size()), "index_select: bad dim");
  const int64_t size = s[static_cast<size_t>(dim)];
  const int64_t outer = ir::shape_numel(ir::Shape(s.begin(), s.begin() + dim));
  const int64_t inner = ir::shape_numel(ir::Shape(s.begin() + dim + 1, s.end()));
  const int64_t bytes = inner * ir::dtype_size(x.type.dtype), count = index.numel();
  Tensor y = Tensor::zeros(out);
  for (int64_t p = 0; p < count; ++p) {
    double v = index.get(p);  // clamped as a double: no overflowing conversion
    if (v < 0) v += static_cast<double>(size);
    const auto r = static_cast<int64_t>(std::clamp(v, 0.0, static_cast<double>(size - 1)));
    for (int64_t o = 0; o < outer; ++o) {
      std::memcpy(y.data.data() + (o * count + p) * bytes, x.data.data() + (o * size + r) * bytes,
                  static_cast<size_t>(bytes));
    }
  }
  return y;
}

// index_copy: x's bytes, then each source slice copied over the row its index names (wrapped once
// when negative); an index still out of range writes nothing, as the CUDA kernel does.
Tensor index_copy(const Tensor& x, const Tensor& index, const Tensor& source, int64_t dim) {
  const ir::Shape& s = x.type.shape;
  const int64_t size = s[static_cast<size_t>(dim)];
  const int64_t outer = ir::shape_numel(ir::Shape(s.begin(), s.begin() + dim));
  const int64_t inner = ir::shape_numel(ir::Shape(s.begin() + dim + 1, s.end()));
  const int64_t bytes = inner * ir::dtype_size(x.type.dtype), count = index.numel();
  Tensor y = x;
  for (int64_t p = 0; p < count; ++p) {
    double v = index.get(p);
    if (v < 0) v += static_cast<double>(size);
    if (v < 0 || v >= static_cast<double>(size)) continue;
    const auto r = static_cast<int64_t>(v);
    for (int64_t o = 0; o < outer; ++o) {
      std::memcpy(y.data.data() + (o * size + r) * bytes,
                  source.data.data() + (o * count + p) * bytes, static_cast<size_t>(bytes));
    }
  }
  return y;
}

void register_join_kernels(KernelTable& table) {
  table.add(ir::OpKind::kIndexCopy,
            [](const ir::Node& node, const std::vector<const Tensor*>& in,
               const TensorType&) -> Expected<Tensor> {
              return index_copy(*in[0], *in[1], *in[2], node.attrs.get_int("dim"));
            });
  table.add(ir::OpKind::kIndexSelect,
            [](const ir::Node& node, const std::vector<const Tensor*>& in,
               const TensorType& out) -> Expected<Tensor> {
              return index_select(*in[0], *in[1], node.attrs.get_int("dim"), out);
            });
  table.add(ir::OpKind::kCat,
            [](const ir::Node& node, const std::vector<const Tensor*>& in, const TensorType& out)
                -> Expected<Tensor> { return cat(in, node.attrs.get_int("dim"), out); });
  table.add(ir::OpKind::kConstantPad,
            [](const ir::Node& node, const std::vector<const Tensor*>& in,
               const TensorType& out) -> Expected<Tensor> {
              return constant_pad(*in[0], *in[1], node.attrs.get_ints("before"), out);
            });
}

}  // namespace inferno::reference::detail
