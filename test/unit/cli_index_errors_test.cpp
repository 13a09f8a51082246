// Indexing and attention models infernoc must refuse, end to end through the command line
// (fixtures from tools/export_index_error_fixtures.py): data-dependent results (a bool-mask index,
// repeat_interleave of a tensor of counts) and values infernoc does not compute (attention
// weights a model uses) are unsupported (exit 2); a constant index out of range for the given
// input shape is invalid input (exit 3). Either way one error line naming the op and the node.
#include <string>
#include <vector>

#include "support/catch.h"
#include "support/subprocess.h"
#include "support/test_support.h"

namespace inferno {
namespace {

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST_CASE("data-dependent indexing is unsupported, a constant index out of range invalid",
          "[torchscript]") {
  struct Case {
    std::string model, input;
    int exit_code;
    std::vector<std::string> message_parts;
  };
  const std::vector<Case> cases = {
      {"bool_mask.pt", "x:4x5:f32", 2, {"aten::index", "bool mask", "node '5'"}},
      {"constant_index.pt",
       "x:4x3:f32",
       3,
       {"aten::index", "index 4 is out of range for dim 1 of size 3", "node '9'"}},
      {"repeat_counts.pt", "x:4x5:f32", 2, {"aten::repeat_interleave", "tensor of counts"}},
      {"mha_weights.pt",
       "x:2x3x8:f32",
       2,
       {"an output of aten::_native_multi_head_attention", "attention weights"}},
  };
  for (const Case& c : cases) {
    const test::ProcessResult result =
        test::run_process({INFERNOC_EXE, test::fixture_path("index_errors/" + c.model), "--input",
                           c.input, "--emit", "ir"});
    INFO(c.model << " " << c.input << " -> exit " << result.exit_code << ": " << result.err);
    CHECK(result.exit_code == c.exit_code);
    CHECK(result.out.empty());
    CHECK(contains(result.err, "infernoc: error: "));
    for (const std::string& part : c.message_parts) CHECK(contains(result.err, part));
  }
}

TEST_CASE("the constant index fits the shape it was traced for", "[torchscript]") {
  const test::ProcessResult result =
      test::run_process({INFERNOC_EXE, test::fixture_path("index_errors/constant_index.pt"),
                         "--input", "x:4x5:f32", "--emit", "ir"});
  INFO(result.err);
  CHECK(result.exit_code == 0);
  CHECK(contains(result.out, "index_select"));
}

}  // namespace
}  // namespace inferno
