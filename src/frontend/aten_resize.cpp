// The resizing entries of the ATen table: upsample_nearest2d and upsample_bilinear2d in both
// forms, .vec (output_size or scale_factors, as F.interpolate traces) and the sizes form
// (output_size with optional scales_h/scales_w, as torch.export's core ATen gives). With only
// scale factors the output size is floor(in * scale), as PyTorch computes it; the factors are kept
// as attributes because they, not in / out, set the source coordinates.
#include <cmath>
#include <string>
#include <vector>

#include "frontend/aten_builders.h"

namespace inferno::frontend::aten {
namespace {

using ir::OpKind;
using ir::ValueId;

constexpr ArgKind T = ArgKind::kTensor, Bool = ArgKind::kBool, Ints = ArgKind::kInts,
                  Float = ArgKind::kFloat, Floats = ArgKind::kFloats;

Builder upsample(OpKind op) {
  return [op](Ctx& c) -> Outputs {
    const std::string_view self = c.a.has("input") ? "input" : "self";
    const ValueId x = c.a.tensor(self);
    const ir::Shape shape = c.type(x).shape;
    std::optional<ir::IntList> size = c.a.opt_ints("output_size");
    double scale_h = 0, scale_w = 0;
    if (c.a.has("scale_factors")) {
      const std::optional<std::vector<double>> factors = c.a.opt_floats("scale_factors");
      if (size.has_value() == factors.has_value())
        return c.invalid("expects exactly one of output_size and scale_factors");
      if (factors) {
        if (factors->size() != 2 || shape.size() != 4)
          return c.invalid("expects two scale factors for a 4-D input");
        size = ir::IntList{};
        for (size_t i = 0; i < 2; ++i) {
          const double s = (*factors)[i], out = static_cast<double>(shape[2 + i]) * s;
          if (!(s > 0) || !(out < static_cast<double>(ir::kMaxTensorElements)))
            return c.invalid("scale factor " + std::to_string(s) + " is not positive or too large");
          size->push_back(static_cast<int64_t>(out));
        }
        scale_h = (*factors)[0];
        scale_w = (*factors)[1];
      }
    } else {
      if (std::optional<double> s = c.a.has("scales_h") && !c.a.is_none("scales_h")
                                        ? std::optional<double>(c.a.get_float("scales_h"))
                                        : std::nullopt) {
        scale_h = *s;
      }
      if (c.a.has("scales_w") && !c.a.is_none("scales_w")) scale_w = c.a.get_float("scales_w");
    }
    if (!size) return c.invalid("expects an output_size");
    ir::Attributes a = attrs({{"output_size", *size}, {"scale_h", scale_h}, {"scale_w", scale_w}});
    if (op == OpKind::kUpsampleBilinear2d) a.set("align_corners", c.a.get_bool("align_corners"));
    return one(c.build(op, {x}, std::move(a)));
  };
}

}  // namespace

void add_resize_entries(std::vector<OpEntry>& table) {
  const std::vector<OpEntry> rows = {
      {"aten::upsample_nearest2d",
       "vec",
       {arg("input", T), opt("output_size", Ints), opt("scale_factors", Floats)},
       upsample(OpKind::kUpsampleNearest2d)},
      {"aten::upsample_nearest2d",
       "",
       {arg("self", T), arg("output_size", Ints), opt("scales_h", Float), opt("scales_w", Float)},
       upsample(OpKind::kUpsampleNearest2d)},
      {"aten::upsample_bilinear2d",
       "vec",
       {arg("input", T), opt("output_size", Ints), arg("align_corners", Bool),
        opt("scale_factors", Floats)},
       upsample(OpKind::kUpsampleBilinear2d)},
      {"aten::upsample_bilinear2d",
       "",
       {arg("self", T), arg("output_size", Ints), arg("align_corners", Bool),
        opt("scales_h", Float), opt("scales_w", Float)},
       upsample(OpKind::kUpsampleBilinear2d)},
  };
  table.insert(table.end(), rows.begin(), rows.end());
}

}  // namespace inferno::frontend::aten
