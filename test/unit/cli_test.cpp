// The infernoc executable, run as a user would: its outputs, messages and exit codes.
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "cli_test_helpers.h"
#include "driver_test_helpers.h"
#include "support/catch.h"
#include "support/half.h"
#include "support/model_loading.h"
#include "support/npy.h"
#include "support/subprocess.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using test::fixture_path;

using test::infernoc;

/// A fresh, empty directory for one test's outputs. Directories are removed with
/// driver::remove_tree: std::filesystem::remove_all crashes where the torch wheel is linked.
std::filesystem::path scratch_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("infernoc_cli_test_" + name + "_" + std::to_string(::getpid()));
  driver::remove_tree(dir.string());
  std::filesystem::create_directories(dir);
  return dir;
}

using test::contains;

TEST_CASE("version and help flags exit 0") {
  auto version = infernoc({"--version"});
  CHECK(version.exit_code == 0);
  CHECK(contains(version.out, "infernoc "));
  auto help = infernoc({"--help"});
  CHECK(help.exit_code == 0);
  CHECK(contains(help.out, "--emit"));
  CHECK(contains(help.out, "Exit codes"));
}

TEST_CASE("command-line mistakes exit 3 with a message") {
  CHECK(infernoc({}).exit_code == 3);
  auto bad_emit = infernoc({fixture_path("mlp2/model.pt2"), "--emit", "exe"});
  CHECK(bad_emit.exit_code == 3);
  CHECK(contains(bad_emit.err, "--emit"));
  auto bad_spec =
      infernoc({fixture_path("mlp2/model.pt"), "--input", "x:4by16:f32", "--emit", "ir"});
  CHECK(bad_spec.exit_code == 3);
  CHECK(contains(bad_spec.err, "4by16"));
  auto bad_pass =
      infernoc({fixture_path("mlp2/model.pt2"), "--passes=dce,nosuchpass", "--emit", "ir"});
  CHECK(bad_pass.exit_code == 3);
  CHECK(contains(bad_pass.err, "unknown pass 'nosuchpass'"));
  auto reference_without_data =
      infernoc({fixture_path("mlp2/model.pt2"), "--reference", "--save-outputs", "x"});
  CHECK(reference_without_data.exit_code == 3);
  CHECK(contains(reference_without_data.err, "--data"));
}

TEST_CASE("emit ir prints the graph and -o writes it to a file") {
  auto result = infernoc({fixture_path("mlp2/model.pt2"), "--emit", "ir"});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK(contains(result.out, "graph("));
  // linear -> relu -> linear, optimized: a GEMM with the ReLU in its epilogue, then a GEMM.
  CHECK(contains(result.out, "= gemm("));
  CHECK(contains(result.out, "activation=\"relu\""));
  CHECK_FALSE(contains(result.out, "= relu("));
  auto unoptimized = infernoc({fixture_path("mlp2/model.pt2"), "--emit", "ir", "-O0"});
  REQUIRE(unoptimized.exit_code == 0);
  CHECK(contains(unoptimized.out, "= linear("));
  CHECK(contains(unoptimized.out, "= relu("));
  CHECK(contains(result.out, "<elided>"));  // the weights, without --full-constants
  // "-o -" is stdout too, not a file named "-".
  auto dash = infernoc({fixture_path("mlp2/model.pt2"), "--emit", "ir", "-o", "-"});
  REQUIRE(dash.exit_code == 0);
  CHECK(dash.out == result.out);
  CHECK_FALSE(std::filesystem::exists("-"));

  const auto dir = scratch_dir("emit");
  const std::string dot = (dir / "mlp2.dot").string();
  auto to_file = infernoc({fixture_path("mlp2/model.pt2"), "--emit", "dot", "-o", dot, "--quiet"});
  REQUIRE(to_file.exit_code == 0);
  CHECK(to_file.out.empty());
  CHECK(contains(test::read_text_file(dot), "digraph"));
  driver::remove_tree(dir.string());
}

