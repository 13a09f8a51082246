#include "support/rotary_cases.h"

#include <string>

#include "support/test_support.h"

namespace inferno::test {

std::vector<Application> rotary_applications(ir::DType dtype) {
  if (!ir::is_floating(dtype)) return {};
  uint64_t seed = 11000 + static_cast<uint64_t>(dtype);
  struct Case {
    ir::Shape x, table;  // table: the shape of cos and sin
    int64_t rotary_dim;
    bool constant_tables;
  };
  const std::vector<Case> cases = {
      {{2, 3, 4, 16}, {2, 1, 4, 16}, 16, false},    // Llama: [B, H, S, D], cos [B, 1, S, D]
      {{1, 2, 5, 10}, {5, 6}, 6, true},             // partial, cos of lower rank
      {{7, 2}, {1, 2}, 2, false},                   // the smallest width
      {{3, 8}, {4}, 4, true},                       // partial, one row for every row
      {{1, 16, 40, 64}, {1, 1, 40, 64}, 64, true},  // 40960 elements: many blocks
  };
  const std::string type = " " + std::string(ir::dtype_name(dtype)) + " ";
  std::vector<Application> out;
  for (const Case& c : cases) {
    Application a{"rotary" + type + ir::shape_to_string(c.x) + " by " +
                      ir::shape_to_string(c.table) + " over " + std::to_string(c.rotary_dim),
                  ir::OpKind::kRotary,
                  {},
                  {}};
    a.operands.push_back({false, random_tensor({dtype, c.x}, ++seed)});
    a.operands.push_back({c.constant_tables, random_tensor({dtype, c.table}, ++seed)});
    a.operands.push_back({c.constant_tables, random_tensor({dtype, c.table}, ++seed)});
    a.attrs.set("rotary_dim", c.rotary_dim);
    out.push_back(std::move(a));
  }
  return out;
}

std::vector<double> rotary_definition(const Application& application) {
  const ir::Tensor& x = application.operands[0].tensor;
  const ir::Tensor& cos = application.operands[1].tensor;
  const ir::Tensor& sin = application.operands[2].tensor;
  const int64_t r = application.attrs.get_int("rotary_dim"), half = r / 2;
  const int64_t width = x.type.shape.back(), rows = x.numel() / width;
  ir::Shape rotated = x.type.shape;  // what cos and sin broadcast to
  rotated.back() = r;
  std::vector<double> out;
  for (int64_t row = 0; row < rows; ++row) {
    const auto at = [&](int64_t j) { return x.get(row * width + j); };
    for (int64_t j = 0; j < width; ++j) {
      if (j >= r) {
        out.push_back(at(j));
        continue;
      }
      // rotate_half(x) = cat(-x[h:r], x[:h]) at position j.
      const double rotated_half = j < half ? -at(j + half) : at(j - half);
      const int64_t k = row * r + j;
      out.push_back(at(j) * cos.get(broadcast_source(cos.type.shape, rotated, k)) +
                    rotated_half * sin.get(broadcast_source(sin.type.shape, rotated, k)));
    }
  }
  return out;
}

}  // namespace inferno::test
