// GPU targets: parsing --arch, the nvcc -gencode flags for a target list, and the local GPU's
// compute capability (found through the CUDA driver, dlopen'ed: infernoc does not link CUDA).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/status.h"

namespace inferno::driver {

/// Compute capabilities infernoc knows (major * 10 + minor).
inline constexpr int kKnownComputeCapabilities[] = {70, 75,  80,  86,  87,  89,
                                                    90, 100, 103, 110, 120, 121};
/// The target when --arch is not given and no GPU is visible: sm_90 (Hopper: H100, H200).
inline constexpr int kDefaultComputeCapability = 90;

/// One target: sm_90 is {90, false}; sm_90a, the arch-specific variant (wgmma, setmaxnreg, ...;
/// its code runs only on compute capability 9.0 itself), is {90, true}.
struct SmArch {
  int compute_capability = kDefaultComputeCapability;
  bool arch_specific = false;

  std::string name() const;  ///< "sm_90a"
  friend bool operator==(const SmArch&, const SmArch&) = default;
  friend auto operator<=>(const SmArch&, const SmArch&) = default;
};

/// Parses a comma-separated list: "sm_90a", "sm_80,sm_90", "90", "86,90a". The result is sorted
/// and free of duplicates. Anything else, or an arch outside kKnownComputeCapabilities, or an
/// "a" suffix below sm_90, is a toolchain error ("unsupported arch 'sm_42'").
Expected<std::vector<SmArch>> parse_arch_list(std::string_view text);

/// The nvcc flags for `archs` (sorted, as parse_arch_list returns them): machine code for each,
/// `-gencode=arch=compute_90,code=sm_90` (the -gencode form: with nvcc 13.0 the -arch=sm_90a
/// shorthand also runs a plain sm_90 pass), plus PTX of the highest arch so that newer GPUs can
/// JIT-compile it. Arch-specific PTX (compute_90a) runs on no other GPU, so when the highest
/// compute capability is targeted only as arch-specific (sm_90a alone) no PTX is embedded.
std::vector<std::string> gencode_flags(const std::vector<SmArch>& archs);

/// The compute capabilities of `archs` as numbers, sorted and unique (sm_90 and sm_90a are 90):
/// what the model's manifest lists.
std::vector<int> compute_capabilities(const std::vector<SmArch>& archs);

/// "sm_80, sm_90a".
std::string describe(const std::vector<SmArch>& archs);

/// The compute capabilities of the visible GPUs, sorted and unique; empty when there is no
/// driver (libcuda.so.1) or no device. Never fails and never links CUDA.
std::vector<int> detect_local_compute_capabilities();

/// The default targets given the local GPUs' compute capabilities
/// (detect_local_compute_capabilities): those that infernoc knows, as plain sm_NN; sm_90 when there
/// are none.
std::vector<SmArch> default_archs(const std::vector<int>& local_compute_capabilities);

}  // namespace inferno::driver
