// What the shared libraries export, read with `nm -D --defined-only` (spawned, no shell): a model
// exports only its entry points (the describe functions); the runtime only its C API (inferno_*),
// not the cudart inside it.
#include <sstream>
#include <string>
#include <vector>

#include "inferno/model_abi.h"
#include "inferno/model_dims.h"
#include "runtime_test_support.h"
#include "support/catch.h"
#include "support/subprocess.h"

namespace {

// The defined dynamic symbols of `library` (nm lines are "<address> <type> <name>").
std::vector<std::string> exported_symbols(const std::string& library) {
  const auto result = inferno::test::run_process({INFERNO_NM, "-D", "--defined-only", library});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  std::vector<std::string> names;
  std::istringstream lines(result.out);
  for (std::string line; std::getline(lines, line);) {
    const size_t space = line.rfind(' ');
    if (!line.empty()) names.push_back(line.substr(space + 1));
  }
  return names;
}

}  // namespace

TEST_CASE("each test model exports only its entry symbols", "[runtime]") {
  for (const char* variant : {"good", "bad_abi", "bad_checksum", "sm75", "external", "fault"}) {
    const std::string path = inferno::test::model_path(variant);
    INFO(path);
    CHECK(exported_symbols(path) == std::vector<std::string>{INFERNO_MODEL_ENTRY_NAME});
  }
  for (const char* variant : {"llm", "llm_f16"}) {  // with the dims table (model_dims.h)
    const std::string path = inferno::test::model_path(variant);
    INFO(path);
    CHECK(exported_symbols(path) ==
          std::vector<std::string>{INFERNO_MODEL_ENTRY_NAME, INFERNO_MODEL_DIMS_ENTRY_NAME});
  }
}

TEST_CASE("the runtime library exports only its C API", "[runtime]") {
  const std::vector<std::string> names = exported_symbols(INFERNO_RUNTIME_SO);
  CHECK(names.size() >= 15);
  for (const std::string& name : names) {
    INFO(name);
    CHECK(name.rfind("inferno_", 0) == 0);
  }
}
