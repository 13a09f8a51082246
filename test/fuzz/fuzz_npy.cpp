// The two .npy readers: the compiler's (support/npy.h: --data, the reference runner) and the
// runtime tools' (runtime/tools/npy.h: inferno-run). Any file either accepts must survive a
// write and a re-read unchanged; anything else must be refused as malformed input.
#include <cstdlib>
#include <vector>

#include "fuzz_target.h"
#include "support/npy.h"
#include "tools/npy.h"

namespace {

void check(bool condition, const char* what) {
  if (condition) return;
  std::fprintf(stderr, "fuzz_npy: %s\n", what);
  std::abort();
}

void compiler_reader(const std::vector<std::byte>& bytes) {
  inferno::Expected<inferno::NpyArray> array = inferno::parse_npy(bytes, "fuzz.npy");
  if (!array) {
    inferno::fuzz::require_not_internal(array.status(), "parse_npy");
    return;
  }
  inferno::Expected<std::vector<std::byte>> image = inferno::serialize_npy(*array);
  check(image.has_value(), "serialize_npy refused an array parse_npy accepted");
  inferno::Expected<inferno::NpyArray> again = inferno::parse_npy(*image, "fuzz.npy");
  check(again.has_value(), "parse_npy refused what serialize_npy wrote");
  check(again->descr == array->descr && again->shape == array->shape && again->data == array->data,
        "parse_npy(serialize_npy(a)) differs from a");
}

void runtime_reader(const std::vector<std::byte>& bytes) {
  inferno::npy::Array array;
  try {
    array = inferno::npy::parse(bytes, "fuzz.npy");
  } catch (const inferno::npy::Error&) {
    return;  // refused as malformed: the expected outcome for most inputs
  }
  const inferno::npy::Array again = inferno::npy::parse(inferno::npy::serialize(array), "fuzz.npy");
  check(again.descr == array.descr && again.shape == array.shape && again.data == array.data,
        "npy::parse(npy::serialize(a)) differs from a");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto* begin = reinterpret_cast<const std::byte*>(data);
  const std::vector<std::byte> bytes(begin, begin + size);
  compiler_reader(bytes);
  runtime_reader(bytes);
  return 0;
}
