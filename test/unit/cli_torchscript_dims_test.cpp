// Named dims of a TorchScript model's --input (x:Nx3x32x32:f32 with --dim N=1..16): a batch whose
// rows the model computes independently splits like a .pt2's dynamic batch (its powers of two
// compiled as variants, the dims table naming the split); a model that computes with a size as
// a number keeps the dim at its compiled sizes; --data files give the named dims their sizes.
#include <string>
#include <vector>

#include "cli_test_helpers.h"
#include "support/catch.h"
#include "support/npy.h"
#include "support/subprocess.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using test::infernoc;

using test::contains;

const std::string kCnnBlock = test::fixture_path("cnn_block/model.pt");

TEST_CASE("a TorchScript input's named batch splits and compiles the batch's powers of two") {
  const test::ProcessResult r = infernoc({kCnnBlock, "--input", "x:Nx3x32x32:f32", "--dim",
                                          "N=1..16", "--emit", "cu", "--arch", "sm_90"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.err, "compiling 5 variants: N=1, N=2, N=4, N=8, N=16"));
  CHECK(contains(r.out, "{\"N\", 1, 16},"));
  CHECK(contains(r.out, "kDimUses, 0};"));  // the split dim: N
}

TEST_CASE("a TorchScript model that computes with a size keeps its named dim's compiled sizes") {
  // transformer_llama hands a size to arange: the graph keeps it as a number.
  const std::string llama = test::fixture_path("transformer_llama/model.pt");
  const test::ProcessResult r = infernoc({llama, "--input", "x:Bx19x32:f32", "--dim", "B=1..4",
                                          "--emit", "cu", "--arch", "sm_90", "-v"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.err,
                 "dynamic dim B: runs only at its compiled sizes (the model computes with "
                 "its size)"));
  CHECK(contains(r.out, "kDimUses, -1};"));  // no split dim
  const test::ProcessResult chosen =
      infernoc({llama, "--input", "x:Bx19x32:f32", "--dim", "B=1..4", "--specialize", "B=1,3",
                "--emit", "cu", "--arch", "sm_90"});
  INFO(chosen.err);
  REQUIRE(chosen.exit_code == 0);
  CHECK(contains(chosen.err, "compiling 2 variants: B=1, B=3"));
}

TEST_CASE("a --data file gives a named dim its size, and the reference matches PyTorch") {
  const test::ScratchDir dir("torchscript_dims");
  // The fixture's two images, and its first one alone (its rows are independent: PyTorch's
  // first output row is that image's).
  Expected<NpyArray> input = read_npy(test::fixture_path("cnn_block/input0.npy"));
  Expected<NpyArray> output = read_npy(test::fixture_path("cnn_block/output0.npy"));
  REQUIRE(input.has_value());
  REQUIRE(output.has_value());
  for (NpyArray* array : {&*input, &*output}) {
    array->data.resize(array->data.size() / static_cast<size_t>(array->shape[0]));
    array->shape[0] = 1;
  }
  REQUIRE(write_npy(dir / "x1.npy", *input).is_ok());
  REQUIRE(write_npy(dir / "y1.npy", *output).is_ok());
  for (const auto& [data, expected] : {std::pair{test::fixture_path("cnn_block/input0.npy"),
                                                 test::fixture_path("cnn_block/output0.npy")},
                                       std::pair{dir / "x1.npy", dir / "y1.npy"}}) {
    INFO(data);
    const std::string out = dir / "out";
    driver::remove_tree(out);
    const test::ProcessResult r =
        infernoc({kCnnBlock, "--input", "x:Nx3x32x32:f32", "--dim", "N=1..16", "--reference",
                  "--data", data, "--save-outputs", out});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const test::ProcessResult compare =
        test::run_process({NPY_COMPARE_EXE, out + "/out0.npy", expected});
    INFO(compare.out << compare.err);
    CHECK(compare.exit_code == 0);
  }
  // A size outside the range.
  const test::ProcessResult outside = infernoc(
      {kCnnBlock, "--input", "x:Nx3x32x32:f32", "--dim", "N=4..16", "--reference", "--data",
       test::fixture_path("cnn_block/input0.npy"), "--save-outputs", dir / "out"});
  CHECK(outside.exit_code == 3);
  CHECK(
      contains(outside.err, "--input 0 names dim 0 'N' with the size 2, outside its range 4..16"));
}

TEST_CASE("named dims without a range, or on a .pt2, are exit 3 naming the fix") {
  const test::ProcessResult unranged =
      infernoc({kCnnBlock, "--input", "x:Nx3x32x32:f32", "--emit", "ir"});
  CHECK(unranged.exit_code == 3);
  CHECK(contains(unranged.err,
                 "--input 0 names dim 0 'N', which has no range: give it one with "
                 "--dim N=LO..HI"));
  const test::ProcessResult pt2 = infernoc({test::fixture_path("cnn_block/model.pt2"), "--input",
                                            "x:Nx3x32x32:f32", "--dim", "N=1..4", "--emit", "ir"});
  CHECK(pt2.exit_code == 3);
  CHECK(contains(pt2.err, "a .pt2 has its own dynamic dims"));
}

}  // namespace
}  // namespace inferno
