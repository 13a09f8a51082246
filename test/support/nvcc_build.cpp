#include "support/nvcc_build.h"

#include <stdlib.h>

#include <exception>

#include "driver/process.h"
#include "driver/toolchain.h"
#include "support/catch.h"
#include "support/subprocess.h"

namespace inferno::test {

codegen::CodegenOptions Nvcc::codegen_options() const {
  codegen::CodegenOptions options;
  options.target.sm_archs = {90};
  options.source_model_hash = "0";
  options.cuda_version = toolchain.version.to_string();
  return options;
}

std::optional<Nvcc> find_nvcc() {
  auto toolchain = driver::check_toolchain(driver::NvccSearch::from_environment(""));
  if (!toolchain) {
    WARN("SKIPPED: no nvcc: " << toolchain.status().to_string());
    return std::nullopt;
  }
  auto sources = driver::find_source_dirs();
  INFO((sources ? "" : sources.status().to_string()));
  REQUIRE(sources.has_value());
  return Nvcc{*toolchain, *sources};
}

NvccBuildDir::NvccBuildDir(const Nvcc& nvcc, const codegen::GeneratedModel& generated,
                           const std::string& tag) {
  std::string pattern = "/tmp/inferno_" + tag + "_XXXXXX";
  REQUIRE(mkdtemp(pattern.data()) != nullptr);
  dir = pattern;
  build.toolchain = nvcc.toolchain;
  build.source_dirs = nvcc.sources;
  build.archs = {driver::SmArch{90, false}};
  build.output = dir + "/" + driver::kLibraryFile;
  REQUIRE(driver::write_build_dir(dir, generated, build).is_ok());
}

NvccBuildDir::~NvccBuildDir() {
  // A failed REQUIRE unwinds through here: the directory stays for a look at what nvcc saw.
  if (!dir.empty() && std::uncaught_exceptions() == 0) driver::remove_tree(dir);
}

void NvccBuildDir::run_strict(std::vector<std::string> argv) const {
  argv.insert(argv.begin() + 1, {"-Werror", "all-warnings", "-Xcompiler", "-Wall,-Wextra,-Werror"});
  const ProcessResult result = run_process(argv, dir);
  INFO("nvcc in " << dir << ": " << result.out << result.err);
  REQUIRE(result.exit_code == 0);
}

}  // namespace inferno::test
