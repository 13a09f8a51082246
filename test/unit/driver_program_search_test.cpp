// Finding a program on a $PATH-style list (used for nvcc and for Graphviz's dot).
#include <sys/stat.h>

#include "driver/program_search.h"
#include "driver_test_helpers.h"
#include "support/catch.h"

namespace inferno::driver {
namespace {

TEST_CASE("find_in_path returns the first executable of that name, skipping others") {
  test::ScratchDir dir("program_search");
  test::write_text(dir.path() / "a" / "tool", "not executable\n");  // mode 0644: skipped
  std::filesystem::create_directories(dir.path() / "b" / "tool");   // a directory: skipped
  const std::string first = test::write_script(dir.path() / "c" / "tool", "exit 0\n");
  test::write_script(dir.path() / "d" / "tool", "exit 0\n");

  const std::string list = dir / "a" + ":" + dir / "b" + "::" + dir / "c/" + ":" + dir / "d";
  CHECK(find_in_path("tool", list) == first);
  CHECK(find_in_path("tool", dir / "a") == "");
  CHECK(find_in_path("other", list) == "");
  CHECK(find_in_path("tool", "") == "");
}

TEST_CASE("an empty $PATH entry never means the current directory") {
  test::ScratchDir dir("program_search_cwd");
  const std::string here = test::write_script(dir.path() / "tool", "exit 0\n");
  const std::filesystem::path before = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  CHECK(find_in_path("tool", ":") == "");
  CHECK(find_in_path("tool", "") == "");
  std::filesystem::current_path(before);
}

TEST_CASE("why_not_executable says why") {
  test::ScratchDir dir("program_search_why");
  test::write_text(dir.path() / "plain", "x\n");
  CHECK(why_not_executable(dir / "plain") == "not executable");
  CHECK(why_not_executable(dir.path().string()) == "not a regular file");
  CHECK(why_not_executable(dir / "missing") == "No such file or directory");
  CHECK(why_not_executable(test::write_script(dir.path() / "ok", "exit 0\n")).empty());
}

}  // namespace
}  // namespace inferno::driver
