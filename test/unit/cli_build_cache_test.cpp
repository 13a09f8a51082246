// infernoc's build cache as a user meets it: --cache-dir, --no-cache, the environment, hits that
// do not run nvcc, misses when a flag or the toolchain changes, concurrent compiles into one
// cache, and -v's report (hit or miss, the key, one time line per stage). A recording fake nvcc
// (driver_test_helpers.h) counts the builds.
#include <algorithm>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "cli_test_helpers.h"
#include "driver_test_helpers.h"
#include "support/catch.h"
#include "support/subprocess.h"
#include "support/test_support.h"

namespace inferno {
namespace {

namespace fs = std::filesystem;
using test::contains;
using test::count_lines;
using test::fixture_path;
using test::ScopedEnvVar;
using test::ScratchDir;

using test::infernoc;

/// The .entry files of a cache directory.
std::vector<fs::path> entries(const fs::path& cache) {
  std::vector<fs::path> found;
  if (!fs::is_directory(cache)) return found;
  for (const auto& e : fs::directory_iterator(cache)) {
    if (e.path().extension() == ".entry") found.push_back(e.path());
  }
  return found;
}

struct CliCacheFixture {
  explicit CliCacheFixture(const std::string& name, int rendezvous = 1)
      : dir("cli_" + name),
        nvcc(test::write_recording_nvcc(dir.path() / "bin" / "nvcc", dir.path() / "calls.log",
                                        "13.0", rendezvous)) {}
  int builds() const { return count_lines(dir.path() / "calls.log"); }
  /// Compiles mlp2 to out.so with `extra` flags (the fake nvcc and sm_90 unless they say).
  test::ProcessResult compile(std::vector<std::string> extra) const {
    std::vector<std::string> args = {fixture_path("mlp2/model.pt2"), "-o", dir / "out.so"};
    auto given = [&](const char* flag) {
      return std::find(extra.begin(), extra.end(), flag) != extra.end();
    };
    if (!given("--nvcc")) args.insert(args.end(), {"--nvcc", nvcc});
    if (!given("--arch")) args.insert(args.end(), {"--arch", "sm_90"});
    args.insert(args.end(), extra.begin(), extra.end());
    return infernoc(args);
  }

