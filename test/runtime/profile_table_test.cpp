// The runtime's reading of a model's profile table (runtime/profile_table.h) without a GPU: a
// table that matches the entry points is taken, one with a bad version, entry point, count,
// string, number or variant list is refused as a malformed model.
#include "runtime/profile_table.h"

#include <string>
#include <vector>

#include "fake_models.h"
#include "runtime/error.h"
#include "runtime_test_support.h"
#include "support/catch.h"

using inferno::test::contains;
using inferno::test::FakeLlm;
namespace rt = inferno::runtime;

namespace {

int32_t run_profiled(void*, const inferno_model_run_args*, inferno_profile_hook, void*, char*,
                     size_t) {
  return INFERNO_MODEL_OK;
}

// A model of two entry points with one table each, whose fields the tests break one at a time.
struct Tables {
  FakeLlm llm{{4, 1}, 10};
  std::vector<inferno_kernel_cost> steps = {
      {0, 1, "mm", "gemm", "model.py:3", "cublasLt (tensor cores)", INFERNO_DTYPE_F16, 0, 2048.0,
       96, 64},
      {-1, 1, "outputs", "copy", "", "strided_copy<float>", INFERNO_DTYPE_F32, 0, 0.0, 40, 40}};
  inferno_model_profile variant{INFERNO_MODEL_PROFILE_VERSION,
                                sizeof(inferno_model_profile),
                                nullptr,
                                1,
                                steps.data(),
                                run_profiled,
                                0,
                                nullptr};
  const inferno_model_profile* variants[1] = {&variant};
  inferno_model_profile model = variant;

  Tables() {
    variant.model = &llm.variant(0);
    model.model = &llm.model();
    model.num_steps = 2;
    model.num_variants = 1;
    model.variants = variants;
  }
  // The message read_profile_tables throws ("" when it accepts the tables).
  std::string problem() {
    try {
      const auto tables = rt::read_profile_tables(&model, llm.entries(), "m.so");
      CHECK(tables.size() == 2);
    } catch (const rt::Error& e) {
      CHECK(e.status() == INFERNO_STATUS_ABI_MISMATCH);
      return e.what();
    }
    return "";
  }
};

}  // namespace

// The Python loader's ctypes mirror (tools/python/inferno/runtime.py, _KernelCost) has this size.
static_assert(sizeof(inferno_kernel_cost) == 72, "inferno_kernel_cost's layout is part of the ABI");

TEST_CASE("profile: a table per entry point is read, none is no table", "[runtime]") {
  Tables t;
  CHECK(t.problem().empty());
  const auto tables = rt::read_profile_tables(&t.model, t.llm.entries(), "m.so");
  REQUIRE(tables.size() == 2);
  CHECK(tables[0] == &t.model);
  CHECK(tables[1] == &t.variant);
  CHECK(rt::read_profile_tables(nullptr, t.llm.entries(), "m.so").empty());
}

TEST_CASE("profile: a malformed table is refused, naming what is wrong", "[runtime]") {
  {
    Tables t;
    t.model.version = 2;
    CHECK(contains(t.problem(), "version 2, expected 1"));
  }
  {
    Tables t;
    t.model.model = &t.llm.variant(0);
    CHECK(contains(t.problem(), "describes another entry point"));
  }
  {
    Tables t;
    t.model.num_steps = rt::kMaxProfileSteps + 1;
    CHECK(contains(t.problem(), "bad step count"));
  }
  {
    Tables t;
    t.steps[1].kernel = nullptr;
    CHECK(contains(t.problem(), "step 1: a null or unterminated string"));
  }
  {
    Tables t;
    const std::string long_name(rt::kMaxProfileString, 'x');
    t.steps[0].node_name = long_name.c_str();
    CHECK(contains(t.problem(), "step 0: a null or unterminated string"));
  }
  {
    Tables t;
    t.steps[0].dtype = 7;
    CHECK(contains(t.problem(), "bad dtype"));
  }
  {
    Tables t;
    t.steps[0].flops = -1.0;
    CHECK(contains(t.problem(), "bad FLOP count"));
  }
  {
    Tables t;
    t.steps[0].launches = 0;
    CHECK(contains(t.problem(), "bad launch count"));
  }
  {
    Tables t;
    t.model.num_variants = 0;
    CHECK(contains(t.problem(), "its variants differ"));
  }
  {
    Tables t;
    t.variant.model = &t.llm.model();
    CHECK(contains(t.problem(), "variant 1: describes another entry point"));
  }
  {
    Tables t;
    t.model.run_profiled = nullptr;
    CHECK(contains(t.problem(), "no run_profiled"));
  }
}
