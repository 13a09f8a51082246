#include "driver/arch.h"

#include <dlfcn.h>

#include <algorithm>
#include <charconv>

namespace inferno::driver {
namespace {

bool is_known(int cc) {
  return std::find(std::begin(kKnownComputeCapabilities), std::end(kKnownComputeCapabilities),
                   cc) != std::end(kKnownComputeCapabilities);
}

std::string known_list() {
  std::string list;
  for (int cc : kKnownComputeCapabilities)
    list += (list.empty() ? "" : ", ") + SmArch{cc, false}.name();
  return list;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

Expected<SmArch> parse_one(std::string_view item) {
  std::string_view s = item;
  if (s.substr(0, 3) == "sm_") s.remove_prefix(3);
  SmArch arch;
  if (!s.empty() && s.back() == 'a') {
    arch.arch_specific = true;
    s.remove_suffix(1);
  }
  int cc = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), cc);
  const bool digits = !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
  if (!digits || ec != std::errc() || end != s.data() + s.size()) {
    return toolchain_error("unsupported arch '" + std::string(item) +
                           "' (expected sm_NN or sm_NNa, e.g. sm_90a)");
  }
  arch.compute_capability = cc;
  if (!is_known(cc)) {
    return toolchain_error("unsupported arch '" + arch.name() + "' (infernoc knows " +
                           known_list() + ")");
  }
  if (arch.arch_specific && cc < 90) {
    return toolchain_error("unsupported arch '" + arch.name() +
                           "' (arch-specific 'a' targets start at sm_90a)");
  }
  return arch;
}

}  // namespace

std::string SmArch::name() const {
  return "sm_" + std::to_string(compute_capability) + (arch_specific ? "a" : "");
}

Expected<std::vector<SmArch>> parse_arch_list(std::string_view text) {
  std::vector<SmArch> archs;
  size_t start = 0;
  while (true) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = trim(text.substr(start, comma - start));
    if (item.empty()) return toolchain_error("empty arch in --arch '" + std::string(text) + "'");
    INFERNO_ASSIGN_OR_RETURN(SmArch arch, parse_one(item));
    archs.push_back(arch);
    if (comma == text.size()) break;
    start = comma + 1;
  }
  std::sort(archs.begin(), archs.end());
  archs.erase(std::unique(archs.begin(), archs.end()), archs.end());
  return archs;
}

std::vector<std::string> gencode_flags(const std::vector<SmArch>& archs) {
  std::vector<std::string> flags;
  for (const SmArch& arch : archs) {
    const std::string cc =
        std::to_string(arch.compute_capability) + (arch.arch_specific ? "a" : "");
    flags.push_back("-gencode=arch=compute_" + cc + ",code=sm_" + cc);
  }
  // PTX of the highest compute capability, when it is targeted as plain sm_NN.
  const SmArch plain_highest{archs.empty() ? 0 : archs.back().compute_capability, false};
  if (std::find(archs.begin(), archs.end(), plain_highest) != archs.end()) {
    const std::string cc = std::to_string(plain_highest.compute_capability);
    flags.push_back("-gencode=arch=compute_" + cc + ",code=compute_" + cc);
  }
  return flags;
}

std::vector<int> compute_capabilities(const std::vector<SmArch>& archs) {
  std::vector<int> ccs;
  for (const SmArch& arch : archs) ccs.push_back(arch.compute_capability);
  std::sort(ccs.begin(), ccs.end());
  ccs.erase(std::unique(ccs.begin(), ccs.end()), ccs.end());
  return ccs;
}

std::string describe(const std::vector<SmArch>& archs) {
  std::string text;
  for (const SmArch& arch : archs) text += (text.empty() ? "" : ", ") + arch.name();
  return text;
}

std::vector<int> detect_local_compute_capabilities() {
  // The CUDA driver API, declared here by hand: CUresult and CUdevice are ints.
  using CuInit = int (*)(unsigned int);
  using CuDeviceGetCount = int (*)(int*);
  using CuDeviceGet = int (*)(int*, int);
  using CuDeviceGetAttribute = int (*)(int*, int, int);
  constexpr int kComputeCapabilityMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
  constexpr int kComputeCapabilityMinor = 76;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR

  // Never dlclose'd: unloading the driver after cuInit is not supported.
  void* lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return {};
  auto cu_init = reinterpret_cast<CuInit>(::dlsym(lib, "cuInit"));
  auto cu_count = reinterpret_cast<CuDeviceGetCount>(::dlsym(lib, "cuDeviceGetCount"));
  auto cu_get = reinterpret_cast<CuDeviceGet>(::dlsym(lib, "cuDeviceGet"));
  auto cu_attribute = reinterpret_cast<CuDeviceGetAttribute>(::dlsym(lib, "cuDeviceGetAttribute"));
  if (!cu_init || !cu_count || !cu_get || !cu_attribute || cu_init(0) != 0) return {};
  int count = 0;
  if (cu_count(&count) != 0) return {};
  std::vector<int> ccs;
  for (int i = 0; i < count; ++i) {
    int device = 0, major = 0, minor = 0;
    if (cu_get(&device, i) != 0 || cu_attribute(&major, kComputeCapabilityMajor, device) != 0 ||
        cu_attribute(&minor, kComputeCapabilityMinor, device) != 0) {
      continue;
    }
    ccs.push_back(major * 10 + minor);
  }
  std::sort(ccs.begin(), ccs.end());
  ccs.erase(std::unique(ccs.begin(), ccs.end()), ccs.end());
  return ccs;
}

std::vector<SmArch> default_archs(const std::vector<int>& local_compute_capabilities) {
  std::vector<SmArch> archs;
  for (int cc : local_compute_capabilities) {
    if (is_known(cc)) archs.push_back({cc, false});
  }
  if (archs.empty()) archs.push_back({kDefaultComputeCapability, false});
  std::sort(archs.begin(), archs.end());
  archs.erase(std::unique(archs.begin(), archs.end()), archs.end());
  return archs;
}

}  // namespace inferno::driver