TEST_CASE("print-after-all and -O0 control the pipeline") {
  auto all = infernoc({fixture_path("mlp2/model.pt2"), "--emit", "ir", "--print-after-all"});
  REQUIRE(all.exit_code == 0);
  CHECK(contains(all.err, "IR after dce"));
  auto none =
      infernoc({fixture_path("mlp2/model.pt2"), "--emit", "ir", "-O0", "--print-after-all"});
  REQUIRE(none.exit_code == 0);
  CHECK(!contains(none.err, "IR after"));
}

TEST_CASE("the layout flag (--layout) chooses the convolutions' layout: auto, nchw or nhwc") {
  const std::string model = fixture_path("cnn_block/model.pt2");
  auto automatic = infernoc({model, "--emit", "ir"});
  INFO(automatic.err);
  REQUIRE(automatic.exit_code == 0);
  CHECK(contains(automatic.out, "layout=\"nhwc\""));
  CHECK(contains(automatic.out, "= permute("));
  auto nhwc = infernoc({model, "--emit", "ir", "--layout", "nhwc"});
  REQUIRE(nhwc.exit_code == 0);
  CHECK(contains(nhwc.out, "layout=\"nhwc\""));
  auto nchw = infernoc({model, "--emit", "ir", "--layout", "nchw"});
  REQUIRE(nchw.exit_code == 0);
  CHECK(contains(nchw.out, "layout=\"nchw\""));
  CHECK_FALSE(contains(nchw.out, "layout=\"nhwc\""));
  CHECK_FALSE(contains(nchw.out, "= permute("));
  auto bad = infernoc({model, "--emit", "ir", "--layout", "nchwc"});
  CHECK(bad.exit_code == 3);
  CHECK(contains(bad.err, "--layout"));
  CHECK(contains(infernoc({"--help"}).out, "--layout"));
}

// ---- the CUDA backend: --emit so / cu ------------------------------------------------------
// Fake nvcc scripts (driver_test_helpers.h) stand in for the toolkit except in one real build.

/// A name with every character a shell or nvcc would trip over.
const std::string kAwkward = "we ird; 'single' \"double\" $HOME `id`";

/// Sets an environment variable (inherited by infernoc) for the scope of the object.
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

TEST_CASE("emit plan prints the arena plan of the optimized graph") {
  auto plan = infernoc({fixture_path("mlp2/model.pt2"), "--emit", "plan"});
  REQUIRE(plan.exit_code == 0);
  INFO(plan.out);
  CHECK(contains(plan.out, "arena:"));
  CHECK(contains(plan.out, "peak"));
  CHECK(contains(plan.out, "buffer 0:"));
  CHECK(contains(plan.out, "output 0"));
}

TEST_CASE("emit profile-plan prints each kernel step with its source line and cost") {
  auto plan = infernoc({fixture_path("mlp2/model.pt2"), "--emit", "profile-plan"});
  REQUIRE(plan.exit_code == 0);
  INFO(plan.out);
  CHECK(contains(plan.out, "profile plan: 2 steps"));
  CHECK(contains(plan.out, "linear.py:134"));
  // 4 rows: the GEMV kernel, its bias and ReLU fused (codegen/emit_gemv.h).
  CHECK(contains(plan.out, "gemv_nk_f32_4x16x32 (weight-streaming GEMV, FMA)"));
  CHECK(contains(plan.out, "total: 2 launches"));
  // The precision is the compile's: TF32 GEMMs run on tensor cores (the 20-row GEMMs of the GPT-2
  // block), and the GEMV stays exact f32.
  auto tf32 = infernoc({fixture_path("transformer_gpt2/model.pt2"), "--emit", "profile-plan",
                        "--precision", "tf32"});
  REQUIRE(tf32.exit_code == 0);
  CHECK(contains(tf32.out, "cublasLt (tf32 tensor cores)"));
  auto tf32_gemv =
      infernoc({fixture_path("mlp2/model.pt2"), "--emit", "profile-plan", "--precision", "tf32"});
  REQUIRE(tf32_gemv.exit_code == 0);
  CHECK(contains(tf32_gemv.out, "gemv_nk_f32_4x16x32 (weight-streaming GEMV, FMA)"));
}

