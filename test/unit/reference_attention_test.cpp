// The attention reference kernel: a softmax over two keys and a row that sees no key, by hand;
// then every application of test/support/op_table_cases.h's attention_applications (GQA, causal,
// bool and additive masks of broadcast shapes, rows with every key masked or at -inf, Sq != Skv,
// head dims 8 .. 200) on f32, f64, f16 and bf16 against attention_definition, a double-precision
// evaluation of softmax(scale * q @ k^T + mask) @ v written in the test support independently of
// the reference, rounded once to the output dtype. Tolerances: torch.testing's defaults, which
// leave room for one rounding step of the output (the two sum in different orders).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ir/builder.h"
#include "reference/interpreter.h"
#include "support/application_check.h"
#include "support/catch.h"
#include "support/op_table.h"
#include "support/op_table_cases.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using test::check_against_definition;
constexpr auto evaluate = test::evaluate_application;

using ir::DType;
using ir::OpKind;

// Exactly the values given, one per element (op_table's tensor_of repeats a shorter list).
ir::Tensor tensor(const ir::TensorType& type, const std::vector<double>& values) {
  REQUIRE(static_cast<int64_t>(values.size()) == type.numel());
  return test::tensor_of(type, values);
}

TEST_CASE("attention by hand: two keys, a masked key, a row that sees none") {
  // q [1, 1, 2, 1]; keys 0 and ln 3 (scale 1): weights 1/4 and 3/4 of v = 4 and 8 -> 7. Row 1's
  // mask drops both keys: zeros.
  test::Application a{"by hand", OpKind::kAttention, {}, {}};
  a.operands.push_back({false, tensor({DType::kF64, {1, 1, 2, 1}}, {1, 1})});
  a.operands.push_back({false, tensor({DType::kF64, {1, 1, 2, 1}}, {0, std::log(3.0)})});
  a.operands.push_back({false, tensor({DType::kF64, {1, 1, 2, 1}}, {4, 8})});
  a.operands.push_back({true, tensor({DType::kBool, {2, 2}}, {1, 1, 0, 0})});
  a.attrs.set("scale", 1.0);
  a.attrs.set("mask", std::string("bool"));
  const ir::Tensor got = evaluate(a);
  CHECK(got.get(0) == Approx(7.0).epsilon(1e-14));
  CHECK(got.get(1) == 0.0);
  // Causal: row 0 sees key 0 only (v = 4); an additive -inf on key 0 leaves row 0 nothing.
  a.operands.pop_back();
  a.attrs.set("mask", std::string("none"));
  a.attrs.set("causal", true);
  CHECK(evaluate(a).get(0) == 4.0);
  const double inf = std::numeric_limits<double>::infinity();
  a.operands.push_back({true, tensor({DType::kF64, {2}}, {-inf, 0})});
  a.attrs.set("mask", std::string("additive"));
  const ir::Tensor masked = evaluate(a);
  CHECK(masked.get(0) == 0.0);
  CHECK(masked.get(1) == 8.0);
}

TEST_CASE("attention matches its definition on every floating dtype") {
  int applications = 0;
  for (const DType dtype : ir::kAllDTypes) {
    for (const test::Application& a : test::attention_applications(dtype)) {
      INFO(a.label);
      ++applications;
      check_against_definition(evaluate(a), test::attention_definition(a), dtype);
    }
  }
  CHECK(applications == 4 * 9);  // f32, f64, f16, bf16
}

/// The `index`-th block of `shape`'s size in `t`'s flat data, as a tensor of `shape`: one
/// (batch, head) of a [B, H, S, D] tensor.
ir::Tensor rows_of(const ir::Tensor& t, int64_t index, ir::Shape shape) {
  ir::Tensor out = ir::Tensor::zeros({t.type.dtype, std::move(shape)});
  const size_t bytes = out.data.size();
  std::copy_n(t.data.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(index) * bytes),
              bytes, out.data.begin());
  return out;
}

TEST_CASE("attention split over threads gives each head's bits alone") {
  // Big enough for the reference to split its 8 (batch, head) pairs over every core; each head
  // evaluated alone (one pair: one worker) must give the same bits. Grouped queries: kv head
  // h / 2, causal.
  const int64_t batch = 2, heads = 4, kv_heads = 2, seq = 128, dim = 64;
  test::Application all{"gqa", OpKind::kAttention, {}, {}};
  all.attrs.set("scale", 0.125);
  all.attrs.set("causal", true);
  all.attrs.set("kv_groups", heads / kv_heads);
  all.operands.push_back({false, test::random_tensor({DType::kF16, {batch, heads, seq, dim}}, 1)});
  for (uint64_t seed : {2, 3})
    all.operands.push_back(
        {false, test::random_tensor({DType::kF16, {batch, kv_heads, seq, dim}}, seed)});
  const ir::Tensor got = evaluate(all);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t h = 0; h < heads; ++h) {
      INFO("batch " << b << " head " << h);
      const ir::Shape one = {1, 1, seq, dim};
      test::Application alone{"one head", OpKind::kAttention, all.attrs, {}};
      alone.attrs.set("kv_groups", int64_t{1});
      alone.operands.push_back({false, rows_of(all.operands[0].tensor, b * heads + h, one)});
      for (size_t i : {1, 2}) {
        alone.operands.push_back(
            {false, rows_of(all.operands[i].tensor, b * kv_heads + h / 2, one)});
      }
      CHECK(evaluate(alone).data == rows_of(got, b * heads + h, one).data);
    }
  }
}

}  // namespace
}  // namespace inferno
