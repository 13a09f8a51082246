// The C API's view of a model ABI 2 LLM without a GPU (the test LLM, test_llm.cu, loaded for
// inspection): its states, max_positions, variants and dynamic dims (the C++ wrapper's too),
// generate's argument checks, and what `inferno-run --check` prints about them.
#include <string>
#include <vector>

#include "inferno/runtime.h"
#include "inferno/runtime.hpp"
#include "runtime_test_support.h"
#include "support/catch.h"
#include "support/subprocess.h"

using inferno::test::contains;
using inferno::test::model_path;

namespace {

std::string last_error() { return inferno_last_error(); }

// The test LLM loaded for inspection; unloaded at the end of the test.
struct Inspected {
  inferno_loaded_model* model = nullptr;
  Inspected() {
    REQUIRE(inferno_model_load(model_path("llm").c_str(), INFERNO_DEVICE_NONE, &model) ==
            INFERNO_STATUS_OK);
  }
  ~Inspected() { inferno_model_unload(model); }
};

}  // namespace

TEST_CASE("llm: states, max_positions and weights are described", "[runtime]") {
  Inspected llm;
  int32_t count = 0;
  REQUIRE(inferno_model_num_states(llm.model, &count) == INFERNO_STATUS_OK);
  REQUIRE(count == 2);
  inferno_state_desc state{};
  uint64_t bytes = 0;
  REQUIRE(inferno_model_state(llm.model, 0, &state, &bytes) == INFERNO_STATUS_OK);
  CHECK(std::string(state.tensor.name) == "cache");
  CHECK(state.tensor.dtype == INFERNO_DTYPE_I64);
  CHECK(state.init_offset == INFERNO_STATE_INIT_ZERO);
  CHECK(bytes == 32 * 8);
  REQUIRE(inferno_model_state(llm.model, 1, &state, nullptr) == INFERNO_STATUS_OK);
  CHECK(std::string(state.tensor.name) == "counter");
  CHECK(state.init_offset == 0);
  CHECK(inferno_model_state(llm.model, 2, &state, &bytes) == INFERNO_STATUS_INVALID_ARGUMENT);
  CHECK(contains(last_error(), "state index 2 out of range (2)"));
  int64_t max_positions = 0;
  CHECK(inferno_model_max_positions(llm.model, &max_positions) == INFERNO_STATUS_OK);
  CHECK(max_positions == 32);
  int64_t vocab = 0;
  CHECK(inferno_model_vocab_size(llm.model, &vocab) == INFERNO_STATUS_OK);
  CHECK(vocab == 1000);
  inferno_loaded_model* plain = nullptr;
  REQUIRE(inferno_model_load(model_path("good").c_str(), INFERNO_DEVICE_NONE, &plain) ==
          INFERNO_STATUS_OK);
  CHECK(inferno_model_vocab_size(plain, &vocab) == INFERNO_STATUS_INVALID_ARGUMENT);
  CHECK(contains(last_error(), "not an LLM to generate with"));
  inferno_model_unload(plain);
  uint64_t weights = 0;
  CHECK(inferno_model_weights_bytes(llm.model, &weights) == INFERNO_STATUS_OK);
  CHECK(weights == 256);
}

TEST_CASE("llm: variants are listed, the model itself first", "[runtime]") {
  Inspected llm;
  int32_t count = 0;
  REQUIRE(inferno_model_num_variants(llm.model, &count) == INFERNO_STATUS_OK);
  REQUIRE(count == 3);
  const int64_t lengths[] = {4, 1, 8};
  for (int32_t v = 0; v < 3; ++v) {
    int32_t inputs = 0, outputs = 0;
    REQUIRE(inferno_model_variant_num_inputs(llm.model, v, &inputs) == INFERNO_STATUS_OK);
    REQUIRE(inferno_model_variant_num_outputs(llm.model, v, &outputs) == INFERNO_STATUS_OK);
    CHECK(inputs == 2);
    CHECK(outputs == 1);
    inferno_tensor_desc ids{}, logits{};
    REQUIRE(inferno_model_variant_input(llm.model, v, 0, &ids) == INFERNO_STATUS_OK);
    REQUIRE(inferno_model_variant_output(llm.model, v, 0, &logits) == INFERNO_STATUS_OK);
    CHECK(std::string(ids.name) == "input_ids");
    CHECK(ids.shape[1] == lengths[v]);
    CHECK(logits.shape[2] == 1000);
  }
  inferno_tensor_desc desc{};
  CHECK(inferno_model_variant_input(llm.model, 3, 0, &desc) == INFERNO_STATUS_INVALID_ARGUMENT);
  CHECK(contains(last_error(), "variant index 3 out of range (3)"));
  CHECK(inferno_model_variant_output(llm.model, 0, 1, &desc) == INFERNO_STATUS_INVALID_ARGUMENT);
  CHECK(inferno_model_num_variants(nullptr, &count) == INFERNO_STATUS_INVALID_ARGUMENT);
}