  ScratchDir dir;
  std::string nvcc;
};

TEST_CASE("a second compile of an unchanged model is a cache hit and runs no nvcc") {
  CliCacheFixture f("cache_hit");
  const std::string cache = f.dir / "cache";
  auto first = f.compile({"--cache-dir", cache, "-v"});
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  CHECK(f.builds() == 1);
  CHECK(contains(first.err, "infernoc: build cache: miss, key "));
  const std::string built = test::read_text_file(f.dir / "out.so");
  CHECK(contains(built, "inferno_model_describe"));  // the fake "library" is model.cu
  REQUIRE(entries(cache).size() == 1);
  const std::string key = entries(cache).front().stem().string();
  CHECK(contains(first.err, key));
  // -v: one line per stage, in ms.
  for (const char* stage : {"toolchain", "frontend", "passes", "codegen", "cache lookup",
                            "build dir", "nvcc", "link/copy out", "cache store", "total"}) {
    INFO(stage);
    CHECK(contains(first.err, std::string("infernoc: time: ") + stage));
  }

  fs::remove(f.dir / "out.so");
  auto second = f.compile({"--cache-dir", cache, "-v"});
  INFO(second.err);
  REQUIRE(second.exit_code == 0);
  CHECK(f.builds() == 1);
  CHECK(contains(second.err, "infernoc: build cache: hit, key " + key));
  CHECK(contains(second.err, "from the build cache"));
  CHECK_FALSE(contains(second.err, "compiling model.cu with nvcc"));
  CHECK_FALSE(contains(second.err, "time: nvcc"));
  CHECK(test::read_text_file(f.dir / "out.so") == built);

  // Without -v: no key and no times.
  auto quiet = f.compile({"--cache-dir", cache});
  REQUIRE(quiet.exit_code == 0);
  CHECK(f.builds() == 1);
  CHECK_FALSE(contains(quiet.err, "time:"));
  CHECK_FALSE(contains(quiet.err, key));
  CHECK(contains(quiet.err, "from the build cache"));

  // --no-cache always builds, and stores nothing; so does INFERNO_NO_CACHE without --cache-dir.
  {
    ScopedEnvVar env_dir("INFERNO_CACHE_DIR", cache);
    REQUIRE(f.compile({"--no-cache"}).exit_code == 0);
    CHECK(f.builds() == 2);
    REQUIRE(f.compile({"--no-cache"}).exit_code == 0);
    CHECK(f.builds() == 3);
    ScopedEnvVar off("INFERNO_NO_CACHE", "1");
    REQUIRE(f.compile({}).exit_code == 0);
    CHECK(f.builds() == 4);
  }
  CHECK(entries(cache).size() == 1);
}

TEST_CASE("a changed flag, weights mode or nvcc version misses the cache") {
  CliCacheFixture f("cache_miss");
  const std::string cache = f.dir / "cache";
  REQUIRE(f.compile({"--cache-dir", cache}).exit_code == 0);
  int builds = 1;
  // (Not --precision tf32: mlp2's 4-row GEMMs take the GEMV kernel, exact f32 under either
  // precision, so the build is the same.)
  const std::vector<std::vector<std::string>> variations = {
      {"--arch", "sm_80"}, {"--precision", "fp16"}, {"-O0"}, {"--weights", "external"}};
  for (const auto& flags : variations) {
    INFO(flags.front());
    std::vector<std::string> args = flags;
    args.insert(args.end(), {"--cache-dir", cache});
    REQUIRE(f.compile(args).exit_code == 0);
    CHECK(f.builds() == ++builds);
    REQUIRE(f.compile(args).exit_code == 0);  // and then hits
    CHECK(f.builds() == builds);
  }
  // A flag that changes nothing the build reads hits: mlp2 has no convolution to lay out.
  REQUIRE(f.compile({"--layout", "nhwc", "--cache-dir", cache}).exit_code == 0);
  CHECK(f.builds() == builds);
  // The same model with a newer nvcc (a fake one reporting CUDA 13.1).
  const std::string newer = test::write_recording_nvcc(f.dir.path() / "bin131" / "nvcc",
                                                       f.dir.path() / "calls.log", "13.1");
  REQUIRE(f.compile({"--nvcc", newer, "--cache-dir", cache}).exit_code == 0);
  CHECK(f.builds() == ++builds);
  CHECK(entries(cache).size() == variations.size() + 2);
  // --weights external restores both files of the set.
  fs::remove(f.dir / "out.so");
  fs::remove(f.dir / "out.weights");
  REQUIRE(f.compile({"--weights", "external", "--cache-dir", cache}).exit_code == 0);
  CHECK(f.builds() == builds);
  CHECK(fs::file_size(f.dir / "out.weights") > 0);
  CHECK(fs::exists(f.dir / "out.so"));
}

TEST_CASE("the cache directory defaults to INFERNO_CACHE_DIR, XDG_CACHE_HOME, then HOME") {
  CliCacheFixture f("cache_default");
  ScopedEnvVar on("INFERNO_NO_CACHE", std::nullopt);
  {
    ScopedEnvVar dir("INFERNO_CACHE_DIR", f.dir / "env_cache");
    ScopedEnvVar xdg("XDG_CACHE_HOME", f.dir / "xdg");
    REQUIRE(f.compile({}).exit_code == 0);
    CHECK(entries(f.dir.path() / "env_cache").size() == 1);
  }
  {
    ScopedEnvVar dir("INFERNO_CACHE_DIR", std::nullopt);
    ScopedEnvVar xdg("XDG_CACHE_HOME", f.dir / "xdg");
    REQUIRE(f.compile({}).exit_code == 0);
    CHECK(entries(f.dir.path() / "xdg" / "infernoc").size() == 1);
  }
  {
    ScopedEnvVar dir("INFERNO_CACHE_DIR", std::nullopt);
    ScopedEnvVar xdg("XDG_CACHE_HOME", std::nullopt);
    ScopedEnvVar home("HOME", f.dir / "home");
    REQUIRE(f.compile({}).exit_code == 0);
    CHECK(entries(f.dir.path() / "home" / ".cache" / "infernoc").size() == 1);
  }
  CHECK(f.builds() == 3);
}

TEST_CASE("cache options are only for emit so and other emits never touch the cache") {
  CliCacheFixture f("cache_emit_cu");
  const std::string cache = f.dir / "cache";
  auto cu = infernoc({fixture_path("mlp2/model.pt2"), "--emit", "cu", "--cache-dir", cache});
  CHECK(cu.exit_code == 3);
  CHECK(contains(cu.err, "--cache-dir is only used with --emit so"));
  auto both = f.compile({"--cache-dir", cache, "--no-cache"});
  CHECK(both.exit_code == 3);
  CHECK(contains(both.err, "exclude each other"));
  ScopedEnvVar env_dir("INFERNO_CACHE_DIR", cache);
  ScopedEnvVar on("INFERNO_NO_CACHE", std::nullopt);
  auto emitted = infernoc(
      {fixture_path("mlp2/model.pt2"), "--emit", "cu", "-o", f.dir / "m.cu", "--nvcc", f.nvcc});
  REQUIRE(emitted.exit_code == 0);
  CHECK(contains(test::read_text_file(f.dir / "m.cu"), "inferno_model_describe"));
  CHECK_FALSE(fs::exists(cache));
  CHECK(f.builds() == 0);
}

TEST_CASE("two concurrent compiles into one cache both succeed and leave a valid entry") {
  // Each nvcc waits for the other: both compiles miss and build at once.
  CliCacheFixture f("cache_concurrent", 2);
  const std::string cache = f.dir / "cache";
  test::ProcessResult results[2];
  std::thread other([&] {
    results[1] = infernoc({fixture_path("mlp2/model.pt2"), "-o", f.dir / "b.so", "--nvcc", f.nvcc,
                           "--arch", "sm_90", "--cache-dir", cache});
  });
  results[0] = infernoc({fixture_path("mlp2/model.pt2"), "-o", f.dir / "a.so", "--nvcc", f.nvcc,
                         "--arch", "sm_90", "--cache-dir", cache});
  other.join();
  for (const auto& result : results) {
    INFO(result.err);
    CHECK(result.exit_code == 0);
  }
  CHECK(f.builds() == 2);
  CHECK(test::read_text_file(f.dir / "a.so") == test::read_text_file(f.dir / "b.so"));
  // One entry, no temp file left, and it is whole: the next compile hits it.
  CHECK(test::list_dir(cache).size() == 1);
  auto third = f.compile({"--cache-dir", cache, "-v"});
  INFO(third.err);
  CHECK(contains(third.err, "build cache: hit"));
  CHECK(f.builds() == 2);
  CHECK(test::read_text_file(f.dir / "out.so") == test::read_text_file(f.dir / "a.so"));
}

}  // namespace
}  // namespace inferno
