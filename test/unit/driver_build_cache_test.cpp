// The build cache (driver/build_cache.h): what its key covers, hits and misses through
// build_shared_object, external weights cached as a set, and corrupt entries discarded and
// rebuilt. A recording fake nvcc (driver_test_helpers.h) counts the builds.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "driver/build.h"
#include "driver/build_cache.h"
#include "driver_test_helpers.h"
#include "support/catch.h"
#include "support/test_support.h"
#include "support/version.h"

namespace inferno::driver {
namespace {

namespace fs = std::filesystem;
using test::count_lines;
using test::ScratchDir;

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

/// Points TMPDIR at a directory of the scratch tree for the scope (kept build directories of
/// failed builds land there, and go with the scratch tree).
class ScopedTmp {
 public:
  explicit ScopedTmp(const ScratchDir& dir)
      : tmp_((fs::create_directories(dir.path() / "tmp"), "TMPDIR"), dir / "tmp") {}

 private:
  test::ScopedEnvVar tmp_;
};

codegen::GeneratedModel small_model() {
  codegen::GeneratedModel model;
  model.cuda_source = "// model.cu of a test\n#include \"kernels/tiny.cuh\"\n";
  model.exports_map = "{ global: inferno_model_describe; local: *; };\n";
  for (int i = 0; i < 3000; ++i) model.weights.push_back(static_cast<std::byte>(i * 7 % 256));
  return model;
}

/// A scratch tree: a kernels root with kernels/tiny.cuh, a recording nvcc, a cache directory.
struct CacheFixture {
  explicit CacheFixture(const std::string& name) : dir(name) {
    test::write_text(dir.path() / "src" / "kernels" / "tiny.cuh", "// tiny kernel\n");
    options.toolchain.nvcc =
        test::write_recording_nvcc(dir.path() / "bin" / "nvcc", dir.path() / "calls.log");
    options.toolchain.version = {13, 0};
    options.toolchain.version_output = "Cuda compilation tools, release 13.0, V13.0.1\n";
    options.source_dirs.kernels_root = dir / "src";
    options.source_dirs.include_dir = std::string(INFERNO_SOURCE_DIR) + "/include";
    options.archs = {{90, false}};
    options.output = dir / "model.so";
    options.cache_dir = dir / "cache";
  }
  int builds() const { return count_lines(dir.path() / "calls.log"); }
  std::string key(const codegen::GeneratedModel& model, const BuildOptions& o,
                  std::string_view version = "1.0.0") const {
    Expected<std::string> k = build_cache_key(model, o, version);
    REQUIRE(k.has_value());
    return *k;
  }
  BuildReport build(const codegen::GeneratedModel& model, const BuildOptions& o) const {
    BuildReport report;
    const Status status = build_shared_object(model, o, &report);
    INFO(status.to_string());
    REQUIRE(status.is_ok());
    return report;
  }
  /// The one entry in the cache directory.
  fs::path entry() const {
    std::vector<fs::path> entries;
    for (const auto& e : fs::directory_iterator(dir.path() / "cache")) entries.push_back(e.path());
    REQUIRE(entries.size() == 1);
    return entries.front();
  }

