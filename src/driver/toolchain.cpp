#include "driver/toolchain.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>

#include "driver/process.h"
#include "driver/program_search.h"

namespace inferno::driver {
namespace {

namespace fs = std::filesystem;

constexpr auto kQueryTimeout = std::chrono::seconds(60);

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

std::string absolute(const std::string& path) {
  std::error_code ec;
  const fs::path abs = fs::absolute(path, ec);
  return ec ? path : abs.lexically_normal().string();
}

/// An explicitly named nvcc (--nvcc, $CUDACXX): it must work; nothing else is tried.
Expected<std::string> explicit_nvcc(const std::string& path, const std::string& what) {
  const std::string why = why_not_executable(path);
  if (!why.empty())
    return toolchain_error("nvcc from " + what + " '" + path + "' cannot be used: " + why);
  return absolute(path);
}

std::string first_line(std::string_view text) {
  const size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return "(no output)";
  text.remove_prefix(start);
  return std::string(text.substr(0, text.find('\n')));
}

bool has_kernels(const fs::path& root) {
  std::error_code ec;
  return !root.empty() && fs::is_directory(root / "kernels", ec);
}

bool has_abi_header(const fs::path& dir) {
  std::error_code ec;
  return !dir.empty() && fs::is_regular_file(dir / "inferno" / "model_abi.h", ec);
}

}  // namespace

NvccSearch NvccSearch::from_environment(std::string explicit_path) {
  NvccSearch search;
  search.explicit_path = std::move(explicit_path);
  search.cudacxx = env("CUDACXX");
  search.cuda_home = env("CUDA_HOME");
  search.path = env("PATH");
  return search;
}

Expected<std::string> find_nvcc(const NvccSearch& search) {
  if (!search.explicit_path.empty()) return explicit_nvcc(search.explicit_path, "--nvcc");
  if (!search.cudacxx.empty()) return explicit_nvcc(search.cudacxx, "CUDACXX");

  std::vector<std::string> tried;
  auto try_path = [&](const std::string& path, const std::string& label) -> bool {
    const std::string why = why_not_executable(path);
    if (why.empty()) return true;
    tried.push_back(label + path + " (" + why + ")");
    return false;
  };
  if (!search.cuda_home.empty()) {
    const std::string path = (fs::path(search.cuda_home) / "bin" / "nvcc").string();
    if (try_path(path, "$CUDA_HOME/bin/nvcc = ")) return absolute(path);
  }
  if (!search.default_path.empty() && try_path(search.default_path, ""))
    return absolute(search.default_path);
  const std::string on_path = find_in_path("nvcc", search.path);
  if (!on_path.empty()) return absolute(on_path);
  tried.push_back("each directory of $PATH (" +
                  (search.path.empty() ? std::string("empty") : search.path) + ")");
  std::string list;
  for (const std::string& t : tried) list += (list.empty() ? "" : ", ") + t;
  return toolchain_error(
      "cannot find nvcc: tried " + list +
      "; install the CUDA toolkit (12.0 or newer), or name nvcc with --nvcc PATH or $CUDACXX");
}

Expected<CudaVersion> parse_nvcc_version(std::string_view output) {
  const size_t at = output.find("release ");
  if (at != std::string_view::npos) {
    const char* p = output.data() + at + 8;
    const char* end = output.data() + output.size();
    CudaVersion version;
    auto [after_major, ec1] = std::from_chars(p, end, version.major);
    if (ec1 == std::errc() && after_major < end && *after_major == '.') {
      auto [after_minor, ec2] = std::from_chars(after_major + 1, end, version.minor);
      if (ec2 == std::errc()) return version;
    }
  }
  return toolchain_error("no 'release X.Y' in its --version output: " + first_line(output));
}

std::vector<int> parse_gpu_code_list(std::string_view output) {
  std::vector<int> ccs;
  size_t at = 0;
  while ((at = output.find("sm_", at)) != std::string_view::npos) {
    at += 3;
    int cc = 0;
    const auto [end, ec] = std::from_chars(output.data() + at, output.data() + output.size(), cc);
    if (ec == std::errc()) ccs.push_back(cc);
    at = static_cast<size_t>(end - output.data());
  }
  std::sort(ccs.begin(), ccs.end());
  ccs.erase(std::unique(ccs.begin(), ccs.end()), ccs.end());
  return ccs;
}

Expected<Toolchain> check_toolchain(const NvccSearch& search) {
  Toolchain toolchain;
  INFERNO_ASSIGN_OR_RETURN(toolchain.nvcc, find_nvcc(search));
  RunOptions query;
  query.timeout = kQueryTimeout;
  INFERNO_ASSIGN_OR_RETURN(ProcessResult version,
                           run_program({toolchain.nvcc, "--version"}, query));
  if (!version.succeeded()) {
    return toolchain_error("'" + toolchain.nvcc + " --version' failed (" + version.describe_end() +
                           "): " + first_line(version.output));
  }
  Expected<CudaVersion> parsed = parse_nvcc_version(version.output);
  if (!parsed)
    return toolchain_error("cannot tell the CUDA version of '" + toolchain.nvcc +
                           "': " + parsed.status().message());
  toolchain.version = *parsed;
  toolchain.version_output = version.output;
  if (toolchain.version < kMinimumCudaVersion) {
    return toolchain_error("'" + toolchain.nvcc + "' is CUDA " + toolchain.version.to_string() +
                           "; infernoc needs CUDA " + kMinimumCudaVersion.to_string() +
                           " or newer");
  }
  // Older or unusual nvccs may not answer; then the archs are left for nvcc itself to refuse.
  Expected<ProcessResult> codes = run_program({toolchain.nvcc, "--list-gpu-code"}, query);
  if (codes && codes->succeeded()) toolchain.supported_ccs = parse_gpu_code_list(codes->output);
  return toolchain;
}

Status check_archs_supported(const Toolchain& toolchain, const std::vector<SmArch>& archs) {
  if (toolchain.supported_ccs.empty()) return Status::ok();
  for (const SmArch& arch : archs) {
    const auto& ccs = toolchain.supported_ccs;
    if (std::find(ccs.begin(), ccs.end(), arch.compute_capability) != ccs.end()) continue;
    std::string list;
    for (int cc : ccs) list += (list.empty() ? "" : ", ") + SmArch{cc, false}.name();
    return toolchain_error("unsupported arch '" + arch.name() + "': nvcc " +
                           toolchain.version.to_string() + " at '" + toolchain.nvcc +
                           "' builds for " + list);
  }
  return Status::ok();
}

Expected<SourceDirs> find_source_dirs() {
  const fs::path exe_dir = executable_dir();
  const fs::path installed_root =
      exe_dir.empty() ? fs::path() : exe_dir.parent_path() / "share" / "inferno";
  fs::path root;
  const std::string override_dir = env("INFERNO_KERNELS_DIR");
  if (!override_dir.empty()) {
    if (!has_kernels(override_dir)) {
      return toolchain_error("INFERNO_KERNELS_DIR is '" + override_dir +
                             "', which has no kernels/ directory");
    }
    root = override_dir;
  } else if (has_kernels(installed_root)) {
    root = installed_root;
  } else if (has_kernels(INFERNO_KERNELS_DIR)) {
    root = INFERNO_KERNELS_DIR;
  } else {
    return toolchain_error("cannot find infernoc's CUDA kernels: no kernels/ directory in '" +
                           installed_root.string() + "' or '" + INFERNO_KERNELS_DIR +
                           "'; set INFERNO_KERNELS_DIR to the directory containing kernels/");
  }
  SourceDirs dirs;
  dirs.kernels_root = absolute(root.string());
  const fs::path candidates[] = {root / "include",
                                 exe_dir.empty() ? fs::path() : exe_dir.parent_path() / "include",
                                 fs::path(INFERNO_KERNELS_DIR) / "include"};
  for (const fs::path& candidate : candidates) {
    if (has_abi_header(candidate)) {
      dirs.include_dir = absolute(candidate.string());
      return dirs;
    }
  }
  return toolchain_error("cannot find inferno/model_abi.h beside the kernels in '" +
                         dirs.kernels_root + "', in the installation, or in '" +
                         INFERNO_KERNELS_DIR + "/include'");
}

}  // namespace inferno::driver