TEST_CASE(
    "dump-graph writes the graph before and after optimization, and PNGs when dot is on PATH") {
  const auto dir = scratch_dir("dump_graph");
  const std::string dumps = (dir / "graphs").string();
  {
    ScopedEnv path("PATH", (dir / "no_dot_here").string());  // no Graphviz: DOT only
    auto run = infernoc({fixture_path("mm_relu/model.pt2"), "--emit", "ir", "--dump-graph", dumps});
    REQUIRE(run.exit_code == 0);
  }
  const std::string before = test::read_text_file(dumps + "/before.dot");
  const std::string after = test::read_text_file(dumps + "/after.dot");
  CHECK(contains(before, "digraph"));
  CHECK(contains(before, "matmul"));
  CHECK(contains(after, "gemm"));
  CHECK_FALSE(std::filesystem::exists(dumps + "/before.png"));

  // A fake dot that writes its -o argument: run with relative names in the dump directory.
  test::write_script(dir / "bin" / "dot",
                     "[ \"$1\" = -Tpng ] && [ \"$3\" = -o ] && echo png > \"$4\"\n");
  {
    ScopedEnv path("PATH", (dir / "bin").string());
    auto run = infernoc({fixture_path("mm_relu/model.pt2"), "--emit", "ir", "--dump-graph", dumps});
    REQUIRE(run.exit_code == 0);
  }
  CHECK(test::read_text_file(dumps + "/before.png") == "png\n");
  CHECK(test::read_text_file(dumps + "/after.png") == "png\n");

  // A failing dot is a warning: the DOT files are what was asked for.
  test::write_script(dir / "bin" / "dot", "echo 'dot: syntax error' >&2; exit 1\n");
  {
    ScopedEnv path("PATH", (dir / "bin").string());
    auto run = infernoc({fixture_path("mm_relu/model.pt2"), "--emit", "ir", "--dump-graph", dumps});
    CHECK(run.exit_code == 0);
    CHECK(contains(run.err, "syntax error"));
  }
  driver::remove_tree(dir.string());
}

/// A fake nvcc that "links" model.so in the build directory after checking it is complete.
std::string succeeding_nvcc(const std::filesystem::path& dir) {
  return test::write_fake_nvcc(dir / "fake_bin" / "nvcc", "13.0",
                               "for f in model.cu exports.map include/inferno/model_abi.h; do\n"
                               "  [ -f \"$f\" ] || { echo \"missing $f\" >&2; exit 1; }\n"
                               "done\n"
                               "printf 'fake library\\n' > model.so\n");
}

