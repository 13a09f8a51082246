// What a new user meets first: infernoc's messages for a file of the wrong format (ONNX, a
// torch.save checkpoint), command-line mistakes caught by CLI11, --data files that do not fit,
// missing files, and the names TorchScript outputs get. Each is checked by its exact first line
// of stderr and its exit code.
#include <fstream>
#include <string>
#include <vector>

#include "cli_test_helpers.h"
#include "driver_test_helpers.h"
#include "support/catch.h"
#include "support/stored_zip.h"
#include "support/subprocess.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using test::fixture_path;

using test::infernoc;

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

using test::contains;

const std::string kExportHint =
    "infernoc reads torch.export archives (.pt2: torch.export.export, then torch.export.save; "
    "torch >= 2.8) and TorchScript files (.pt: torch.jit.trace or torch.jit.script, then .save)";

TEST_CASE("an ONNX model is named as such, by its name or its bytes: exit 2") {
  test::ScratchDir dir("onnx");
  // A ModelProto's first bytes: ir_version 8, then producer_name "pytorch".
  const std::string model_proto = std::string(
      "\x08\x08\x12\x07pytorch\x1a\x03"
      "2.1",
      14);
  for (const char* name : {"model.onnx", "model.bin"}) {
    const std::string path = dir / name;
    write_bytes(path, model_proto);
    const auto result = infernoc({path});
    INFO(result.err);
    CHECK(result.exit_code == 2);
    CHECK(first_line(result.err) == "infernoc: error: '" + path +
                                        "' is an ONNX model, which infernoc does not read; " +
                                        kExportHint);
  }
  // Other bytes that are not a zip stay a malformed model (exit 3), whatever the name.
  write_bytes(dir / "garbage.pt2", "not a model at all");
  const auto garbage = infernoc({dir / "garbage.pt2"});
  CHECK(garbage.exit_code == 3);
  CHECK(first_line(garbage.err)
            .starts_with("infernoc: error: '" + (dir / "garbage.pt2") +
                         "' is not a readable zip archive"));
}

TEST_CASE("a torch.save checkpoint is not taken for a TorchScript file: exit 2") {
  test::ScratchDir dir("checkpoint");
  const std::string path = dir / "weights.pt";
  write_bytes(path, test::stored_zip({{"weights/data.pkl", "\x80\x02}q\x00."},
                                      {"weights/data/0", std::string(16, '\0')},
                                      {"weights/version", "3\n"}}));
  const auto result = infernoc({path});
  CHECK(result.exit_code == 2);
  CHECK(first_line(result.err) ==
        "infernoc: error: '" + path +
            "' is a torch.save checkpoint (pickled weights or module), not a compiled program; " +
            kExportHint);
}

#if !INFERNO_HAVE_TORCHSCRIPT
TEST_CASE("without TorchScript support a TorchScript file is unsupported: exit 2") {
  const auto result = infernoc({fixture_path("mlp2/model.pt"), "--input", "x:4x16:f32"});
  CHECK(result.exit_code == 2);
  CHECK(first_line(result.err) ==
        "infernoc: error: '" + fixture_path("mlp2/model.pt") +
            "' is a TorchScript file, and this infernoc was built without TorchScript support "
            "(INFERNO_TORCHSCRIPT=OFF): export the model with torch.export (.pt2), or use an "
            "infernoc built with LibTorch");
}
#endif

TEST_CASE("CLI11's errors read as infernoc's, with a --help hint: exit 3") {
  struct Case {
    std::vector<std::string> args;
    std::string first_line;
  };
  const std::string model = fixture_path("mlp2/model.pt2");
  const std::vector<Case> cases = {
      {{}, "infernoc: error: model is required"},
      {{model, "--bogus"}, "infernoc: error: The following argument was not expected: --bogus"},
      {{model, model}, "infernoc: error: The following argument was not expected: " + model},
      {{model, "--emit", "exe"},
       "infernoc: error: --emit: exe not in {so,cu,ir,dot,plan,profile-plan}"},
  };
  for (const Case& c : cases) {
    const auto result = infernoc(c.args);
    INFO(result.err);
    CHECK(result.exit_code == 3);
    CHECK(first_line(result.err) == c.first_line);
    CHECK(contains(result.err, "\nrun 'infernoc --help' for the options\n"));
  }
}

TEST_CASE("data files that do not fit are reported as --data, not as --input: exit 3") {
  const std::string model = fixture_path("mlp2/model.pt2");
  const std::string wrong = fixture_path("elementwise_chain/input0.npy");
  const auto shape = infernoc({model, "--emit", "ir", "--data", wrong});
  CHECK(shape.exit_code == 3);
  CHECK(first_line(shape.err) == "infernoc: error: --data '" + wrong +
                                     "' is f32[4,8] but the model's input 0 (x) is f32[4,16]");
  const std::string input = fixture_path("mlp2/input0.npy");
  const auto count = infernoc({model, "--emit", "ir", "--data", input, "--data", input});
  CHECK(count.exit_code == 3);
  CHECK(first_line(count.err) ==
        "infernoc: error: model has 1 input (x) but 2 --data files were given");
}

TEST_CASE("a missing model and a missing .npy are both 'no such file': exit 5") {
  const auto model = infernoc({"/nonexistent/model.pt2", "--emit", "ir"});
  CHECK(model.exit_code == 5);
  CHECK(first_line(model.err) ==
        "infernoc: error: cannot read '/nonexistent/model.pt2': no such file");
  const auto data =
      infernoc({fixture_path("mlp2/model.pt2"), "--emit", "ir", "--data", "/nonexistent/x.npy"});
  CHECK(data.exit_code == 5);
  CHECK(first_line(data.err) == "infernoc: error: cannot read '/nonexistent/x.npy': no such file");
}

TEST_CASE("TorchScript outputs are named output0, ... or by a dict's keys, the log keeps the value",
          "[torchscript]") {
  const auto mlp =
      infernoc({fixture_path("mlp2/model.pt"), "--input", "x:4x16:f32", "--emit", "ir"});
  INFO(mlp.err);
  REQUIRE(mlp.exit_code == 0);
  CHECK(contains(mlp.out, "return %output0\n"));
  CHECK(contains(mlp.err, "infernoc: TorchScript outputs named output0 (was %"));
  const auto dict = infernoc({fixture_path("dict_out/model.pt"), "--data",
                              fixture_path("dict_out/input0.npy"), "--emit", "ir"});
  INFO(dict.err);
  REQUIRE(dict.exit_code == 0);
  CHECK(contains(dict.out, "return %out, %aux\n"));
  CHECK(contains(dict.err, "infernoc: TorchScript outputs named out (was %"));
}

}  // namespace
}  // namespace inferno