  ScratchDir dir;
  BuildOptions options;
};

TEST_CASE("the build cache key is the same for the same inputs and changes with each of them") {
  CacheFixture f("cache_key");
  const codegen::GeneratedModel model = small_model();
  const std::string base = f.key(model, f.options);
  CHECK(base.size() == 64);
  CHECK(f.key(model, f.options) == base);
  CHECK(f.key(small_model(), f.options) == base);  // an equal model, built again

  std::vector<std::pair<std::string, std::string>> changed;  // what changed, the key
  {
    codegen::GeneratedModel m = model;
    m.cuda_source += "// another line\n";
    changed.emplace_back("model.cu", f.key(m, f.options));
  }
  {
    codegen::GeneratedModel m = model;
    m.weights[1234] ^= std::byte{1};
    changed.emplace_back("one weight bit", f.key(m, f.options));
  }
  {
    codegen::GeneratedModel m = model;
    m.exports_map += " ";
    changed.emplace_back("exports.map", f.key(m, f.options));
  }
  {
    BuildOptions o = f.options;
    o.archs = {{80, false}};
    changed.emplace_back("--arch", f.key(model, o));
  }
  {
    BuildOptions o = f.options;
    o.external_weights = f.dir / "model.weights";
    changed.emplace_back("--weights external", f.key(model, o));
  }
  {
    BuildOptions o = f.options;
    o.toolchain.version_output = "Cuda compilation tools, release 13.1, V13.1.0\n";
    changed.emplace_back("nvcc --version", f.key(model, o));
  }
  changed.emplace_back("infernoc's version", f.key(model, f.options, "1.0.1"));
  {
    // Another nvcc file with the same version (a different install, or a fake).
    BuildOptions o = f.options;
    o.toolchain.nvcc =
        test::write_recording_nvcc(f.dir.path() / "bin2" / "nvcc", f.dir.path() / "calls.log");
    changed.emplace_back("the nvcc file", f.key(model, o));
  }
  {
    test::ScopedEnvVar flags("NVCC_APPEND_FLAGS", "-DEXTRA=1");
    changed.emplace_back("NVCC_APPEND_FLAGS", f.key(model, f.options));
  }
  test::write_text(f.dir.path() / "src" / "kernels" / "tiny.cuh", "// tiny kernel, edited\n");
  changed.emplace_back("a kernel header", f.key(model, f.options));
  test::write_text(f.dir.path() / "src" / "kernels" / "tiny.cuh", "// tiny kernel\n");
  CHECK(f.key(model, f.options) == base);  // restored: the same key again
  test::write_text(f.dir.path() / "src" / "kernels" / "new.cuh", "// a new header\n");
  changed.emplace_back("a new kernel file", f.key(model, f.options));

  // The output's and the build directory's names decide nothing in model.so.
  BuildOptions renamed = f.options;
  renamed.output = f.dir / "elsewhere.so";
  renamed.keep_build_dir = f.dir / "kept";
  fs::remove(f.dir.path() / "src" / "kernels" / "new.cuh");
  CHECK(f.key(model, renamed) == base);

  for (size_t i = 0; i < changed.size(); ++i) {
    INFO(changed[i].first);
    CHECK(changed[i].second != base);
    for (size_t k = 0; k < i; ++k) CHECK(changed[i].second != changed[k].second);
  }
}

TEST_CASE("a second build with the same inputs is a cache hit and nvcc does not run") {
  CacheFixture f("cache_hit");
  const codegen::GeneratedModel model = small_model();
  const BuildReport first = f.build(model, f.options);
  CHECK(first.cache == CacheOutcome::kMiss);
  CHECK(f.builds() == 1);
  const std::string built = read_bytes(f.options.output);
  CHECK(built ==
        model.cuda_source +
            std::string(reinterpret_cast<const char*>(model.weights.data()), model.weights.size()));
  CHECK(f.entry().filename().string() == first.cache_key + ".entry");

  fs::remove(f.options.output);
  const BuildReport second = f.build(model, f.options);
  CHECK(second.cache == CacheOutcome::kHit);
  CHECK(second.cache_key == first.cache_key);
  CHECK(f.builds() == 1);
  CHECK(read_bytes(f.options.output) == built);
  CHECK((fs::status(f.options.output).permissions() & fs::perms::owner_exec) != fs::perms::none);
  // Nothing but the output beside it: no temp file left.
  CHECK(test::list_dir(f.dir.path()) ==
        std::set<std::string>{"bin", "cache", "calls.log", "model.so", "src"});

  // A changed model misses and gets its own entry; without a cache directory nvcc always runs.
  codegen::GeneratedModel other = small_model();
  other.cuda_source += "// changed\n";
  CHECK(f.build(other, f.options).cache == CacheOutcome::kMiss);
  CHECK(f.builds() == 2);
  CHECK(read_bytes(f.options.output).substr(0, other.cuda_source.size()) == other.cuda_source);
  BuildOptions no_cache = f.options;
  no_cache.cache_dir.clear();
  CHECK(f.build(model, no_cache).cache == CacheOutcome::kOff);
  CHECK(f.build(model, no_cache).cache == CacheOutcome::kOff);
  CHECK(f.builds() == 4);
  // --keep-build asks for a build directory: it builds, and stores.
  BuildOptions keep = f.options;
  keep.keep_build_dir = f.dir / "kept";
  CHECK(f.build(model, keep).cache == CacheOutcome::kBypassed);
  CHECK(f.builds() == 5);
  CHECK(fs::exists(f.dir.path() / "kept" / "model.cu"));
}

TEST_CASE("external weights are cached with their library, as one entry") {
  CacheFixture f("cache_external");
  const codegen::GeneratedModel model = small_model();
  BuildOptions o = f.options;
  o.external_weights = f.dir / "model.weights";
  CHECK(f.build(model, o).cache == CacheOutcome::kMiss);
  const std::string library = read_bytes(o.output);
  CHECK(library == model.cuda_source);  // no weights.bin in the build directory
  const std::string weights(reinterpret_cast<const char*>(model.weights.data()),
                            model.weights.size());
  CHECK(read_bytes(o.external_weights) == weights);

  fs::remove(o.output);
  fs::remove(o.external_weights);
  CHECK(f.build(model, o).cache == CacheOutcome::kHit);
  CHECK(f.builds() == 1);
  CHECK(read_bytes(o.output) == library);
  CHECK(read_bytes(o.external_weights) == weights);

  // The same model with embedded weights is another entry: the .so holds the weights.
  CHECK(f.build(model, f.options).cache == CacheOutcome::kMiss);
  CHECK(read_bytes(f.options.output) == library + weights);
}

TEST_CASE("a truncated, bit-flipped or foreign cache entry is discarded and rebuilt") {
  CacheFixture f("cache_corrupt");
  const codegen::GeneratedModel model = small_model();
  f.build(model, f.options);
  const fs::path entry = f.entry();
  const std::string good = read_bytes(entry);
  const std::string built = read_bytes(f.options.output);

  struct Damage {
    const char* what;
    std::string bytes;
  };
  std::vector<Damage> damages = {
      {"empty", ""},
      {"truncated inside the header", good.substr(0, 40)},
      {"truncated by one byte", good.substr(0, good.size() - 1)},
      {"one byte more", good + "x"},
      {"garbage", std::string(good.size(), '\x5a')},
  };
  for (size_t at :
       {size_t{3}, size_t{20}, size_t{84}, size_t{90}, good.size() / 2, good.size() - 1}) {
    std::string flipped = good;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x10);
    damages.push_back({"a bit flipped", flipped});
  }
  int builds = f.builds();
  for (const Damage& damage : damages) {
    INFO(damage.what);
    write_bytes(entry, damage.bytes);
    test::write_text(f.options.output, "the previous output");
    const BuildReport report = f.build(model, f.options);
    CHECK(report.cache == CacheOutcome::kCorrupt);
    CHECK(f.builds() == ++builds);  // rebuilt, never copied out
    CHECK(read_bytes(f.options.output) == built);
    CHECK(read_bytes(entry) == good);  // replaced by a good entry
    CHECK(f.build(model, f.options).cache == CacheOutcome::kHit);
    CHECK(f.builds() == builds);
  }