TEST_CASE("the precision flag (--precision with --tf32 its tf32 alias) and its mistakes") {
  const std::string model = fixture_path("mlp2/model.pt2");
  auto bad = infernoc({model, "--precision", "fp8", "--emit", "ir"});
  CHECK(bad.exit_code == 3);
  CHECK(contains(bad.err, "--precision"));
  auto conflict = infernoc({model, "--precision", "fp16", "--tf32", "--emit", "cu"});
  CHECK(conflict.exit_code == 3);
  CHECK(contains(conflict.err, "--tf32"));
  auto o0 = infernoc({model, "--precision", "bf16", "-O0", "--emit", "ir"});
  CHECK(o0.exit_code == 3);
  CHECK(contains(o0.err, "-O0"));
  auto fp32 = infernoc({model, "--precision", "fp32", "--emit", "ir"});
  auto plain = infernoc({model, "--emit", "ir"});
  CHECK(fp32.exit_code == 0);
  CHECK(fp32.out == plain.out);
  auto tf32 = infernoc({model, "--precision", "tf32", "--emit", "ir"});
  CHECK(tf32.out == plain.out);  // tf32 changes how codegen runs f32 GEMMs, not the graph
  for (const char* p : {"fp16", "bf16"}) {
    INFO(p);
    auto converted = infernoc({model, "--precision", p, "--emit", "ir"});
    CHECK(converted.exit_code == 0);
    const std::string t = std::string(p) == "fp16" ? "f16" : "bf16";
    CHECK(contains(converted.out, t + "["));
    CHECK(contains(converted.out, "cast(%"));
    // the graph's input and output keep their f32 types
    CHECK(contains(converted.out.substr(0, converted.out.find('\n')), "f32["));
  }
  auto help = infernoc({"--help"});
  for (const char* part : {"--precision", "fp16", "bf16", "tf32"}) CHECK(contains(help.out, part));
  // bf16 needs sm_80: a target before it is an environment problem (exit 4) naming the arch,
  // found before the model is read
  auto old_arch = infernoc(
      {"no_such_model.pt2", "--precision", "bf16", "--arch", "sm_75,sm_90", "--emit", "cu"});
  CHECK(old_arch.exit_code == 4);
  CHECK(contains(old_arch.err, "sm_75"));
  auto fp16_old_arch = infernoc({model, "--precision", "fp16", "--arch", "sm_75", "--emit", "cu"});
  CHECK(fp16_old_arch.exit_code == 0);
}

TEST_CASE("io precision compute: 16-bit inputs and outputs, no boundary casts") {
  const std::string model = fixture_path("mlp2/model.pt2");
  auto bad = infernoc({model, "--precision", "fp16", "--io-precision", "half", "--emit", "ir"});
  CHECK(bad.exit_code == 3);
  CHECK(contains(bad.err, "--io-precision"));
  auto plain = infernoc({model, "--emit", "ir"});
  for (const char* p : {"fp32", "tf32"}) {
    INFO(p);
    auto same = infernoc({model, "--precision", p, "--io-precision", "compute", "--emit", "ir"});
    CHECK(same.exit_code == 0);
    CHECK(same.out == plain.out);
  }
  for (const char* p : {"fp16", "bf16"}) {
    INFO(p);
    const std::string t = std::string(p) == "fp16" ? "f16" : "bf16";
    auto model_io = infernoc({model, "--precision", p, "--io-precision", "model", "--emit", "ir"});
    auto default_io = infernoc({model, "--precision", p, "--emit", "ir"});
    CHECK(model_io.exit_code == 0);
    CHECK(model_io.out == default_io.out);
    CHECK(contains(model_io.out, "cast(%"));
    auto compute = infernoc({model, "--precision", p, "--io-precision", "compute", "--emit", "ir"});
    INFO(compute.out);
    CHECK(compute.exit_code == 0);
    CHECK(contains(compute.out.substr(0, compute.out.find('\n')), "%x: " + t + "["));
    CHECK(!contains(compute.out, "f32["));  // mlp2 has no f32 island: no cast at all
    CHECK(!contains(compute.out, "cast(%"));
    CHECK(contains(compute.out, "%linear_1: " + t + "["));
  }
  auto help = infernoc({"--help"});
  CHECK(contains(help.out, "--io-precision"));
  CHECK(contains(help.out, "compute is the same as model"));
}

TEST_CASE("io precision compute with --reference rounds the f32 --data to the 16-bit input") {
  const auto dir = scratch_dir("io_precision_reference");
  for (const char* io : {"model", "compute"}) {
    INFO(io);
    auto result = infernoc({fixture_path("mlp2/model.pt2"), "--precision", "fp16", "--io-precision",
                            io, "--reference", "--data", fixture_path("mlp2/input0.npy"),
                            "--save-outputs", (dir / io).string()});
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    // model io writes f32, compute io f16 ('<f2'); both close to PyTorch's f32 output
    CHECK(contains(result.err, std::string(io) == "model" ? "f32[" : "f16["));
    auto compare =
        test::run_process({NPY_COMPARE_EXE, (dir / io / "out0.npy").string(),
                           fixture_path("mlp2/output0.npy"), "--rtol", "2e-2", "--atol", "2e-2"});
    INFO(compare.out << compare.err);
    CHECK(compare.exit_code == 0);
  }
  driver::remove_tree(dir.string());
}

