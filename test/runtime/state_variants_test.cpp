// The runtime's reading of model ABI 2 without a GPU: the version check, the validation of states
// and variants, choosing a variant by input shapes, and the state's layout and initialization.
#include <string>
#include <vector>

#include "fake_models.h"
#include "runtime/descriptor.h"
#include "runtime/entry_points.h"
#include "runtime/error.h"
#include "runtime/state_block.h"
#include "runtime_test_support.h"
#include "support/catch.h"

using inferno::test::contains;
using inferno::test::FakeLlm;
namespace rt = inferno::runtime;

namespace {

// The message validate_descriptor throws for `model` ("" when it accepts it).
std::string problem(const inferno_model& model) {
  try {
    rt::validate_descriptor(model, "m.so");
  } catch (const rt::Error& e) {
    CHECK(e.status() == INFERNO_STATUS_ABI_MISMATCH);
    return e.what();
  }
  return "";
}

inferno_tensor tensor(int32_t dtype, std::vector<int64_t>& shape) {
  return inferno_tensor{reinterpret_cast<void*>(256), dtype, static_cast<int32_t>(shape.size()),
                        shape.data()};
}

}  // namespace

TEST_CASE("abi: a version 1 model is refused, naming both versions", "[runtime]") {
  FakeLlm llm({4, 1}, 10);
  CHECK(problem(llm.model()).empty());
  llm.model().abi_version = 1;
  const std::string message = problem(llm.model());
  CHECK(contains(message, "'m.so' has model ABI version 1, this runtime reads version 3"));
  CHECK(contains(message, "rebuild the model"));
  llm.model().abi_version = INFERNO_MODEL_ABI_VERSION + 1;
  CHECK(contains(problem(llm.model()), "use the runtime of the infernoc that built it"));
}

TEST_CASE("abi: states must be described and initialized from inside the weights", "[runtime]") {
  FakeLlm llm({4, 1}, 10);
  inferno_model& m = llm.model();
  llm.states[1].init_offset = 60;  // 8 bytes from 60 pass the 64-byte blob
  CHECK(contains(problem(m),
                 "state 1 'counter' initial value at offset 60 (8 bytes) lies outside "
                 "the weights (64 bytes)"));
  llm.states[1].init_offset = UINT64_MAX - 4;  // no wrap-around
  CHECK(contains(problem(m), "lies outside the weights"));
  llm.states[1].init_offset = 56;
  CHECK(problem(m).empty());
  llm.states[0].tensor.name = nullptr;
  CHECK(contains(problem(m), "state 0 has no name"));
  llm.states[0].tensor.name = "cache";
  m.num_states = -1;
  CHECK(contains(problem(m), "state count -1"));
  m.num_states = 2;
  m.states = nullptr;
  CHECK(contains(problem(m), "state descriptors are null"));
  m.states = llm.states.data();
  m.max_positions = -1;
  CHECK(contains(problem(m), "negative max_positions"));
}

TEST_CASE("abi: variants are complete entry points with inputs of their own", "[runtime]") {
  FakeLlm llm({4, 1, 8}, 10);
  inferno_model& m = llm.model();
  CHECK(problem(m).empty());
  llm.variant(0).run = nullptr;
  CHECK(contains(problem(m), "variant 1 null function pointer"));
  llm.variant(0).run = m.run;
  llm.variant(1).abi_version = 1;
  CHECK(contains(problem(m), "variant 2 has another ABI version"));
  llm.variant(1).abi_version = m.abi_version;
  llm.variant(1).num_variants = 1;
  CHECK(contains(problem(m), "variant 2 has variants of its own"));
  llm.variant(1).num_variants = 0;
  llm.variant(1).inputs = m.inputs;  // the same shapes as the model: never reachable
  CHECK(contains(problem(m), "variant 2 takes the same inputs as the model"));
  llm.variant(1).inputs = llm.variant(0).inputs;
  CHECK(contains(problem(m), "variant 2 takes the same inputs as variant 1"));
  m.num_variants = 65;
  CHECK(contains(problem(m), "variant count 65 outside 0..64"));
}

