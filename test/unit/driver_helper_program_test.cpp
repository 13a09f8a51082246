// Finding a program infernoc runs as a child (driver/helper_program.h): the environment variable,
// then each directory relative to the running executable (here the test binary), in order.
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "driver/helper_program.h"
#include "driver/process.h"
#include "support/catch.h"

namespace inferno::driver {
namespace {

constexpr const char* kVariable = "INFERNO_TEST_HELPER_PROGRAM";

TEST_CASE("find_helper_program tries the variable, then each directory, and names them all") {
  ::unsetenv(kVariable);
  const std::string dir = executable_dir().string();
  const std::string parent = executable_dir().parent_path().string();

  const HelperProgram missing{
      "the test helper", "no-such-helper", kVariable, {".", "../a", "../b/c"}};
  Expected<std::string> found = find_helper_program(missing);
  REQUIRE_FALSE(found.has_value());
  CHECK(found.status().code() == ErrorCode::kToolchain);
  CHECK(found.status().message() ==
        "cannot find the test helper no-such-helper: it is none of '" + dir +
            "/no-such-helper', '" + parent + "/a/no-such-helper', '" + parent +
            "/b/c/no-such-helper'; set INFERNO_TEST_HELPER_PROGRAM to its path");

  // The test binary itself, found in the second directory tried (normalized: no "..").
  const std::string name = std::filesystem::read_symlink("/proc/self/exe").filename().string();
  const HelperProgram beside{"the test binary", name, kVariable, {"../no-such-dir", "."}};
  found = find_helper_program(beside);
  REQUIRE(found.has_value());
  CHECK(*found == dir + "/" + name);

  ::setenv(kVariable, "/bin/sh", 1);
  found = find_helper_program(missing);
  REQUIRE(found.has_value());
  CHECK(*found == "/bin/sh");
  ::setenv(kVariable, "/", 1);  // a directory
  found = find_helper_program(beside);
  REQUIRE_FALSE(found.has_value());
  CHECK(found.status().message() ==
        "INFERNO_TEST_HELPER_PROGRAM is '/', which is not an executable file");
  ::unsetenv(kVariable);
}

}  // namespace
}  // namespace inferno::driver