TEST_CASE("a 16-bit --data file feeds an f32 input, widened exactly") {
  const auto dir = scratch_dir("f16_data");
  Expected<NpyArray> input = read_npy(fixture_path("mlp2/input0.npy"));
  REQUIRE(input.has_value());
  NpyArray half{"<f2", input->shape, {}};
  for (size_t k = 0; k < input->data.size() / 4; ++k) {
    float f;
    std::memcpy(&f, input->data.data() + 4 * k, 4);
    const uint16_t bits = float_to_half_bits(f);
    half.data.push_back(static_cast<std::byte>(bits & 0xFF));
    half.data.push_back(static_cast<std::byte>(bits >> 8));
  }
  const std::string half_path = (dir / "input0_f16.npy").string();
  REQUIRE(write_npy(half_path, half).is_ok());
  for (const char* io : {"model", "compute"}) {
    INFO(io);
    // fp32: the f16 file widened to the model's f32 input; fp16 compute: the input is f16 itself.
    auto result =
        infernoc({fixture_path("mlp2/model.pt2"), "--precision",
                  std::string(io) == "model" ? "fp32" : "fp16", "--io-precision", io, "--reference",
                  "--data", half_path, "--save-outputs", (dir / io).string()});
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    // The input lost bits to f16 rounding: compare with PyTorch's f32 output loosely.
    auto compare =
        test::run_process({NPY_COMPARE_EXE, (dir / io / "out0.npy").string(),
                           fixture_path("mlp2/output0.npy"), "--rtol", "2e-2", "--atol", "2e-2"});
    INFO(compare.out << compare.err);
    CHECK(compare.exit_code == 0);
  }
  // Integer data still has to match: an i64 file for a float input is refused.
  NpyArray ints{"<i8", input->shape, std::vector<std::byte>(input->data.size() * 2)};
  const std::string ints_path = (dir / "input0_i64.npy").string();
  REQUIRE(write_npy(ints_path, ints).is_ok());
  auto refused = infernoc({fixture_path("mlp2/model.pt2"), "--reference", "--data", ints_path,
                           "--save-outputs", (dir / "ints").string()});
  CHECK(refused.exit_code == 3);
  driver::remove_tree(dir.string());
}

TEST_CASE("help documents the backend flags and the default arch") {
  auto help = infernoc({"--help"});
  CHECK(help.exit_code == 0);
  for (const char* part :
       {"--arch", "sm_90", "--nvcc", "CUDACXX", "--weights", "--tf32", "--keep-build", "cu"}) {
    INFO(part);
    CHECK(contains(help.out, part));
  }
}

