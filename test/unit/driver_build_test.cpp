// Building a model.so: the build directory, the nvcc command, atomic output, failures and
// interruption. One test runs the real nvcc on a tiny hand-written model (skipped without the
// toolkit); the others use fake nvcc scripts (driver_test_helpers.h).
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "driver/build.h"
#include "driver/nvcc_plan.h"
#include "driver/process.h"
#include "driver_test_helpers.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno::driver {
namespace {

namespace fs = std::filesystem;
using test::contains;
using test::list_dir;
using test::ScratchDir;

/// A directory name with every character a shell or nvcc would trip over.
const std::string kAwkwardName = "out dir; 'single' \"double\" $HOME `id` \\";

/// A tiny model in the shape codegen writes: includes a kernel header and the ABI header,
/// embeds weights.bin with .incbin, exports only inferno_model_describe (no profile table: such
/// libraries stay valid), calls cuBLASLt.
const char* const kTinyModelSource = R"cuda(
#include <cublasLt.h>
#include <cuda_runtime.h>

#include "inferno/model_abi.h"
#include "kernels/tiny.cuh"

asm(".section .rodata\n"
    ".balign 256\n"
    "tiny_weights_begin:\n"
    ".incbin \"weights.bin\"\n"
    "tiny_weights_end:\n"
    ".previous\n");
extern "C" const unsigned char tiny_weights_begin[];
extern "C" const unsigned char tiny_weights_end[];

namespace {

__global__ void scale(const float* w, const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = tiny::scaled(x[i], w[i]);
}

const int64_t kShape[] = {16};
const inferno_tensor_desc kInputs[] = {{"x", INFERNO_DTYPE_F32, 1, kShape}};
const inferno_tensor_desc kOutputs[] = {{"y", INFERNO_DTYPE_F32, 1, kShape}};
const int32_t kArchs[] = {90};

struct State {
  const float* weights;
  cublasLtHandle_t lt;
};

int32_t session_create(const void* device_weights, void** state, char*, size_t) {
  State* s = new State{static_cast<const float*>(device_weights), nullptr};
  if (cublasLtCreate(&s->lt) != CUBLAS_STATUS_SUCCESS) return INFERNO_MODEL_CUBLAS_ERROR;
  *state = s;
  return INFERNO_MODEL_OK;
}

int32_t run(void* state, const inferno_model_run_args* args, char*, size_t) {
  const State* s = static_cast<const State*>(state);
  scale<<<1, 16, 0, static_cast<cudaStream_t>(args->stream)>>>(
      s->weights, static_cast<const float*>(args->inputs[0]), static_cast<float*>(args->outputs[0]), 16);
  return cudaGetLastError() == cudaSuccess ? INFERNO_MODEL_OK : INFERNO_MODEL_CUDA_ERROR;
}

void session_destroy(void* state) {
  State* s = static_cast<State*>(state);
  if (s != nullptr) cublasLtDestroy(s->lt);
  delete s;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const inferno_model* inferno_model_describe() {
  static const inferno_model model = {
      INFERNO_MODEL_ABI_VERSION, sizeof(inferno_model),
      {"test", "13.0", kArchs, 1, "0000000000000000", 0},
      1, kInputs, 1, kOutputs,
      0, 0, static_cast<uint64_t>(tiny_weights_end - tiny_weights_begin), tiny_weights_begin, nullptr,
      session_create, run, session_destroy};
  return &model;
}
)cuda";

const char* const kTinyKernelHeader = R"cuda(
#pragma once
namespace tiny {
__device__ inline float scaled(float x, float w) { return x * w; }
}  // namespace tiny
)cuda";

const char* const kExportsMap = "{\n  global:\n    inferno_model_describe;\n  local:\n    *;\n};\n";

/// A weights blob with a recognizable pattern.
std::vector<std::byte> make_weights(size_t size) {
  std::vector<std::byte> weights(size);
  for (size_t i = 0; i < size; ++i) weights[i] = static_cast<std::byte>((i * 131 + 7) % 251);
  return weights;
}

codegen::GeneratedModel tiny_model() {
  codegen::GeneratedModel model;
  model.cuda_source = kTinyModelSource;
  model.weights = make_weights(4096);
  model.exports_map = kExportsMap;
  return model;
}

/// The kernels root of the tests (kernels/tiny.cuh) and the repository's include/.
SourceDirs tiny_source_dirs(const ScratchDir& dir) {
  test::write_text(dir.path() / "src" / "kernels" / "tiny.cuh", kTinyKernelHeader);
  SourceDirs dirs;
  dirs.kernels_root = dir / "src";
  dirs.include_dir = std::string(INFERNO_SOURCE_DIR) + "/include";
  return dirs;
}

/// Sets an environment variable for the scope of the object.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had_) {
      ::setenv(name_, old_.c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// A fake nvcc that checks it runs in a complete build directory and "links" model.so.
std::string write_succeeding_nvcc(const fs::path& path) {
  return test::write_fake_nvcc(
      path, "13.0",
      "for f in model.cu exports.map kernels/tiny.cuh include/inferno/model_abi.h; do\n"
      "  [ -f \"$f\" ] || { echo \"missing $f\" >&2; exit 1; }\n"
      "done\n"
      "printf 'fake library\\n' > model.so && chmod 755 model.so\n");
}

BuildOptions fake_options(const ScratchDir& dir, const std::string& nvcc,
                          const std::string& output) {
  BuildOptions options;
  options.toolchain.nvcc = nvcc;
  options.toolchain.version = {13, 0};
  options.source_dirs = tiny_source_dirs(dir);
  options.output = output;
  return options;
}

/// Lines of `readelf` output for `library`, or empty when readelf is missing.
std::string readelf(const std::string& flags, const std::string& library) {
  if (!fs::exists("/usr/bin/readelf")) return {};
  auto result = run_program({"/usr/bin/readelf", flags, "-W", library}, {});
  return result && result->succeeded() ? result->output : std::string();
}

TEST_CASE("the nvcc command uses relative names and the gencode flags") {
  BuildOptions options;
  options.toolchain.nvcc = "/usr/local/cuda/bin/nvcc";
  options.archs = {{80, false}, {90, true}};
  const std::vector<std::string> expected = {"/usr/local/cuda/bin/nvcc",
                                             "-O1",
                                             "-std=c++17",
                                             "-Xcompiler",
                                             "-fPIC,-fvisibility=hidden",
                                             "--threads=0",
                                             "--split-compile=0",
                                             "-I.",
                                             "-Iinclude",
                                             "-gencode=arch=compute_80,code=sm_80",
                                             "-gencode=arch=compute_90a,code=sm_90a",
                                             "--shared",
                                             "-cudart",
                                             "static",
                                             "-Xlinker",
                                             "--version-script=exports.map",
                                             "-Xlinker",
                                             "--no-undefined",
                                             "-Xlinker",
                                             "--as-needed",
                                             "-o",
                                             "model.so",
                                             "model.cu",
                                             "-lcublasLt",
                                             "-lcublas"};
  CHECK(nvcc_command(options) == expected);
}

// The -D flags of `argv` that say which parts it compiles, "FROM TO MAIN".
std::string parts_of(const std::vector<std::string>& argv) {
  std::string from, to, main;
  for (const std::string& arg : argv) {
    const auto value = [&](const std::string& name) { return arg.substr(name.size()); };
    if (arg.rfind("-DINFERNO_MODEL_PARTS_FROM=", 0) == 0)
      from = value("-DINFERNO_MODEL_PARTS_FROM=");
    if (arg.rfind("-DINFERNO_MODEL_PARTS_TO=", 0) == 0) to = value("-DINFERNO_MODEL_PARTS_TO=");
    if (arg.rfind("-DINFERNO_MODEL_MAIN=", 0) == 0) main = value("-DINFERNO_MODEL_MAIN=");
  }
  return from + " " + to + " " + main;
}

TEST_CASE("a model in parts is planned as objects built at once, then linked") {
  BuildOptions options;
  options.toolchain.nvcc = "/usr/local/cuda/bin/nvcc";
  // No parts, or one job: the one command.
  CHECK(nvcc_plan(options, 0, 16, 16).compiles ==
        std::vector<std::vector<std::string>>{nvcc_command(options)});
  CHECK(nvcc_plan(options, 3, 1, 16).link.empty());
  // Jobs for every part and the rest: an object each, the rest (MAIN) holding no part.
  const NvccPlan wide = nvcc_plan(options, 3, 16, 16);
  REQUIRE(wide.compiles.size() == 4);
  CHECK(parts_of(wide.compiles[0]) == "0 -1 1");
  CHECK(parts_of(wide.compiles[1]) == "0 0 0");
  CHECK(parts_of(wide.compiles[3]) == "2 2 0");
  CHECK(contains(shell_quote(wide.compiles[2]), "--split-compile=4 "));  // 16 CPUs, 4 objects
  CHECK(contains(shell_quote(wide.compiles[2]), " -c -o model-2.o model.cu"));
  CHECK(wide.objects ==
        std::vector<std::string>{"model-0.o", "model-1.o", "model-2.o", "model-3.o"});
  CHECK(contains(shell_quote(wide.link),
                 "--shared -cudart static -Xlinker --version-script=exports.map"));
  CHECK(contains(shell_quote(wide.link),
                 "-o model.so model-0.o model-1.o model-2.o model-3.o -lcublasLt -lcublas"));
  // Fewer jobs: the parts dealt out in runs, the odd ones to the last objects, away from the rest.
  const NvccPlan narrow = nvcc_plan(options, 5, 2, 2);
  REQUIRE(narrow.compiles.size() == 2);
  CHECK(parts_of(narrow.compiles[0]) == "0 1 1");
  CHECK(parts_of(narrow.compiles[1]) == "2 4 0");
  CHECK(contains(shell_quote(narrow.compiles[1]), "--split-compile=1 "));
  CHECK(available_cpus() >= 1);
}

// A fake nvcc for a model in parts: an object is its -o name, the link checks that each object is
// there; `fail` is the object whose compile fails.
std::string write_objects_nvcc(const fs::path& path, const std::string& fail) {
  return test::write_fake_nvcc(
      path, "13.0",
      "out=; prev=\n"
      "for a in \"$@\"; do [ \"$prev\" = -o ] && out=$a; prev=$a; done\n"
      "case $out in\n"
      "  " +
          fail +
          ") echo \"model.cu(7): error: no $out\" >&2; exit 2;;\n"
          "  *.o) echo \"compiled $out\"; printf '%s\\n' \"$out\" > \"$out\";;\n"
          "  model.so) cat model-0.o model-1.o model-2.o > model.so || exit 1; echo linked;;\n"
          "esac\n");
}

TEST_CASE("a model in parts builds as objects and reports the object that failed") {
  ScratchDir dir("objects");
  codegen::GeneratedModel model = tiny_model();
  model.num_parts = 2;
  BuildOptions options =
      fake_options(dir, write_objects_nvcc(dir.path() / "bin" / "nvcc", "none"), dir / "model.so");
  options.jobs = 3;
  options.keep_build_dir = dir / "kept";
  Status status = build_shared_object(model, options);
  INFO(status.to_string());
  REQUIRE(status.is_ok());
  CHECK(test::read_text_file(dir / "model.so") == "model-0.o\nmodel-1.o\nmodel-2.o\n");
  const std::string log = test::read_text_file(dir.path() / "kept" / "nvcc.log");
  CHECK(log == "compiled model-0.o\ncompiled model-1.o\ncompiled model-2.o\nlinked\n");
  const std::string command = test::read_text_file(dir.path() / "kept" / "command.txt");
  CHECK(contains(command, "the compiles at once, then the link"));
  CHECK(contains(command, " -o model.so model-0.o model-1.o model-2.o "));

  ScratchDir failing("objects_failing");
  options = fake_options(failing, write_objects_nvcc(failing.path() / "bin" / "nvcc", "model-1.o"),
                         failing / "model.so");
  options.jobs = 3;
  status = build_shared_object(model, options);
  CHECK(status.code() == ErrorCode::kInternal);
  CHECK(contains(status.message(), "model.cu(7): error: no model-1.o"));
  CHECK(contains(status.message(), "nvcc-1.log: nvcc's output"));
  CHECK_FALSE(fs::exists(failing.path() / "model.so"));
}

TEST_CASE("the real nvcc builds a tiny model into a self-contained .so at an awkward path") {
  if (!fs::exists("/usr/local/cuda/bin/nvcc")) {
    WARN("SKIPPED: no /usr/local/cuda/bin/nvcc");
    return;
  }
  ScratchDir dir("real_nvcc");
  ScopedEnv tmpdir("TMPDIR", dir / "tmp");
  fs::create_directories(dir.path() / "tmp");
  const fs::path out_dir = dir.path() / kAwkwardName;
  fs::create_directories(out_dir);
  const std::string output = (out_dir / "my model;'x'.so").string();

  BuildOptions options = fake_options(dir, "/usr/local/cuda/bin/nvcc", output);
  NvccSearch search;
  search.explicit_path = options.toolchain.nvcc;
  auto toolchain = check_toolchain(search);
  REQUIRE(toolchain.has_value());
  options.toolchain = *toolchain;
  options.archs = {{90, false}};
  Status status = build_shared_object(tiny_model(), options);
  INFO(status.to_string());
  REQUIRE(status.is_ok());

  CHECK(list_dir(out_dir) == std::set<std::string>{"my model;'x'.so"});
  CHECK(list_dir(dir.path() / "tmp").empty());  // the build directory is gone
  CHECK((fs::status(output).permissions() & fs::perms::owner_exec) != fs::perms::none);
  const std::string bytes = read_bytes(output);
  CHECK(bytes.substr(0, 4) ==
        "\x7f"
        "ELF");
  const std::vector<std::byte> weights = make_weights(4096);
  CHECK(
      contains(bytes, std::string(reinterpret_cast<const char*>(weights.data()), weights.size())));

  const std::string dynamic = readelf("-d", output);
  const std::string symbols = readelf("--dyn-syms", output);
  if (dynamic.empty() || symbols.empty()) {
    WARN("SKIPPED the dependency check: no readelf");
    return;
  }
  // Dependencies: the C/C++ runtime and cuBLASLt only; no libcudart (static), no libcuda
  // (cudart dlopens it), no libcublas (unused, dropped by --as-needed).
  const std::vector<std::string> allowed = {
      "libc.so",       "libstdc++.so", "libgcc_s.so",        "libm.so",        "libdl.so",
      "libpthread.so", "librt.so",     "ld-linux-x86-64.so", "libcublasLt.so", "libcublas.so"};
  std::istringstream lines(dynamic);
  std::string line;
  int needed = 0;
  while (std::getline(lines, line)) {
    if (!contains(line, "(NEEDED)")) continue;
    ++needed;
    const std::string library =
        line.substr(line.find('[') + 1, line.find(']') - line.find('[') - 1);
    bool ok = false;
    for (const std::string& prefix : allowed) ok = ok || library.rfind(prefix, 0) == 0;
    INFO(library);
    CHECK(ok);
  }
  CHECK(needed > 0);
  CHECK(contains(dynamic, "libcublasLt.so"));
  CHECK_FALSE(contains(dynamic, "libcuda.so"));
  CHECK_FALSE(contains(dynamic, "libcudart"));
  // Exports: inferno_model_describe alone.
  std::istringstream symbol_lines(symbols);
  int exported = 0;
  while (std::getline(symbol_lines, line)) {
    const bool global = contains(line, " GLOBAL ") || contains(line, " WEAK ");
    if (!global || contains(line, " UND ")) continue;
    ++exported;
    INFO(line);
    CHECK(contains(line, "inferno_model_describe"));
  }
  CHECK(exported == 1);
}

TEST_CASE("a failing nvcc leaves no output and no temp file, and reports nvcc's output") {
  ScratchDir dir("failing_nvcc");
  ScopedEnv tmpdir("TMPDIR", dir / "tmp");
  fs::create_directories(dir.path() / "tmp");
  const fs::path out_dir = dir.path() / kAwkwardName;
  fs::create_directories(out_dir);
  std::string lines;
  for (int i = 1; i <= 50; ++i)
    lines +=
        "echo 'model.cu(" + std::to_string(i) + "): error: line " + std::to_string(i) + "' >&2\n";
  const std::string nvcc =
      test::write_fake_nvcc(dir.path() / "bin" / "nvcc", "13.0", lines + "exit 2\n");

  BuildOptions options = fake_options(dir, nvcc, (out_dir / "model.so").string());
  Status status = build_shared_object(tiny_model(), options);
  CHECK(status.code() == ErrorCode::kInternal);
  const std::string& message = status.message();
  INFO(message);
  CHECK(contains(message, "nvcc failed"));
  CHECK(contains(message, "exit status 2"));
  CHECK(contains(message, "model.cu(1): error: line 1"));
  CHECK(contains(message, "model.cu(40): error: line 40"));
  CHECK_FALSE(contains(message, "line 41'"));
  CHECK_FALSE(contains(message, "error: line 41\n"));
  CHECK(contains(message, "10 more lines"));
  CHECK(list_dir(out_dir).empty());

  // The build directory is kept, and the message says where.
  const std::set<std::string> kept = list_dir(dir.path() / "tmp");
  REQUIRE(kept.size() == 1);
  const fs::path build_dir = dir.path() / "tmp" / *kept.begin();
  CHECK(contains(message, build_dir.string()));
  CHECK(contains(test::read_text_file((build_dir / "nvcc.log").string()), "error: line 50"));

  // An existing output survives a failed build untouched.
  test::write_text(out_dir / "model.so", "previous build");
  CHECK(build_shared_object(tiny_model(), options).code() == ErrorCode::kInternal);
  CHECK(list_dir(out_dir) == std::set<std::string>{"model.so"});
  CHECK(test::read_text_file((out_dir / "model.so").string()) == "previous build");
}

TEST_CASE("an nvcc killed by a signal is reported as such") {
  ScratchDir dir("killed_nvcc");
  const std::string nvcc =
      test::write_fake_nvcc(dir.path() / "bin" / "nvcc", "13.0", "kill -KILL $$\n");
  BuildOptions options = fake_options(dir, nvcc, dir / "model.so");
  options.keep_build_dir = dir / "build";
  Status status = build_shared_object(tiny_model(), options);
  CHECK(status.code() == ErrorCode::kInternal);
  CHECK(contains(status.message(), "signal 9"));
  CHECK_FALSE(fs::exists(dir.path() / "model.so"));
}

TEST_CASE("a kept build directory holds the sources, the log and the exact command") {
  ScratchDir dir("keep_build");
  const std::string nvcc = write_succeeding_nvcc(dir.path() / "bin" / "nvcc");
  BuildOptions options = fake_options(dir, nvcc, dir / "model.so");
  options.keep_build_dir = dir / "kept build; dir";
  options.archs = {{80, false}, {90, false}};
  Status status = build_shared_object(tiny_model(), options);
  INFO(status.to_string());
  REQUIRE(status.is_ok());
  CHECK(test::read_text_file(dir / "model.so") == "fake library\n");
  const fs::path kept = options.keep_build_dir;
  CHECK(list_dir(kept) == std::set<std::string>{"command.txt", "exports.map", "include", "kernels",
                                                "model.cu", "nvcc.log", "weights.bin"});
  CHECK(test::read_text_file((kept / "model.cu").string()) == kTinyModelSource);
  CHECK(test::read_text_file((kept / "exports.map").string()) == kExportsMap);
  const std::vector<std::byte> weights = make_weights(4096);
  CHECK(read_bytes(kept / "weights.bin") ==
        std::string(reinterpret_cast<const char*>(weights.data()), weights.size()));
  CHECK(fs::exists(kept / "kernels" / "tiny.cuh"));
  CHECK(fs::exists(kept / "include" / "inferno" / "model_abi.h"));
  const std::string command = test::read_text_file((kept / "command.txt").string());
  CHECK(contains(command, shell_quote(nvcc_command(options))));
  CHECK(contains(command,
                 "-gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=sm_90 "
                 "-gencode=arch=compute_90,code=compute_90"));

  // Rebuilding into the same directory replaces what is there.
  options.external_weights = dir / "model.weights";
  REQUIRE(build_shared_object(tiny_model(), options).is_ok());
  CHECK_FALSE(fs::exists(kept / "weights.bin"));
}

TEST_CASE("external weights are written beside the .so, both atomically") {
  ScratchDir dir("external_weights");
  ScopedEnv tmpdir("TMPDIR", dir / "tmp");
  fs::create_directories(dir.path() / "tmp");
  const fs::path out_dir = dir.path() / kAwkwardName;
  fs::create_directories(out_dir);
  const std::string nvcc = write_succeeding_nvcc(dir.path() / "bin" / "nvcc");
  BuildOptions options = fake_options(dir, nvcc, (out_dir / "net.so").string());
  options.external_weights = (out_dir / "net.weights").string();
  const mode_t old_mask = ::umask(022);
  const Status built = build_shared_object(tiny_model(), options);
  ::umask(old_mask);
  REQUIRE(built.is_ok());
  // The mode of a plain new file (not mkstemp's 0600).
  CHECK((fs::status(out_dir / "net.weights").permissions() & fs::perms::all) ==
        (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
         fs::perms::others_read));
  CHECK(list_dir(out_dir) == std::set<std::string>{"net.so", "net.weights"});
  const std::vector<std::byte> weights = make_weights(4096);
  CHECK(read_bytes(out_dir / "net.weights") ==
        std::string(reinterpret_cast<const char*>(weights.data()), weights.size()));
  CHECK(list_dir(dir.path() / "tmp").empty());

  // A failed build leaves the earlier pair as it was.
  options.toolchain.nvcc = test::write_fake_nvcc(dir.path() / "failing" / "nvcc");
  CHECK(build_shared_object(codegen::GeneratedModel{}, options).code() == ErrorCode::kInternal);
  CHECK(list_dir(out_dir) == std::set<std::string>{"net.so", "net.weights"});
  CHECK(read_bytes(out_dir / "net.weights").size() == 4096);
}

TEST_CASE("the library is copied when the build directory is on another file system") {
  ScratchDir dir("cross_device");
  if (!fs::is_directory("/dev/shm")) {
    WARN("SKIPPED: no /dev/shm");
    return;
  }
  struct stat shm {
  }, tmp{};
  ::stat("/dev/shm", &shm);
  ::stat(dir.path().c_str(), &tmp);
  if (shm.st_dev == tmp.st_dev) {
    WARN("SKIPPED: /dev/shm is on the same file system as " << dir.path());
    return;
  }
  const std::string shm_tmp = "/dev/shm/infernoc_driver_test_" + std::to_string(::getpid());
  fs::create_directories(shm_tmp);
  ScopedEnv tmpdir("TMPDIR", shm_tmp);
  const std::string nvcc = write_succeeding_nvcc(dir.path() / "bin" / "nvcc");
  BuildOptions options = fake_options(dir, nvcc, dir / "model.so");
  Status status = build_shared_object(tiny_model(), options);
  const bool shm_empty = list_dir(shm_tmp).empty();
  remove_tree(shm_tmp);
  INFO(status.to_string());
  REQUIRE(status.is_ok());
  CHECK(shm_empty);
  CHECK(test::read_text_file(dir / "model.so") == "fake library\n");
  CHECK((fs::status(dir / "model.so").permissions() & fs::perms::owner_exec) != fs::perms::none);
  CHECK(list_dir(dir.path()) == std::set<std::string>{"bin", "model.so", "src"});
}

TEST_CASE("files that cannot be written are I/O errors") {
  ScratchDir dir("io_errors");
  const std::string nvcc = write_succeeding_nvcc(dir.path() / "bin" / "nvcc");
  BuildOptions options =
      fake_options(dir, nvcc, (dir.path() / "no_such_dir" / "model.so").string());
  Status no_dir = build_shared_object(tiny_model(), options);
  CHECK(no_dir.code() == ErrorCode::kIo);
  CHECK(contains(no_dir.message(), "no_such_dir"));

  options.output = dir / "bin";  // a directory
  CHECK(build_shared_object(tiny_model(), options).code() == ErrorCode::kIo);

  test::write_text(dir.path() / "a_file", "x");
  options.output = dir / "model.so";
  options.keep_build_dir = (dir.path() / "a_file" / "build").string();
  Status keep = build_shared_object(tiny_model(), options);
  CHECK(keep.code() == ErrorCode::kIo);
  CHECK(contains(keep.message(), "a_file"));

  options.keep_build_dir.clear();
  ScopedEnv tmpdir("TMPDIR", dir / "no_such_tmp");
  Status temp = build_shared_object(tiny_model(), options);
  CHECK(temp.code() == ErrorCode::kIo);
  CHECK(contains(temp.message(), "no_such_tmp"));
  CHECK_FALSE(fs::exists(dir.path() / "model.so"));
}

TEST_CASE("an interrupted build stops nvcc, removes its temp files and dies of the signal") {
  ScratchDir dir("interrupt");
  const std::string started = dir / "started";
  const std::string nvcc =
      test::write_fake_nvcc(dir.path() / "bin" / "nvcc", "13.0",
                            "touch '" + started + "'\nsleep 30\necho never > model.so\n");
  BuildOptions options = fake_options(dir, nvcc, (dir.path() / "out" / "model.so").string());
  fs::create_directories(dir.path() / "out");
  options.external_weights = (dir.path() / "out" / "model.weights").string();
  ScopedEnv tmpdir("TMPDIR", dir / "tmp");
  fs::create_directories(dir.path() / "tmp");

  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::signal(SIGINT, SIG_DFL);  // as in a plain process (Catch2 installs a handler of its own)
    Status status = build_shared_object(tiny_model(), options);
    ::_exit(status.is_ok() ? 0 : 100 + static_cast<int>(status.code()));
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!fs::exists(started) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK(fs::exists(started));
  const auto sent = std::chrono::steady_clock::now();
  ::kill(child, SIGINT);
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK(std::chrono::steady_clock::now() - sent <
        std::chrono::seconds(10));  // not after nvcc's 30 s
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGINT);
  CHECK(list_dir(dir.path() / "out").empty());
  CHECK(list_dir(dir.path() / "tmp").empty());
}

TEST_CASE("remove_tree removes a tree without following links") {
  ScratchDir dir("remove_tree");
  test::write_text(dir.path() / "keep" / "precious", "x");
  test::write_text(dir.path() / "tree" / "a" / "b" / "file", "x");
  test::write_text(dir.path() / "tree" / ".hidden", "x");
  fs::create_directory_symlink(dir.path() / "keep", dir.path() / "tree" / "a" / "link");
  ::chmod((dir.path() / "tree" / "a" / "b" / "file").c_str(), 0);
  remove_tree(dir / "tree");
  CHECK_FALSE(fs::exists(dir.path() / "tree"));
  CHECK(fs::exists(dir.path() / "keep" / "precious"));
  remove_tree(dir / "missing");        // no error
  remove_tree(dir / "keep/precious");  // a plain file
  CHECK_FALSE(fs::exists(dir.path() / "keep" / "precious"));
}

TEST_CASE("sizes print in binary units") {
  CHECK(format_size(0) == "0 B");
  CHECK(format_size(1023) == "1023 B");
  CHECK(format_size(1536) == "1.5 KiB");
  CHECK(format_size(1258291) == "1.2 MiB");
  CHECK(format_size(3ull << 30) == "3.00 GiB");
}

TEST_CASE("write_bytes_atomic replaces a file whole") {
  ScratchDir dir("atomic");
  const std::string path = dir / "blob;'x'.bin";
  test::write_text(path, "old");
  const std::vector<std::byte> bytes = make_weights(100000);
  REQUIRE(write_bytes_atomic(path, bytes).is_ok());
  CHECK(read_bytes(path).size() == 100000);
  CHECK(list_dir(dir.path()) == std::set<std::string>{"blob;'x'.bin"});
  CHECK(write_bytes_atomic(dir / "missing/x.bin", bytes).code() == ErrorCode::kIo);
}

}  // namespace
}  // namespace inferno::driver
