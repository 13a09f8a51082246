// Variants on the command line: a model with state and one dynamic dim (transformers' decoder
// recipe) compiles one variant per default length within its range into one model.cu;
// --specialize chooses the lengths, and its mistakes are exit 3 naming the flag.
#include <string>
#include <vector>

#include "cli_test_helpers.h"
#include "driver_test_helpers.h"
#include "support/catch.h"
#include "support/subprocess.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using test::infernoc;

using test::contains;

const std::string kDecoder = test::fixture_path("hf/llama/decoder.pt2");

TEST_CASE("a decoder with a KV cache compiles its default lengths as variants of one model.cu") {
  const test::ProcessResult r = infernoc({kDecoder, "--emit", "cu", "--arch", "sm_90"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.err, "compiling 3 variants: s11=1, s11=16, s11=64"));
  // The one-token step is the model's own interface; 16 and 64 its variants (the export's range
  // is 0..95, so 128 is left out), all around one kStates with the cache's 96 positions.
  CHECK(contains(r.out, "const inferno_model* const kVariants[] = {&v1::kModel, &v2::kModel};"));
  CHECK(contains(r.out, "6, kStates, 96,  // states, max positions"));
  CHECK(contains(r.out, "return &v0::kModel;"));
}

TEST_CASE("the --specialize flag chooses the lengths, and its mistakes are exit 3") {
  const test::ProcessResult two =
      infernoc({kDecoder, "--emit", "cu", "--arch", "sm_90", "--specialize", "s11=1,32"});
  INFO(two.err);
  REQUIRE(two.exit_code == 0);
  CHECK(contains(two.err, "compiling 2 variants: s11=1, s11=32"));
  for (const char* bad : {"s11=1,x", "s11", "s11=4,4", "=1"}) {
    const test::ProcessResult r = infernoc({kDecoder, "--emit", "ir", "--specialize", bad});
    INFO(bad << ": " << r.err);
    CHECK(r.exit_code == 3);
    CHECK(contains(r.err, "infernoc: error: --specialize"));
  }
  // A length outside the range the model was exported for is the frontend's range error.
  const test::ProcessResult out = infernoc({kDecoder, "--emit", "ir", "--specialize", "s11=200"});
  CHECK(out.exit_code == 3);
  CHECK(contains(out.err, "outside the range the model was exported for"));
}

TEST_CASE("several --specialize dims compile every combination of their sizes") {
  // The dynamic BERT layer (test/fixtures/dynamic): batch s55 in 1..8, seq s26 in 2..64.
  const std::string layer = test::fixture_path("dynamic/dyn_bert_layer/model.pt2");
  const test::ProcessResult r = infernoc({layer, "--emit", "cu", "--arch", "sm_90", "--specialize",
                                          "s55=1,8", "--specialize", "s26=2,33,64"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.err,
                 "compiling 6 variants: s26=2 s55=1, s26=33 s55=1, s26=64 s55=1, "
                 "s26=2 s55=8, s26=33 s55=8, s26=64 s55=8"));
  CHECK(contains(r.out, "{\"x\", INFERNO_DTYPE_F32, 3, kInput0Shape}"));
  CHECK(contains(r.out, "const int64_t kInput0Shape[] = {8, 64, 32};"));
  // The dims table (inferno/model_dims.h): each dim's export range and the input dims that have
  // it (x [batch, seq, 32], the additive mask [batch, 1, 1, seq]).
  CHECK(contains(r.out, "{\"s26\", 2, 64},\n  {\"s55\", 1, 8},"));
  CHECK(contains(r.out, "kDimUses[] = {{0, 1, 0}, {1, 3, 0}, {0, 0, 1}, {1, 0, 1}};"));
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"s55=1,8", "s55=2"}, {"s55=1,2,3,4,5", "s26=2,3,4,5"}}) {
    std::vector<std::string> args = {layer, "--emit", "ir"};
    for (const std::string& flag : bad) args.insert(args.end(), {"--specialize", flag});
    const test::ProcessResult wrong = infernoc(args);
    INFO(wrong.err);
    CHECK(wrong.exit_code == 3);
    CHECK(contains(wrong.err, "infernoc: error: --specialize"));
  }
}

