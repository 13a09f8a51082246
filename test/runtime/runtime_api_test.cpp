// The C API without a GPU: model checks on every variant, load failures and their statuses, null
// arguments, inspection-only loads and external weights. On a machine with a GPU the device-bound
// load succeeds instead of reporting NO_DEVICE; both are accepted there.
#include <filesystem>
#include <fstream>
#include <string>

#include "inferno/runtime.h"
#include "runtime_test_support.h"
#include "support/catch.h"

using inferno::test::contains;
using inferno::test::model_path;

namespace {

std::string last_error() { return inferno_last_error(); }

}  // namespace

TEST_CASE("model_check accepts the good model and refuses each broken variant", "[runtime]") {
  CHECK(inferno_model_check(model_path("good").c_str(), 0) == INFERNO_STATUS_OK);
  CHECK(last_error().empty());
  CHECK(inferno_model_check(model_path("good").c_str(), INFERNO_GOOD_ARCH) == INFERNO_STATUS_OK);

  CHECK(inferno_model_check(model_path("bad_abi").c_str(), 0) == INFERNO_STATUS_ABI_MISMATCH);
  CHECK(contains(last_error(), "ABI version 999"));

  CHECK(inferno_model_check(model_path("bad_checksum").c_str(), 0) ==
        INFERNO_STATUS_WEIGHTS_CORRUPT);
  CHECK(contains(last_error(), "checksum"));

  CHECK(inferno_model_check(model_path("sm75").c_str(), 0) == INFERNO_STATUS_OK);
  CHECK(inferno_model_check(model_path("sm75").c_str(), 75) == INFERNO_STATUS_OK);
  CHECK(inferno_model_check(model_path("sm75").c_str(), 90) == INFERNO_STATUS_ARCH_MISMATCH);
  CHECK(contains(last_error(), "sm_75"));
  CHECK(contains(last_error(), "sm_90"));
}

TEST_CASE("load reports files that are missing or not models", "[runtime]") {
  inferno_loaded_model* model = nullptr;
  CHECK(inferno_model_load("/nonexistent/model.so", INFERNO_DEVICE_NONE, &model) ==
        INFERNO_STATUS_IO);
  CHECK(model == nullptr);
  CHECK(contains(last_error(), "/nonexistent/model.so"));

  // A text file is not a shared library (written here: __FILE__ may be relative, e.g. with ccache).
  const std::string text_file =
      (std::filesystem::temp_directory_path() / "inferno_runtime_test_not_a_model.so").string();
  std::ofstream(text_file) << "not a shared library\n";
  CHECK(inferno_model_check(text_file.c_str(), 0) == INFERNO_STATUS_LOAD_FAILED);
  std::filesystem::remove(text_file);
  CHECK(contains(last_error(), "cannot load"));
  // A shared library without the entry point is not a model.
  CHECK(inferno_model_check(INFERNO_RUNTIME_SO, 0) == INFERNO_STATUS_LOAD_FAILED);
  CHECK(contains(last_error(), INFERNO_MODEL_ENTRY_NAME));
}

TEST_CASE("null and out-of-range arguments are INVALID_ARGUMENT", "[runtime]") {
  inferno_loaded_model* model = nullptr;
  CHECK(inferno_model_load(nullptr, 0, &model) == INFERNO_STATUS_INVALID_ARGUMENT);
  CHECK(contains(last_error(), "path is null"));
  CHECK(inferno_model_load(model_path("good").c_str(), 0, nullptr) ==
        INFERNO_STATUS_INVALID_ARGUMENT);
  CHECK(inferno_model_load(model_path("good").c_str(), -7, &model) ==
        INFERNO_STATUS_INVALID_ARGUMENT);
  CHECK(inferno_model_check(nullptr, 0) == INFERNO_STATUS_INVALID_ARGUMENT);

  int32_t count = 0;
  inferno_tensor_desc desc{};
  CHECK(inferno_model_num_inputs(nullptr, &count) == INFERNO_STATUS_INVALID_ARGUMENT);
  CHECK(inferno_model_input(nullptr, 0, &desc) == INFERNO_STATUS_INVALID_ARGUMENT);
  inferno_session* session = nullptr;
  CHECK(inferno_session_create(nullptr, nullptr, &session) == INFERNO_STATUS_INVALID_ARGUMENT);
  CHECK(inferno_session_run(nullptr, nullptr, nullptr, 0, nullptr, 0) ==
        INFERNO_STATUS_INVALID_ARGUMENT);
  CHECK(inferno_session_options_default(nullptr) == INFERNO_STATUS_INVALID_ARGUMENT);

  // Releasing nothing is fine.
  CHECK(inferno_model_unload(nullptr) == INFERNO_STATUS_OK);
  CHECK(inferno_session_destroy(nullptr) == INFERNO_STATUS_OK);
}