TEST_CASE("toolchain problems exit 4 before the model is read") {
  const auto dir = scratch_dir("toolchain");
  const std::string old_nvcc = test::write_fake_nvcc(dir / "old" / "nvcc", "11.8");
  struct Case {
    std::vector<std::string> args;
    std::vector<std::string> message_parts;
  };
  const std::vector<Case> cases = {
      {{"--nvcc", "/nonexistent/bin/nvcc"}, {"/nonexistent/bin/nvcc", "--nvcc"}},
      {{"--nvcc", old_nvcc}, {"CUDA 11.8", "12.0 or newer"}},
      {{"--arch", "sm_42"}, {"unsupported arch 'sm_42'"}},
      {{"--arch", "sm_90,sm_80a"}, {"unsupported arch 'sm_80a'"}},
      {{"--arch", "hopper", "--emit", "cu"}, {"unsupported arch 'hopper'"}},
      {{"--nvcc", "/nonexistent/bin/nvcc", "--emit", "cu"}, {"/nonexistent/bin/nvcc"}},
  };
  for (const Case& c : cases) {
    // A model that does not exist: the toolchain error comes first (exit 4, not 5).
    std::vector<std::string> args = {(dir / "does_not_exist.pt2").string()};
    args.insert(args.end(), c.args.begin(), c.args.end());
    auto result = infernoc(args);
    INFO(args[1] << " " << args[2] << " -> exit " << result.exit_code << ": " << result.err);
    CHECK(result.exit_code == 4);
    CHECK(contains(result.err, "infernoc: error: "));
    for (const std::string& part : c.message_parts) CHECK(contains(result.err, part));
  }
  {
    ScopedEnv cudacxx("CUDACXX", (dir / "missing_nvcc").string());
    auto result = infernoc({fixture_path("mlp2/model.pt2")});
    CHECK(result.exit_code == 4);
    CHECK(contains(result.err, "CUDACXX"));
    CHECK(!contains(result.err, "loaded"));
  }
  driver::remove_tree(dir.string());
}

TEST_CASE(
    "backend flags with other emits, and outputs that cannot be written, fail before loading") {
  auto arch_with_ir = infernoc({fixture_path("mlp2/model.pt2"), "--emit", "ir", "--arch", "sm_90"});
  CHECK(arch_with_ir.exit_code == 3);
  CHECK(contains(arch_with_ir.err, "--arch"));
  auto weights_with_reference =
      infernoc({fixture_path("mlp2/model.pt2"), "--weights", "external", "--reference", "--data",
                fixture_path("mlp2/input0.npy"), "--save-outputs", "x"});
  CHECK(weights_with_reference.exit_code == 3);
  auto bad_weights = infernoc({fixture_path("mlp2/model.pt2"), "--weights", "inline"});
  CHECK(bad_weights.exit_code == 3);

  const auto dir = scratch_dir("no_out_dir");
  auto no_dir = infernoc({fixture_path("mlp2/model.pt2"), "--nvcc", succeeding_nvcc(dir), "-o",
                          "/nonexistent_dir/model.so"});
  CHECK(no_dir.exit_code == 5);
  CHECK(contains(no_dir.err, "/nonexistent_dir"));
  CHECK(!contains(no_dir.err, "loaded"));
  driver::remove_tree(dir.string());
}

TEST_CASE("emit so builds model.so with the real nvcc, named after the model by default") {
  if (!std::filesystem::exists("/usr/local/cuda/bin/nvcc")) {
    WARN("SKIPPED: no /usr/local/cuda/bin/nvcc");
    return;
  }
  const auto dir = scratch_dir("real_build");
  std::filesystem::copy_file(fixture_path("mlp2/model.pt2"), dir / "mlp2.pt2");
  auto result = test::run_process(
      {INFERNOC_EXE, "mlp2.pt2", "--nvcc", "/usr/local/cuda/bin/nvcc", "--arch", "sm_90"},
      dir.string());
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK(contains(result.err, "infernoc: compiling model.cu with nvcc "));
  CHECK(contains(result.err, " for sm_90 ..."));
  CHECK(contains(result.err, "infernoc: wrote mlp2.so ("));
  CHECK(test::list_dir(dir) == std::set<std::string>{"mlp2.pt2", "mlp2.so"});
  CHECK(test::read_text_file((dir / "mlp2.so").string()).substr(0, 4) ==
        "\x7f"
        "ELF");
  driver::remove_tree(dir.string());
}