TEST_CASE("a model whose rows are independent along its batch compiles the batch's powers of two") {
  // dyn_gpt2: batch 1..8 and seq 2..31; the batch splits (the dims table's last field names it),
  // the sequence, which attention mixes, keeps the export's size.
  const std::string gpt2 = test::fixture_path("dynamic/dyn_gpt2/model.pt2");
  const test::ProcessResult r = infernoc({gpt2, "--emit", "cu", "--arch", "sm_90"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.err, "compiling 4 variants: s23=1, s23=2, s23=4, s23=8"));
  CHECK(contains(r.out, "{\"s23\", 1, 8},\n  {\"s27\", 2, 31},"));
  CHECK(contains(r.out, "kDimUses, 0};"));
  // --specialize still chooses the sizes; the split stays.
  const test::ProcessResult chosen =
      infernoc({gpt2, "--emit", "cu", "--arch", "sm_90", "--specialize", "s23=2,3"});
  INFO(chosen.err);
  REQUIRE(chosen.exit_code == 0);
  CHECK(contains(chosen.err, "compiling 2 variants: s23=2, s23=3"));
  CHECK(contains(chosen.out, "kDimUses, 0};"));
}

TEST_CASE("infernoc --dim narrows a dim's range, which sets the sizes a split batch compiles") {
  const std::string mlp = test::fixture_path("dynamic/dyn_mlp/model.pt2");
  const test::ProcessResult r =
      infernoc({mlp, "--emit", "cu", "--arch", "sm_90", "--dim", "s77=1..12"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(contains(r.err, "compiling 5 variants: s77=1, s77=2, s77=4, s77=8, s77=12"));
  CHECK(contains(r.out, "{\"s77\", 1, 12},"));
  // A range without the export's own size (5): loaded at the range's smallest.
  const test::ProcessResult high =
      infernoc({mlp, "--emit", "cu", "--arch", "sm_90", "--dim", "s77=8..20"});
  INFO(high.err);
  REQUIRE(high.exit_code == 0);
  CHECK(contains(high.err,
                 "compiling 10 variants: s77=8, s77=9, s77=10, s77=11, s77=12, s77=13, s77=14, "
                 "s77=15, s77=16, s77=20"));
  for (const auto& [flag, message] :
       {std::pair{"s77=1..100",
                  "--dim s77=1..100 is not within the range the model was exported for (1..64)"},
        std::pair{"s5=1..8",
                  "--dim names 's5', which is no dynamic dim of the model (its dims: s77)"},
        std::pair{"s77=8..1", "--dim 's77=8..1': expected SYMBOL=LO..HI"},
        std::pair{"s77", "--dim 's77': expected SYMBOL=LO..HI"}}) {
    const test::ProcessResult wrong = infernoc({mlp, "--emit", "ir", "--dim", flag});
    INFO(wrong.err);
    CHECK(wrong.exit_code == 3);
    CHECK(contains(wrong.err, message));
  }
}

}  // namespace
TEST_CASE(
    "INFERNO_LAUNCH_GROUPS=0, INFERNO_GEMV_PAIRS=0 and INFERNO_ATTENTION_STEP=0 each turn their "
    "fusion off") {
  const std::vector<std::string> args = {kDecoder, "--emit",      "profile-plan", "--specialize",
                                         "s11=1",  "--precision", "fp16"};
  // Each variable, what the decode step's plan shows with its fusion, and only without it.
  const struct {
    const char* variable;
    const char* fused;
    const char* unfused;
  } switches[] = {{"INFERNO_LAUNCH_GROUPS", "launch group", "fused_cos_cast_f16"},
                  {"INFERNO_GEMV_PAIRS", "_pairs", "fused_silu_mul"},
                  {"INFERNO_ATTENTION_STEP", "attention_step<", "rotary_f16_1x2x1x16"}};
  const test::ProcessResult on = infernoc(args);
  REQUIRE(on.exit_code == 0);
  for (const auto& s : switches) {
    INFO(s.variable);
    CHECK(contains(on.out, s.fused));
    test::ScopedEnvVar off(s.variable, "0");
    const test::ProcessResult apart = infernoc(args);
    REQUIRE(apart.exit_code == 0);
    CHECK_FALSE(contains(apart.out, s.fused));
    CHECK(contains(apart.out, s.unfused));
  }
}

}  // namespace inferno