  // An entry copied to another key's name was made for that key: not used.
  codegen::GeneratedModel other = small_model();
  other.cuda_source += "// other\n";
  const std::string other_key = f.key(other, f.options, kInfernoVersion);
  write_bytes(fs::path(f.options.cache_dir) / (other_key + ".entry"), good);
  CHECK(f.build(other, f.options).cache == CacheOutcome::kCorrupt);
  CHECK(read_bytes(f.options.output).substr(0, other.cuda_source.size()) == other.cuda_source);
}

TEST_CASE("a failed build stores nothing in the cache and a cache hit never hides one") {
  CacheFixture f("cache_failure");
  const codegen::GeneratedModel model = small_model();
  BuildOptions failing = f.options;
  failing.toolchain.nvcc = test::write_fake_nvcc(f.dir.path() / "bad" / "nvcc");  // fails
  failing.keep_build_dir.clear();
  ScopedTmp tmp(f.dir);
  BuildReport report;
  CHECK(build_shared_object(model, failing, &report).code() == ErrorCode::kInternal);
  CHECK(report.cache == CacheOutcome::kMiss);
  CHECK_FALSE(fs::exists(failing.output));
  CHECK((!fs::exists(f.dir.path() / "cache") || fs::is_empty(f.dir.path() / "cache")));
  // Again: still a miss, still the failure.
  CHECK(build_shared_object(model, failing, &report).code() == ErrorCode::kInternal);
  CHECK(report.cache == CacheOutcome::kMiss);
}

TEST_CASE("a cache directory that cannot be used costs a build, never the build's result") {
  CacheFixture f("cache_unusable");
  const codegen::GeneratedModel model = small_model();
  BuildOptions o = f.options;
  o.cache_dir = f.dir / "a file";  // not a directory: no lookup, no store
  test::write_text(o.cache_dir, "not a cache\n");
  CHECK(f.build(model, o).cache == CacheOutcome::kMiss);
  CHECK(f.build(model, o).cache == CacheOutcome::kMiss);
  CHECK(f.builds() == 2);
  CHECK(read_bytes(o.output).substr(0, model.cuda_source.size()) == model.cuda_source);
  CHECK(test::read_text_file(o.cache_dir) == "not a cache\n");
}

TEST_CASE("the default cache directory comes from the environment") {
  using test::ScopedEnvVar;
  {
    ScopedEnvVar dir("INFERNO_CACHE_DIR", "/somewhere/cache");
    ScopedEnvVar xdg("XDG_CACHE_HOME", "/xdg");
    CHECK(default_cache_dir() == "/somewhere/cache");
  }
  {
    ScopedEnvVar dir("INFERNO_CACHE_DIR", std::nullopt);
    ScopedEnvVar xdg("XDG_CACHE_HOME", "/xdg");
    ScopedEnvVar home("HOME", "/home/someone");
    CHECK(default_cache_dir() == "/xdg/infernoc");
  }
  {
    ScopedEnvVar dir("INFERNO_CACHE_DIR", "");
    ScopedEnvVar xdg("XDG_CACHE_HOME", std::nullopt);
    ScopedEnvVar home("HOME", "/home/someone");
    CHECK(default_cache_dir() == "/home/someone/.cache/infernoc");
  }
  {
    ScopedEnvVar dir("INFERNO_CACHE_DIR", std::nullopt);
    ScopedEnvVar xdg("XDG_CACHE_HOME", std::nullopt);
    ScopedEnvVar home("HOME", std::nullopt);
    CHECK(default_cache_dir().empty());
  }
}

}  // namespace
}  // namespace inferno::driver