TEST_CASE("variants: the first entry point whose input shapes match is chosen", "[runtime]") {
  FakeLlm llm({4, 1, 8}, 10);
  const rt::EntryPoints entries = llm.entries();
  std::vector<int64_t> ids{1, 1}, positions{1}, ids8{1, 8}, positions8{8}, ids3{1, 3};
  const inferno_tensor decode[] = {tensor(INFERNO_DTYPE_I64, ids),
                                   tensor(INFERNO_DTYPE_I64, positions)};
  CHECK(rt::select_entry(entries, decode, 2) == 1);
  const inferno_tensor prefill[] = {tensor(INFERNO_DTYPE_I64, ids8),
                                    tensor(INFERNO_DTYPE_I64, positions8)};
  CHECK(rt::select_entry(entries, prefill, 2) == 2);
  const inferno_tensor wrong[] = {tensor(INFERNO_DTYPE_I64, ids3),
                                  tensor(INFERNO_DTYPE_I64, positions)};
  CHECK(rt::select_entry(entries, wrong, 2) == -1);
  CHECK(rt::select_entry(entries, decode, 1) == -1);
  CHECK(rt::select_entry(entries, nullptr, 2) == -1);
  const inferno_tensor f32[] = {tensor(INFERNO_DTYPE_F32, ids),
                                tensor(INFERNO_DTYPE_I64, positions)};
  CHECK(rt::select_entry(entries, f32, 2) == -1);
  const inferno_tensor no_shape[] = {{nullptr, INFERNO_DTYPE_I64, 2, nullptr},
                                     tensor(INFERNO_DTYPE_I64, positions)};
  CHECK(rt::select_entry(entries, no_shape, 2) == -1);

  CHECK(rt::accepted_inputs_text(entries) ==
        "(input_ids i64[1,4], cache_position i64[4]) or (input_ids i64[1,1], cache_position "
        "i64[1]) or (input_ids i64[1,8], cache_position i64[8])");
  CHECK(rt::given_inputs_text(wrong, 2) == "i64[1,3], i64[1]");
  CHECK(rt::given_inputs_text(no_shape, 2) == "?, i64[1]");
  CHECK(rt::given_inputs_text(nullptr, 2) == "a null inputs array");
}

TEST_CASE("state: one aligned block, zeros merged into one memset, values copied", "[runtime]") {
  const int64_t a[] = {3}, b[] = {100}, c[] = {2, 2};
  const inferno_state_desc states[] = {
      {{"a", INFERNO_DTYPE_F32, 1, a}, INFERNO_STATE_INIT_ZERO},   // 12 bytes at 0
      {{"b", INFERNO_DTYPE_I64, 1, b}, INFERNO_STATE_INIT_ZERO},   // 800 bytes at 256
      {{"c", INFERNO_DTYPE_F16, 2, c}, 512},                       // 8 bytes at 1280
      {{"d", INFERNO_DTYPE_F32, 1, a}, INFERNO_STATE_INIT_ZERO}};  // 12 bytes at 1536
  const rt::StateLayout layout = rt::layout_states(states, 4);
  CHECK(layout.offsets == std::vector<uint64_t>{0, 256, 1280, 1536});
  CHECK(layout.total == 1792);
  const std::vector<rt::InitOp> plan = rt::init_plan(states, 4, layout);
  REQUIRE(plan.size() == 3);
  CHECK((plan[0].zero && plan[0].offset == 0 && plan[0].bytes == 1056));  // a, padding, b
  CHECK((!plan[1].zero && plan[1].offset == 1280 && plan[1].bytes == 8 && plan[1].source == 512));
  CHECK((plan[2].zero && plan[2].offset == 1536 && plan[2].bytes == 12));
  CHECK(rt::init_plan(states, 0, rt::layout_states(states, 0)).empty());
}
