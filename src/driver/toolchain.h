// The build environment, checked before any model is loaded: which nvcc, its CUDA version, the
// archs it can build for, and where the kernels/ and model ABI headers that generated code
// includes are. Every failure here is a toolchain error (exit 4) saying what was tried.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "driver/arch.h"
#include "support/status.h"

namespace inferno::driver {

/// Where to look for nvcc, in this order: `explicit_path` (--nvcc), `cudacxx` ($CUDACXX), both
/// taken as given (an unusable one is an error, not skipped); then `cuda_home`/bin/nvcc
/// ($CUDA_HOME), `default_path`, and each directory of `path` ($PATH), the first executable.
struct NvccSearch {
  std::string explicit_path;
  std::string cudacxx;
  std::string cuda_home;
  std::string default_path = "/usr/local/cuda/bin/nvcc";
  std::string path;

  /// The search with `explicit_path` and the values of $CUDACXX, $CUDA_HOME and $PATH.
  static NvccSearch from_environment(std::string explicit_path);
};

/// Finds nvcc; the result is an absolute path (nvcc runs in the build directory).
Expected<std::string> find_nvcc(const NvccSearch& search);

struct CudaVersion {
  int major = 0;
  int minor = 0;
  std::string to_string() const { return std::to_string(major) + "." + std::to_string(minor); }
  friend auto operator<=>(const CudaVersion&, const CudaVersion&) = default;
};

/// The oldest CUDA toolkit infernoc builds with.
inline constexpr CudaVersion kMinimumCudaVersion{12, 0};

/// Reads "release X.Y" from `nvcc --version` output; nullopt-like error text when absent.
Expected<CudaVersion> parse_nvcc_version(std::string_view version_output);

/// Reads the compute capabilities from `nvcc --list-gpu-code` output ("sm_75\nsm_80\n...").
std::vector<int> parse_gpu_code_list(std::string_view output);

struct Toolchain {
  std::string nvcc;  ///< absolute path
  CudaVersion version;
  std::string version_output;      ///< all `nvcc --version` printed (part of the cache key)
  std::vector<int> supported_ccs;  ///< what nvcc can build for; empty when it would not say
};

/// Finds nvcc, runs `nvcc --version` and `nvcc --list-gpu-code`, and requires CUDA >= 12.0.
Expected<Toolchain> check_toolchain(const NvccSearch& search);

/// Fails when `toolchain` cannot build for one of `archs` ("nvcc 13.0 ... cannot build for sm_70").
Status check_archs_supported(const Toolchain& toolchain, const std::vector<SmArch>& archs);

/// The headers generated code includes: `kernels_root` holds kernels/ ("kernels/softmax.cuh"),
/// `include_dir` holds inferno/model_abi.h.
struct SourceDirs {
  std::string kernels_root;
  std::string include_dir;
};

/// $INFERNO_KERNELS_DIR (a directory containing kernels/ and include/inferno/model_abi.h, or
/// kernels/ alone with the headers found as below), else the source tree infernoc was built
/// from, else the installed layout (<prefix>/share/inferno/kernels, <prefix>/include).
Expected<SourceDirs> find_source_dirs();

}  // namespace inferno::driver
