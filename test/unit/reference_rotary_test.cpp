// The rotary reference kernel: a full and a partial rotation by hand (rotate_half's sign and
// halves, the pass-through part, cos and sin broadcast over rows); then every application of
// test/support/rotary_cases.h on f32, f64, f16 and bf16 against rotary_definition, a
// double-precision evaluation written in the test support independently of the reference,
// rounded once to the output dtype.
#include <string>
#include <vector>

#include "reference/interpreter.h"
#include "support/application_check.h"
#include "support/catch.h"
#include "support/op_table.h"
#include "support/rotary_cases.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using test::check_against_definition;
constexpr auto evaluate = test::evaluate_application;

using ir::DType;
using ir::OpKind;

ir::Tensor tensor(const ir::TensorType& type, const std::vector<double>& values) {
  REQUIRE(static_cast<int64_t>(values.size()) == type.numel());
  return test::tensor_of(type, values);
}

std::vector<double> values(const ir::Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.numel(); ++i) out.push_back(t.get(i));
  return out;
}

TEST_CASE("rotary by hand: rotate_half's halves and sign, a pass-through part, broadcast rows") {
  // x = [1, 2, 3, 4], cos = [1, 0, 2, -1], sin = [0, 1, 1, 2]; rotate_half(x) = [-3, -4, 1, 2]:
  // [1*1 - 3*0, 2*0 - 4*1, 3*2 + 1*1, 4*-1 + 2*2] = [1, -4, 7, 0].
  test::Application a{"by hand", OpKind::kRotary, {}, {}};
  a.operands.push_back({false, tensor({DType::kF32, {1, 4}}, {1, 2, 3, 4})});
  a.operands.push_back({true, tensor({DType::kF32, {4}}, {1, 0, 2, -1})});
  a.operands.push_back({true, tensor({DType::kF32, {4}}, {0, 1, 1, 2})});
  a.attrs.set("rotary_dim", int64_t{4});
  CHECK(values(evaluate(a)) == std::vector<double>{1, -4, 7, 0});
  // Partial: two rows of six, the first four rotated by the same cos and sin, the last two kept.
  a.operands[0] = {false, tensor({DType::kF32, {2, 6}}, {1, 2, 3, 4, 5, 6, 2, 0, 0, 1, -7, 8})};
  // Row 2: x[:4] = [2, 0, 0, 1], rotate_half = [0, -1, 2, 0]:
  // [2*1 + 0, 0*0 - 1*1, 0*2 + 2*1, 1*-1 + 0*2] = [2, -1, 2, -1].
  CHECK(values(evaluate(a)) == std::vector<double>{1, -4, 7, 0, 5, 6, 2, -1, 2, -1, -7, 8});
}

TEST_CASE("rotary matches its definition on every floating dtype") {
  int applications = 0;
  for (const DType dtype : ir::kAllDTypes) {
    for (const test::Application& a : test::rotary_applications(dtype)) {
      INFO(a.label);
      ++applications;
      check_against_definition(evaluate(a), test::rotary_definition(a), dtype);
    }
  }
  CHECK(applications == 4 * 5);  // f32, f64, f16, bf16
}

}  // namespace
}  // namespace inferno
