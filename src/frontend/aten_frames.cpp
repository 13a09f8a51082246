// The video ops' layout (aten_builders.h, "Frames"): [N, C, T, H, W] with the frames brought
// next to the batch, so that 2-D ops see [N T, C, H, W] after a reshape, and back.
#include <string>
#include <vector>

#include "frontend/aten_builders.h"

namespace inferno::frontend::aten {

using ir::IntList;
using ir::OpKind;
using ir::ValueId;

Expected<Frames> frames_first(const Ctx& c, ValueId x) {
  const ir::TensorType t = c.type(x);
  if ((t.rank() != 4 && t.rank() != 5) || !ir::is_floating(t.dtype)) {
    return c.invalid("expects a floating-point [N, C, T, H, W] or [C, T, H, W] input, got " +
                     t.to_string());
  }
  const bool batched = t.rank() == 5;
  if (!batched) {
    ir::Shape s = t.shape;
    s.insert(s.begin(), 1);
    INFERNO_ASSIGN_OR_RETURN(x, c.build(OpKind::kReshape, {x}, attrs({{"shape", s}}), "input5d"));
  }
  INFERNO_ASSIGN_OR_RETURN(
      x, c.build(OpKind::kPermute, {x}, attrs({{"dims", IntList{0, 2, 1, 3, 4}}}), "frames"));
  return Frames{x, batched};
}

Outputs frames_last(const Ctx& c, ValueId y, bool batched) {
  INFERNO_ASSIGN_OR_RETURN(y,
                           c.build(OpKind::kPermute, {y}, attrs({{"dims", IntList{0, 2, 1, 3, 4}}}),
                                   batched ? "" : "output5d"));
  if (batched) return std::vector<ValueId>{y};
  ir::Shape s = c.type(y).shape;
  s.erase(s.begin());
  return one(c.build(OpKind::kReshape, {y}, attrs({{"shape", s}})));
}

}  // namespace inferno::frontend::aten