TEST_CASE("emit so at awkward paths, with external weights and a kept build directory") {
  const auto dir = scratch_dir("awkward");
  const auto out_dir = dir / kAwkward;
  std::filesystem::create_directories(out_dir);
  const std::string model = (out_dir / "my model;'1'.pt2").string();
  std::filesystem::copy_file(fixture_path("mlp2/model.pt2"), model);
  // Spaces are fine in directories; a weights file name is plain (printable, no spaces or '/').
  const std::string output = (out_dir / "out\"x\";y.so").string();
  const std::string kept = (out_dir / "build dir").string();
  auto result = infernoc({model, "-o", output, "--nvcc", succeeding_nvcc(dir), "--weights",
                          "external", "--keep-build", kept, "--arch", "sm_80,sm_90a", "--tf32"});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK(contains(result.err, "for sm_80, sm_90a ..."));
  CHECK(test::list_dir(out_dir) == std::set<std::string>{"build dir", "my model;'1'.pt2",
                                                         "out\"x\";y.so", "out\"x\";y.weights"});
  CHECK(test::read_text_file(output) == "fake library\n");
  CHECK(std::filesystem::file_size(out_dir / "out\"x\";y.weights") > 0);
  CHECK(test::list_dir(kept) == std::set<std::string>{"command.txt", "exports.map", "include",
                                                      "kernels", "model.cu", "nvcc.log"});
  const std::string command = test::read_text_file(kept + "/command.txt");
  CHECK(contains(command,
                 "-gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90a,code=sm_90a "));
  CHECK(contains(command, " -o model.so model.cu "));
  CHECK(contains(test::read_text_file(kept + "/model.cu"), "inferno_model_describe"));
  driver::remove_tree(dir.string());
}

TEST_CASE("a failing nvcc exits 1 with its output and leaves no output or temp file") {
  const auto dir = scratch_dir("failing_nvcc");
  ScopedEnv tmpdir("TMPDIR", (dir / "tmp").string());
  std::filesystem::create_directories(dir / "tmp");
  std::filesystem::create_directories(dir / "out");
  const std::string nvcc =
      test::write_fake_nvcc(dir / "bin" / "nvcc");  // fails with "fake failure"
  auto result = infernoc({fixture_path("mlp2/model.pt2"), "--nvcc", nvcc, "-o",
                          (dir / "out" / "model.so").string(), "--weights", "external"});
  CHECK(result.exit_code == 1);
  CHECK(contains(result.err, "model.cu(3): error: fake failure"));
  CHECK(contains(result.err, "the build directory is kept at '" + (dir / "tmp").string()));
  CHECK(test::list_dir(dir / "out").empty());
  driver::remove_tree(dir.string());
}

TEST_CASE("emit cu writes the generated source without compiling it") {
  const auto dir = scratch_dir("emit_cu");
  // Not needed for --emit cu: a broken $CUDACXX is no error unless --nvcc names it.
  ScopedEnv cudacxx("CUDACXX", (dir / "missing_nvcc").string());
  auto to_stdout = infernoc({fixture_path("mlp2/model.pt2"), "--emit", "cu"});
  INFO(to_stdout.err);
  REQUIRE(to_stdout.exit_code == 0);
  CHECK(contains(to_stdout.out, "inferno_model_describe"));
  CHECK(contains(to_stdout.out, "weights.bin"));

  const std::string cu = (dir / "net.cu").string();
  auto to_file = infernoc({fixture_path("mlp2/model.pt2"), "--emit", "cu", "-o", cu, "--weights",
                           "external", "--keep-build", (dir / "build").string()});
  INFO(to_file.err);
  REQUIRE(to_file.exit_code == 0);
  CHECK(to_file.out.empty());
  CHECK(contains(test::read_text_file(cu), "net.weights"));
  CHECK(test::list_dir(dir / "build") == std::set<std::string>{"command.txt", "exports.map",
                                                               "include", "kernels", "model.cu",
                                                               "net.weights"});
  CHECK(test::read_text_file((dir / "build" / "model.cu").string()) == test::read_text_file(cu));
  driver::remove_tree(dir.string());
}