TEST_CASE("an inspection-only load describes the model but makes no session", "[runtime]") {
  inferno_loaded_model* model = nullptr;
  REQUIRE(inferno_model_load(model_path("good").c_str(), INFERNO_DEVICE_NONE, &model) ==
          INFERNO_STATUS_OK);
  int32_t inputs = 0, outputs = 0;
  CHECK(inferno_model_num_inputs(model, &inputs) == INFERNO_STATUS_OK);
  CHECK(inferno_model_num_outputs(model, &outputs) == INFERNO_STATUS_OK);
  CHECK(inputs == 1);
  CHECK(outputs == 1);
  inferno_tensor_desc x{};
  REQUIRE(inferno_model_input(model, 0, &x) == INFERNO_STATUS_OK);
  CHECK(std::string(x.name) == "x");
  CHECK(x.dtype == INFERNO_DTYPE_F32);
  REQUIRE(x.rank == 2);
  CHECK(x.shape[0] == 4);
  CHECK(x.shape[1] == 8);
  CHECK(inferno_model_input(model, 1, &x) == INFERNO_STATUS_INVALID_ARGUMENT);
  CHECK(contains(last_error(), "input index 1 out of range"));
  const inferno_manifest* manifest = nullptr;
  REQUIRE(inferno_model_manifest(model, &manifest) == INFERNO_STATUS_OK);
  CHECK(std::string(manifest->compiler_version) == "test");
  int device = 0;
  CHECK(inferno_model_device(model, &device) == INFERNO_STATUS_OK);
  CHECK(device == INFERNO_DEVICE_NONE);

  inferno_session* session = nullptr;
  CHECK(inferno_session_create(model, nullptr, &session) == INFERNO_STATUS_INVALID_ARGUMENT);
  CHECK(contains(last_error(), "without a device"));
  CHECK(session == nullptr);
  CHECK(inferno_model_unload(model) == INFERNO_STATUS_OK);
}

TEST_CASE("loading on a device without a GPU is NO_DEVICE with a message, not a crash",
          "[runtime]") {
  inferno_loaded_model* model = nullptr;
  const inferno_status status = inferno_model_load(model_path("good").c_str(), 0, &model);
  if (status == INFERNO_STATUS_OK) {  // this machine has a GPU
    CHECK(inferno_model_unload(model) == INFERNO_STATUS_OK);
    return;
  }
  CHECK(status == INFERNO_STATUS_NO_DEVICE);
  CHECK(model == nullptr);
  // No driver or no GPU, or (naming both CUDA versions) a driver too old for this runtime.
  CHECK((contains(last_error(), "no NVIDIA GPU") || contains(last_error(), "NVIDIA driver")));
  CHECK(inferno_model_load(model_path("good").c_str(), INFERNO_DEVICE_CURRENT, &model) ==
        INFERNO_STATUS_NO_DEVICE);
}

TEST_CASE("external weights are read beside the .so and checked", "[runtime]") {
  inferno::test::TempDir dir;
  const auto so = dir.path() / "test_model_external.so";
  std::filesystem::copy_file(model_path("external"), so);
  const auto weights_file = dir.path() / "test_model_external.weights";
  const inferno_model& good = inferno::test::good_model_abi();
  const auto* blob = static_cast<const unsigned char*>(good.weights);

  CHECK(inferno_model_check(so.c_str(), 0) == INFERNO_STATUS_IO);
  CHECK(contains(last_error(), "test_model_external.weights"));

  inferno::test::write_file(weights_file, blob, good.weights_bytes - 1);
  CHECK(inferno_model_check(so.c_str(), 0) == INFERNO_STATUS_WEIGHTS_CORRUPT);
  CHECK(contains(last_error(), "bytes"));

  std::string flipped(reinterpret_cast<const char*>(blob), good.weights_bytes);
  flipped[17] = static_cast<char>(flipped[17] ^ 0x10);
  inferno::test::write_file(weights_file, flipped.data(), flipped.size());
  CHECK(inferno_model_check(so.c_str(), 0) == INFERNO_STATUS_WEIGHTS_CORRUPT);
  CHECK(contains(last_error(), "checksum"));

  inferno::test::write_file(weights_file, blob, good.weights_bytes);
  CHECK(inferno_model_check(so.c_str(), 0) == INFERNO_STATUS_OK);
}

TEST_CASE("every status has a name", "[runtime]") {
  for (int s = INFERNO_STATUS_OK; s <= INFERNO_STATUS_INTERNAL; ++s) {
    CHECK(std::string(inferno_status_name(static_cast<inferno_status>(s))) != "unknown_status");
  }
  CHECK(std::string(inferno_status_name(INFERNO_STATUS_BUSY)) == "busy");
}
