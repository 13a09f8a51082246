// --arch parsing, the -gencode flags per target list, and the default targets.
#include <string>
#include <vector>

#include "driver/arch.h"
#include "support/catch.h"

namespace inferno::driver {
namespace {

std::vector<std::string> names(const std::vector<SmArch>& archs) {
  std::vector<std::string> out;
  for (const SmArch& a : archs) out.push_back(a.name());
  return out;
}

TEST_CASE("arch lists parse in their accepted spellings, sorted and unique") {
  struct Case {
    std::string text;
    std::vector<std::string> expected;
  };
  const std::vector<Case> cases = {
      {"sm_90", {"sm_90"}},
      {"sm_90a", {"sm_90a"}},
      {"90", {"sm_90"}},
      {"90a", {"sm_90a"}},
      {"sm_90,sm_80", {"sm_80", "sm_90"}},
      {"sm_80, 86 ,sm_90a", {"sm_80", "sm_86", "sm_90a"}},
      {"sm_90,sm_90a", {"sm_90", "sm_90a"}},
      {"sm_90,90", {"sm_90"}},
      {"sm_70,sm_121", {"sm_70", "sm_121"}},
      {"sm_100a,sm_120a", {"sm_100a", "sm_120a"}},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    auto parsed = parse_arch_list(c.text);
    REQUIRE(parsed.has_value());
    CHECK(names(*parsed) == c.expected);
  }
}

TEST_CASE("unknown or malformed archs are toolchain errors naming them") {
  struct Case {
    std::string text;
    std::string message_part;
  };
  const std::vector<Case> cases = {
      {"sm_42", "unsupported arch 'sm_42'"},
      {"sm_91", "unsupported arch 'sm_91'"},
      {"sm_80a", "unsupported arch 'sm_80a'"},
      {"sm_90,sm_42", "unsupported arch 'sm_42'"},
      {"compute_90", "unsupported arch 'compute_90'"},
      {"sm_", "unsupported arch 'sm_'"},
      {"sm_90b", "unsupported arch 'sm_90b'"},
      {"hopper", "unsupported arch 'hopper'"},
      {"-90", "unsupported arch '-90'"},
      {"", "empty arch"},
      {"sm_90,", "empty arch"},
      {",sm_90", "empty arch"},
  };
  for (const Case& c : cases) {
    INFO("'" << c.text << "'");
    auto parsed = parse_arch_list(c.text);
    REQUIRE_FALSE(parsed.has_value());
    CHECK(parsed.status().code() == ErrorCode::kToolchain);
    INFO(parsed.status().message());
    CHECK(parsed.status().message().find(c.message_part) != std::string::npos);
  }
  auto unknown = parse_arch_list("sm_42");
  CHECK(unknown.status().message().find("sm_90") != std::string::npos);  // lists what is known
}

TEST_CASE("gencode flags: machine code per arch, PTX of the highest plain arch") {
  struct Case {
    std::string archs;
    std::vector<std::string> flags;
  };
  const std::vector<Case> cases = {
      {"sm_90",
       {"-gencode=arch=compute_90,code=sm_90", "-gencode=arch=compute_90,code=compute_90"}},
      {"sm_90a", {"-gencode=arch=compute_90a,code=sm_90a"}},
      {"sm_80,sm_90",
       {"-gencode=arch=compute_80,code=sm_80", "-gencode=arch=compute_90,code=sm_90",
        "-gencode=arch=compute_90,code=compute_90"}},
      {"sm_90,sm_90a",
       {"-gencode=arch=compute_90,code=sm_90", "-gencode=arch=compute_90a,code=sm_90a",
        "-gencode=arch=compute_90,code=compute_90"}},
      {"sm_90a,sm_100",
       {"-gencode=arch=compute_90a,code=sm_90a", "-gencode=arch=compute_100,code=sm_100",
        "-gencode=arch=compute_100,code=compute_100"}},
      {"sm_80,sm_100a",
       {"-gencode=arch=compute_80,code=sm_80", "-gencode=arch=compute_100a,code=sm_100a"}},
  };
  for (const Case& c : cases) {
    INFO(c.archs);
    auto archs = parse_arch_list(c.archs);
    REQUIRE(archs.has_value());
    CHECK(gencode_flags(*archs) == c.flags);
  }
}

TEST_CASE("the manifest's compute capabilities merge sm_NN and sm_NNa") {
  auto archs = parse_arch_list("sm_90a,sm_80,sm_90");
  REQUIRE(archs.has_value());
  CHECK(compute_capabilities(*archs) == std::vector<int>{80, 90});
  CHECK(describe(*archs) == "sm_80, sm_90, sm_90a");
}

TEST_CASE("default archs: the local GPUs' known archs, else sm_90") {
  CHECK(names(default_archs({})) == std::vector<std::string>{"sm_90"});
  CHECK(names(default_archs({90})) == std::vector<std::string>{"sm_90"});
  CHECK(names(default_archs({86, 80, 86})) == std::vector<std::string>{"sm_80", "sm_86"});
  CHECK(names(default_archs({130})) == std::vector<std::string>{"sm_90"});  // unknown to infernoc
  CHECK(names(default_archs({130, 89})) == std::vector<std::string>{"sm_89"});
}

TEST_CASE("detecting local GPUs never fails") {
  // No GPU or driver here (CI) gives an empty list; on a GPU machine every entry is a real CC.
  for (int cc : detect_local_compute_capabilities()) {
    CHECK(cc >= 30);
    CHECK(cc < 200);
  }
}

}  // namespace
}  // namespace inferno::driver