TEST_CASE("reference runs write outputs that match PyTorch") {
  struct Case {
    std::string model;
    std::string form;
    int inputs;
    int outputs;
  };
  const std::vector<Case> cases = {{"mlp2", "model.pt2", 1, 1},
                                   {"mlp2", "model.pt", 1, 1},
                                   {"elementwise_chain", "model_decomposed.pt2", 2, 2},
                                   {"elementwise_chain", "model.pt", 2, 2}};
  for (const Case& c : cases) {
    if (!test::can_load(c.form)) continue;
    INFO(c.model << "/" << c.form);
    const auto dir = scratch_dir("reference");
    std::vector<std::string> args = {fixture_path(c.model + "/" + c.form), "--reference"};
    for (int i = 0; i < c.inputs; ++i) {
      args.push_back("--data");
      args.push_back(fixture_path(c.model + "/input" + std::to_string(i) + ".npy"));
    }
    args.push_back("--save-outputs");
    args.push_back((dir / "out").string());
    auto result = infernoc(args);
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    for (int i = 0; i < c.outputs; ++i) {
      auto compare = test::run_process(
          {NPY_COMPARE_EXE, (dir / "out" / ("out" + std::to_string(i) + ".npy")).string(),
           fixture_path(c.model + "/output" + std::to_string(i) + ".npy")});
      INFO(compare.out << compare.err);
      CHECK(compare.exit_code == 0);
    }
    driver::remove_tree(dir.string());
  }
}

TEST_CASE("data files that do not fit the model are an input error") {
  auto result =
      infernoc({fixture_path("mlp2/model.pt2"), "--reference", "--data",
                fixture_path("elementwise_chain/input0.npy"), "--save-outputs", "unused"});
  CHECK(result.exit_code == 3);
  CHECK(contains(result.err, "input"));
}

TEST_CASE("model errors give their exit codes and name the problem") {
  struct Case {
    std::vector<std::string> args;
    int exit_code;
    std::vector<std::string> message_parts;
  };
  const std::vector<Case> cases = {
      {{fixture_path("errors/unsupported_ops.pt2")},
       2,
       {"unsupported ops", "aten::sort", "aten::topk"}},
      {{fixture_path("errors/unsupported_ops.pt"), "--input", "x:4x8:f32"},
       2,
       {"unsupported ops", "aten::sort"}},
      {{fixture_path("errors/truncated.pt2")}, 3, {"truncated.pt2"}},
      {{fixture_path("errors/weight_too_small.pt2")}, 3, {"weight"}},
      {{fixture_path("errors/pickle_entry.pt2")}, 3, {"pickle"}},
      {{fixture_path("errors/old_format.pt2")}, 3, {"torch"}},
      {{fixture_path("mlp2/model.pt")}, 3, {"--input"}},
      {{fixture_path("mlp2/model.pt"), "--input", "x:4x16:f32", "--input", "y:4x16:f32"}, 3, {"2"}},
      {{fixture_path("does_not_exist.pt2")}, 5, {"does_not_exist.pt2"}},
  };
  for (const Case& c : cases) {
    if (!test::can_load(c.args.front())) continue;
    std::vector<std::string> args = c.args;
    args.insert(args.end(), {"--emit", "ir"});
    auto result = infernoc(args);
    INFO(args.front() << " -> exit " << result.exit_code << ": " << result.err);
    CHECK(result.exit_code == c.exit_code);
    CHECK(contains(result.err, "infernoc: error: "));
    for (const std::string& part : c.message_parts) CHECK(contains(result.err, part));
  }
}

TEST_CASE("an output that cannot be written is an I/O error") {
  auto result =
      infernoc({fixture_path("mlp2/model.pt2"), "--emit", "ir", "-o", "/nonexistent_dir/graph.ir"});
  CHECK(result.exit_code == 5);
  CHECK(contains(result.err, "/nonexistent_dir/graph.ir"));
}

}  // namespace
}  // namespace inferno
