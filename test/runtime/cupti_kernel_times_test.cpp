// The CUPTI loader of inferno-run --profile (runtime/tools/cupti_kernel_times.h) without a GPU:
// a library that is not there, or is not CUPTI, gives no recorder and says why, so that the
// profile falls back to CUDA events instead of failing or reporting empty steps.
#include "cupti_kernel_times.h"

#include <cstdlib>
#include <string>

#include "support/catch.h"

namespace {

// Built without CUPTI's headers, every start() says only that.
bool without_headers(const std::string& why) {
  return why.find("built without CUPTI's headers") != std::string::npos;
}

struct ScopedEnv {
  std::string name;
  ScopedEnv(const char* n, const char* value) : name(n) { setenv(n, value, 1); }
  ~ScopedEnv() { unsetenv(name.c_str()); }
};

}  // namespace

TEST_CASE("CUPTI timing: a named library that does not load gives no recorder and a reason",
          "[profile]") {
  const ScopedEnv env("INFERNO_CUPTI_LIB", "/nonexistent/libcupti.so");
  std::string why;
  CHECK(inferno::run::CuptiKernelTimes::start(why) == nullptr);
  CHECK((why.find("libcupti not found") != std::string::npos || without_headers(why)));
}

TEST_CASE("CUPTI timing: a library without CUPTI's functions is refused by name", "[profile]") {
  // libc loads, but has no cuptiActivityEnable.
  const ScopedEnv env("INFERNO_CUPTI_LIB", "libc.so.6");
  std::string why;
  CHECK(inferno::run::CuptiKernelTimes::start(why) == nullptr);
  CHECK((why.find("lacks an activity API function") != std::string::npos || without_headers(why)));
}
