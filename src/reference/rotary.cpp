// Reference kernel of rotary (ops.def): each element from x, its partner in the other half of the
// rotated width, and its cos and sin, in double, rounded once to the output dtype.
#include "reference/kernels.h"
#include "support/check.h"

namespace inferno::reference::detail {

Tensor rotary(const Tensor& x, const Tensor& cos, const Tensor& sin, int64_t rotary_dim,
              const TensorType& out) {
  const Shape& shape = x.type.shape;
  const int64_t d = shape.back(), r = rotary_dim, h = r / 2;
  INFERNO_CHECK(r >= 2 && r % 2 == 0 && r <= d, "rotary: bad rotary_dim");
  Shape rotated = shape;  // x[..., :r], the shape cos and sin broadcast to
  rotated.back() = r;
  const StridedIndex cos_at = broadcast_index(cos.type.shape, rotated);
  const StridedIndex sin_at = broadcast_index(sin.type.shape, rotated);
  Tensor y = Tensor::zeros(out);
  for (int64_t i = 0; i < x.numel(); ++i) {
    const int64_t row = i / d, j = i % d;
    if (j >= r) {
      store(y, i, x.get(i));
      continue;
    }
    const int64_t t = row * r + j;
    const double partner = j < h ? -x.get(i + h) : x.get(i - h);
    store(y, i, x.get(i) * cos.get(cos_at(t)) + partner * sin.get(sin_at(t)));
  }
  return y;
}

void register_rotary_kernels(KernelTable& table) {
  table.add(ir::OpKind::kRotary,
            [](const ir::Node& node, const std::vector<const Tensor*>& in,
               const TensorType& out) -> Expected<Tensor> {
              return rotary(*in[0], *in[1], *in[2], node.attrs.get_int("rotary_dim"), out);
            });
}

}  // namespace inferno::reference::detail