TEST_CASE("llm: the dynamic dims are listed with their range and uses", "[runtime]") {
  Inspected llm;
  int32_t count = 0;
  REQUIRE(inferno_model_num_dynamic_dims(llm.model, &count) == INFERNO_STATUS_OK);
  REQUIRE(count == 1);
  const char* name = nullptr;
  int64_t min = 0, max = 0;
  int32_t uses = 0;
  REQUIRE(inferno_model_dynamic_dim(llm.model, 0, &name, &min, &max, &uses) == INFERNO_STATUS_OK);
  CHECK(std::string(name) == "seq_length");
  CHECK(min == 1);
  CHECK(max == 31);
  REQUIRE(uses == 2);
  int32_t input = -1, axis = -1;
  REQUIRE(inferno_model_dynamic_dim_use(llm.model, 0, 1, &input, &axis) == INFERNO_STATUS_OK);
  CHECK(input == 1);
  CHECK(axis == 0);
  CHECK(inferno_model_dynamic_dim_use(llm.model, 0, 2, &input, &axis) ==
        INFERNO_STATUS_INVALID_ARGUMENT);
  CHECK(contains(last_error(), "use index 2 out of range (2)"));
  CHECK(inferno_model_dynamic_dim(llm.model, 1, &name, &min, &max, &uses) ==
        INFERNO_STATUS_INVALID_ARGUMENT);
  CHECK(inferno_model_num_dynamic_dims(nullptr, &count) == INFERNO_STATUS_INVALID_ARGUMENT);
  // The C++ wrapper reads the same.
  const inferno::Model model(model_path("llm"), INFERNO_DEVICE_NONE);
  const std::vector<inferno::DynamicDim> dims = model.dynamic_dims();
  REQUIRE(dims.size() == 1);
  CHECK(dims[0].name == "seq_length");
  CHECK(dims[0].max == 31);
  REQUIRE(dims[0].uses.size() == 2);
  CHECK(dims[0].uses[0].input == 0);
  CHECK(dims[0].uses[0].axis == 1);
  // A model without dynamic dims lists none.
  inferno_loaded_model* good = nullptr;
  REQUIRE(inferno_model_load(model_path("good").c_str(), INFERNO_DEVICE_NONE, &good) ==
          INFERNO_STATUS_OK);
  CHECK(inferno_model_num_dynamic_dims(good, &count) == INFERNO_STATUS_OK);
  CHECK(count == 0);
  inferno_model_unload(good);
}

TEST_CASE("llm: generate and reset check their arguments before anything else", "[runtime]") {
  inferno_generate_options options{};
  REQUIRE(inferno_generate_options_default(&options) == INFERNO_STATUS_OK);
  CHECK(options.struct_size == sizeof(inferno_generate_options));
  CHECK(options.max_new_tokens == 16);
  CHECK(options.temperature == 0.0f);
  CHECK(options.top_p == 1.0f);
  CHECK(inferno_generate_options_default(nullptr) == INFERNO_STATUS_INVALID_ARGUMENT);
  const int64_t prompt[] = {1};
  int64_t tokens[16];
  int32_t n = -1;
  CHECK(inferno_session_generate(nullptr, nullptr, prompt, 1, &options, tokens, &n, nullptr) ==
        INFERNO_STATUS_INVALID_ARGUMENT);
  CHECK(contains(last_error(), "session is null"));
  CHECK(inferno_session_reset_state(nullptr, nullptr) == INFERNO_STATUS_INVALID_ARGUMENT);
}

TEST_CASE("llm: inferno-run --check lists states, max_positions and variants", "[runtime]") {
  const auto result =
      inferno::test::run_process({INFERNO_RUN_EXE, model_path("llm"), "--check", "0"});
  INFO(result.out << result.err);
  CHECK(result.exit_code == 0);
  CHECK(contains(result.out, "input  input_ids: i64[1,4]"));
  CHECK(contains(result.out, "state  cache: i64[32], 256 bytes, zeros"));
  CHECK(contains(result.out, "state  counter: i64[1], 8 bytes, from the weights at 0"));
  CHECK(contains(result.out, "max_positions 32"));
  CHECK(contains(result.out, "variant 1: input_ids i64[1,1], cache_position i64[1]"));
  CHECK(contains(result.out, "variant 2: input_ids i64[1,8], cache_position i64[8]"));
  CHECK(contains(result.out, "generates: vocab 1000"));
  CHECK(contains(result.out,
                 "dynamic dim seq_length: exported for 1..31 (input_ids dim 1, "
                 "cache_position dim 0), compiled for 4, 1, 8"));
}
