// Convolutions infernoc must refuse, end to end through the command line (fixtures from
// tools/export_conv_error_fixtures.py): inconsistent attributes or shapes are invalid input (exit
// 3), a variant infernoc does not compute is unsupported (exit 2); either way one error line
// naming the op and the node, never a crash or an output. The 3-D convolutions among the fixtures
// compile (and are invalid over too few frames).
#include <string>
#include <utility>
#include <vector>

#include "support/catch.h"
#include "support/subprocess.h"
#include "support/test_support.h"

namespace inferno {
namespace {

test::ProcessResult infernoc(const std::string& model, const std::string& input) {
  return test::run_process(
      {INFERNOC_EXE, test::fixture_path("conv_errors/" + model), "--input", input, "--emit", "ir"});
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST_CASE("inconsistent convolutions are invalid input naming the node", "[torchscript]") {
  struct Case {
    std::string model, input;
    int exit_code;
    std::vector<std::string> message_parts;
  };
  const std::vector<Case> cases = {
      {"groups_mismatch.pt",
       "x:1x3x8x8:f32",
       3,
       {"aten::conv2d", "divisible by groups 2", "node '9'"}},
      // The input channels fit the groups, the weight's 3 output channels still do not.
      {"groups_mismatch.pt", "x:1x4x8x8:f32", 3, {"output channels 3", "node '9'"}},
      {"negative_padding.pt", "x:1x3x8x8:f32", 3, {"aten::conv2d", "padding", "node '9'"}},
      {"conv5x5.pt", "x:1x2x3x3:f32", 3, {"kernel", "larger than the padded input", "node '12'"}},
      {"conv3d.pt",
       "input:1x1x2x4x4:f32",
       3,
       {"aten::_convolution", "frames (padded) are fewer than the kernel spans", "node '12'"}},
  };
  for (const Case& c : cases) {
    const test::ProcessResult result = infernoc(c.model, c.input);
    INFO(c.model << " " << c.input << " -> exit " << result.exit_code << ": " << result.err);
    CHECK(result.exit_code == c.exit_code);
    CHECK(result.out.empty());
    CHECK(contains(result.err, "infernoc: error: "));
    for (const std::string& part : c.message_parts) CHECK(contains(result.err, part));
  }
}

TEST_CASE("3-D convolutions, traced and scripted, compile", "[torchscript]") {
  for (const auto& [model, input] : {std::pair{"conv3d.pt", "input:1x1x4x4x4:f32"},
                                     std::pair{"conv3d_scripted.pt", "x:1x1x4x4x4:f32"}}) {
    const test::ProcessResult result = infernoc(model, input);
    INFO(model << ": " << result.err);
    CHECK(result.exit_code == 0);
    CHECK(contains(result.out, "f32[1,2,2,2,2]"));  // 2 output channels, 4 - 3 + 1 per dim
  }
}

TEST_CASE("the 5x5 conv that a 3x3 input makes invalid compiles at 8x8", "[torchscript]") {
  const test::ProcessResult result = infernoc("conv5x5.pt", "x:1x2x8x8:f32");
  INFO(result.err);
  CHECK(result.exit_code == 0);
  CHECK(contains(result.out, "f32[1,4,4,4]"));
}

}  // namespace
}  // namespace inferno
