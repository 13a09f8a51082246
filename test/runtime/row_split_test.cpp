// A split call's plan (runtime/row_split.h), without a GPU: a fake batch model compiled for some
// batch sizes (x f32[b,5] and a scale f32[3] without the batch in, y f32[2b,3] out), whose
// dims table names the batch as its split dim.
#include "runtime/row_split.h"

#include <deque>
#include <string>
#include <vector>

#include "runtime/error.h"
#include "runtime_test_support.h"
#include "support/catch.h"

using inferno::test::contains;
namespace rt = inferno::runtime;

namespace {

class FakeBatch {
 public:
  explicit FakeBatch(const std::vector<int64_t>& sizes) {
    for (const int64_t b : sizes) {
      Shapes& s = shapes_.emplace_back();
      s.x[0] = b;
      s.y[0] = 2 * b;
      s.inputs[0] = {"x", INFERNO_DTYPE_F32, 2, s.x};
      s.inputs[1] = {"scale", INFERNO_DTYPE_F32, 1, s.scale};
      s.outputs[0] = {"y", INFERNO_DTYPE_F32, 2, s.y};
      inferno_model& m = models_.emplace_back();
      m.num_inputs = 2;
      m.inputs = s.inputs;
      m.num_outputs = 1;
      m.outputs = s.outputs;
      entries.push_back(&m);
    }
  }
  rt::EntryPoints entries;
  rt::DynamicDims dims{{"s0", 1, 64, {{0, 0}}, true}};

 private:
  struct Shapes {
    int64_t x[2] = {0, 5};
    int64_t scale[1] = {3};
    int64_t y[2] = {0, 3};
    inferno_tensor_desc inputs[2];
    inferno_tensor_desc outputs[1];
  };
  std::deque<Shapes> shapes_;
  std::deque<inferno_model> models_;
};

// The plan for x f32[rows, 5] (and `scale` of `scale_size`): "" and the chunks as
// "entry:first+rows ...", or the refusal.
std::string plan_text(const FakeBatch& fake, int64_t rows, int64_t scale_size = 3,
                      rt::RowSplitPlan* out = nullptr) {
  std::vector<int64_t> x{rows, 5}, scale{scale_size};
  const inferno_tensor inputs[] = {{nullptr, INFERNO_DTYPE_F32, 2, x.data()},
                                   {nullptr, INFERNO_DTYPE_F32, 1, scale.data()}};
  rt::RowSplitPlan plan;
  const std::string why = rt::plan_row_split(fake.dims, fake.entries, inputs, 2, plan);
  if (!why.empty()) return why;
  std::string text;
  for (const rt::RowChunk& c : plan.chunks) {
    text += (text.empty() ? "" : " ") + std::to_string(c.entry) + ":" +
            std::to_string(c.first_row) + "+" + std::to_string(c.rows) + (c.staged ? "s" : "");
  }
  if (out != nullptr) *out = plan;
  return text;
}

}  // namespace

TEST_CASE("row split: a batch no entry point has runs as descending compiled sizes") {
  FakeBatch fake({1, 2, 4, 8, 16, 32, 64});
  rt::RowSplitPlan plan;
  // 13 = 8 + 4 + 1; x's rows are 20 bytes and y's 24, so every run starts 16-byte aligned.
  CHECK(plan_text(fake, 13, 3, &plan) == "3:0+8 2:8+4 0:12+1");
  CHECK(plan.rows == 13);
  CHECK(plan.input_row_bytes == std::vector<int64_t>{20, 0});  // scale: read whole by every run
  CHECK(plan.output_row_bytes == std::vector<int64_t>{24});
  CHECK(plan.output_shapes == std::vector<std::vector<int64_t>>{{26, 3}});
  // x's row 62 starts at byte 1240, not 16-byte aligned: that run works on the staging copy.
  CHECK(plan_text(fake, 63) == "5:0+32 4:32+16 3:48+8 2:56+4 1:60+2 0:62+1s");
  CHECK(plan_text(fake, 64) == "6:0+64");  // a compiled size is one run
}

TEST_CASE("row split: without size 1 each run leaves at least the smallest size") {
  // 2..8 compiled as 2, 3, 4, 8 (infernoc's default for a range starting at 2).
  FakeBatch fake({2, 3, 4, 8});
  fake.dims[0].min = 2;
  CHECK(plan_text(fake, 7) == "2:0+4 1:4+3");
  CHECK(plan_text(fake, 5) == "1:0+3 0:3+2s");
  CHECK(plan_text(fake, 6) == "2:0+4 0:4+2");  // 4 * 20 bytes: x's row 4 is aligned
  // Sizes 4 and 8 only: 6 is no sum of them by the rule.
  FakeBatch sparse({4, 8});
  CHECK(contains(plan_text(sparse, 6), "are no sum of its compiled sizes"));
}

TEST_CASE("row split: calls it cannot plan say why") {
  FakeBatch fake({1, 2, 4});
  CHECK(contains(plan_text(fake, 65), "outside its range"));
  CHECK(contains(plan_text(fake, 0), "outside its range"));
  CHECK(contains(plan_text(fake, 3, 4), "no compiled variant takes the other dims' sizes"));
  fake.dims[0].split = false;
  CHECK(contains(plan_text(fake, 3), "no dim to split"));
  // A large run that would start unaligned is refused rather than staged: 17 + 16 rows of 20 bytes.
  FakeBatch odd({1, 16, 17});
  CHECK(contains(plan_text(odd, 33), "not 16-byte aligned"));
}

TEST_CASE("row split: the staging buffer holds the largest small run's rows") {
  FakeBatch fake({1, 2, 4, 8, 16, 32});
  // Entry 8 (below kMaxStagedRows): x 160 bytes and y 192 bytes, each in a 256-byte slot.
  CHECK(rt::row_staging_bytes(fake.dims, fake.entries) == 512);
  fake.dims[0].split = false;
  CHECK(rt::row_staging_bytes(fake.dims, fake.entries) == 0);
}
