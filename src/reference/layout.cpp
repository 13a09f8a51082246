// Reference kernels for layout ops (reshape, transpose, permute, expand, slice) and the
// broadcasting index helper. Each output element is copied byte for byte from the source element
// that a StridedIndex picks, so these ops are exact for every dtype.
#include <cstring>

#include "reference/kernels.h"
#include "support/check.h"

namespace inferno::reference::detail {
namespace {

/// out[i] = x[base + index(i)] for every flat output index i.
Tensor gather(const Tensor& x, const TensorType& out, const StridedIndex& index, int64_t base = 0) {
  INFERNO_CHECK(x.type.dtype == out.dtype, "layout op changes the dtype");
  Tensor y = Tensor::zeros(out);
  const int64_t size = ir::dtype_size(out.dtype);
  for (int64_t i = 0; i < y.numel(); ++i) {
    std::memcpy(y.data.data() + i * size, x.data.data() + (base + index(i)) * size,
                static_cast<size_t>(size));
  }
  return y;
}

/// x[starts : ends : steps]: x's strides times the steps, from the element at the starts.
Tensor slice(const Tensor& x, const ir::Attributes& attrs, const TensorType& out) {
  const ir::IntList &starts = attrs.get_ints("starts"), &steps = attrs.get_ints("steps");
  INFERNO_CHECK(starts.size() == x.type.shape.size() && steps.size() == starts.size(),
                "slice bounds do not match the rank");
  const std::vector<int64_t> x_strides = ir::contiguous_strides(x.type.shape);
  StridedIndex index{out.shape, {}};
  int64_t base = 0;
  for (size_t d = 0; d < starts.size(); ++d) {
    index.strides.push_back(x_strides[d] * steps[d]);
    base += starts[d] * x_strides[d];
  }
  return gather(x, out, index, out.numel() == 0 ? 0 : base);
}

}  // namespace

StridedIndex broadcast_index(const Shape& from, const Shape& to) {
  INFERNO_CHECK(from.size() <= to.size(),
                "cannot broadcast " + ir::shape_to_string(from) + " to " + ir::shape_to_string(to));
  const std::vector<int64_t> from_strides = ir::contiguous_strides(from);
  const size_t lead = to.size() - from.size();
  StridedIndex index{to, std::vector<int64_t>(to.size(), 0)};
  for (size_t d = 0; d < from.size(); ++d) {
    INFERNO_CHECK(
        from[d] == to[lead + d] || from[d] == 1,
        "cannot broadcast " + ir::shape_to_string(from) + " to " + ir::shape_to_string(to));
    if (from[d] != 1) index.strides[lead + d] = from_strides[d];
  }
  return index;
}

Tensor reshape(const Tensor& x, const TensorType& out) {
  INFERNO_CHECK(x.type.dtype == out.dtype && x.numel() == out.numel(),
                "reshape changes the element count");
  Tensor y;
  y.type = out;
  y.data = x.data;  // row-major data is unchanged
  return y;
}

Tensor permute(const Tensor& x, const ir::IntList& dims, const TensorType& out) {
  INFERNO_CHECK(dims.size() == x.type.shape.size(), "permute dims do not match the rank");
  const std::vector<int64_t> x_strides = ir::contiguous_strides(x.type.shape);
  StridedIndex index{out.shape, {}};
  for (int64_t d : dims)
    index.strides.push_back(x_strides[static_cast<size_t>(d)]);  // out dim i = x dim dims[i]
  return gather(x, out, index);
}

Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1, const TensorType& out) {
  ir::IntList dims(x.type.shape.size());
  for (size_t d = 0; d < dims.size(); ++d) dims[d] = static_cast<int64_t>(d);
  std::swap(dims[static_cast<size_t>(dim0)], dims[static_cast<size_t>(dim1)]);
  return permute(x, dims, out);
}

Tensor expand(const Tensor& x, const TensorType& out) {
  return gather(x, out, broadcast_index(x.type.shape, out.shape));
}

void register_layout_kernels(KernelTable& table) {
  table.add(ir::OpKind::kReshape,
            [](const ir::Node&, const std::vector<const Tensor*>& in,
               const TensorType& out) -> Expected<Tensor> { return reshape(*in[0], out); });
  table.add(ir::OpKind::kTranspose,
            [](const ir::Node& node, const std::vector<const Tensor*>& in,
               const TensorType& out) -> Expected<Tensor> {
              return transpose(*in[0], node.attrs.get_int("dim0"), node.attrs.get_int("dim1"), out);
            });
  table.add(ir::OpKind::kPermute,
            [](const ir::Node& node, const std::vector<const Tensor*>& in, const TensorType& out)
                -> Expected<Tensor> { return permute(*in[0], node.attrs.get_ints("dims"), out); });
  table.add(ir::OpKind::kExpand,
            [](const ir::Node&, const std::vector<const Tensor*>& in,
               const TensorType& out) -> Expected<Tensor> { return expand(*in[0], out); });
  table.add(
      ir::OpKind::kSlice,
      [](const ir::Node& node, const std::vector<const Tensor*>& in,
         const TensorType& out) -> Expected<Tensor> { return slice(*in[0], node.attrs, out); });
}

}  // namespace inferno::reference::detail
