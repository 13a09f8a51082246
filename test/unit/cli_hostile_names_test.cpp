// Hostile strings through the whole compiler: a .pt2 fixture whose value names, node names and
// stack traces were replaced by quotes, backslashes, newlines, "*/", "#", "??/", non-ASCII bytes
// and a 5,000-character name compiles with nvcc, and the model.cu it generates passes the hygiene
// rules (support/source_hygiene.h) and carries none of those strings verbatim.
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "driver_test_helpers.h"
#include "frontend/pt2_archive.h"
#include "support/catch.h"
#include "support/source_hygiene.h"
#include "support/stored_zip.h"
#include "support/subprocess.h"
#include "support/test_support.h"

namespace inferno {
namespace {

const std::vector<std::string>& hostile_strings() {
  static const std::vector<std::string> strings = {"\"quoted\"",
                                                   "back\\slash\\",
                                                   "new\nline",
                                                   "end*/ int injected;",
                                                   "#define X 1",
                                                   "tri?\?/",
                                                   "\xc3\xa9t\xc3\xa9\xef\xbf\xbf",
                                                   "//",
                                                   "/*",
                                                   "it's",
                                                   "x\r\n#include <evil.h>",
                                                   std::string(5000, 'n')};
  return strings;
}

// Replaces every string of `value` (keys of `rename_keys` objects included) found in `names`.
void rename(nlohmann::json& value, const std::map<std::string, std::string>& names) {
  if (value.is_string()) {
    auto it = names.find(value.get<std::string>());
    if (it != names.end()) value = it->second;
  } else if (value.is_object()) {
    nlohmann::json renamed = nlohmann::json::object();
    for (auto& [key, child] : value.items()) {
      rename(child, names);
      auto it = names.find(key);
      renamed[it != names.end() ? it->second : key] = std::move(child);
    }
    value = std::move(renamed);
  } else if (value.is_array()) {
    for (nlohmann::json& child : value) rename(child, names);
  }
}

// mlp2's .pt2 with hostile value names, node names and stack-trace file names.
std::string hostile_mlp2() {
  Expected<frontend::Pt2Archive> archive =
      frontend::Pt2Archive::open(test::fixture_path("mlp2/model.pt2"));
  REQUIRE(archive.has_value());
  test::ZipRecords records;
  for (const std::string& name : archive->records()) {
    Expected<std::vector<std::byte>> bytes = archive->read(name, 1 << 24);
    REQUIRE(bytes.has_value());
    std::string data(reinterpret_cast<const char*>(bytes->data()), bytes->size());
    if (name == "models/model.json") {
      nlohmann::json model = nlohmann::json::parse(data);
      nlohmann::json& graph = model["graph_module"]["graph"];
      std::map<std::string, std::string> names;
      size_t k = 0;
      for (auto& [value, meta] : graph["tensor_values"].items()) {
        names[value] = hostile_strings()[k % hostile_strings().size()] + std::to_string(k);
        ++k;
      }
      for (nlohmann::json& node : graph["nodes"]) {
        const std::string file = hostile_strings()[k++ % hostile_strings().size()];
        node["metadata"]["stack_trace"] = "File \"" + file + "\", line 7, in forward\n    x";
      }
      rename(model, names);
      data = model.dump();
    }
    records.emplace_back("m/" + name, std::move(data));
  }
  return test::stored_zip(records);
}

TEST_CASE("hostile names and source paths cannot change the generated code") {
  test::ScratchDir dir("hostile_names");
  const std::string model = dir / "model.pt2";
  test::write_text(model, hostile_mlp2());
  const std::string build = dir / "build";
  const test::ProcessResult result =
      test::run_process({INFERNOC_EXE, model, "-o", dir / "model.so", "--keep-build", build});
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK(std::filesystem::exists(dir / "model.so"));

  const std::string source = test::read_text_file(build + "/model.cu");
  CHECK(test::source_hygiene_problem(source).empty());
  for (const std::string& hostile : hostile_strings()) {
    if (hostile == "//" || hostile == "/*") continue;  // model.cu has comments of its own
    INFO(hostile.substr(0, 40));
    CHECK(source.find(hostile) == std::string::npos);
  }
}

}  // namespace
}  // namespace inferno
