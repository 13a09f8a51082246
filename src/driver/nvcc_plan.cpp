#include "driver/nvcc_plan.h"

#include <sched.h>

#include <algorithm>
#include <thread>

namespace inferno::driver {
namespace {

// The flags of every compile of model.cu: the host code's level, the language, position-
// independent code with hidden symbols, the include directories and the archs. nvcc's -O is the
// host compiler's level only (the PTX and the machine code are the same at -O1 and -O3). The host
// side of model.cu is launch code, and optimizing its long run function was most of
// DenseNet-121's nvcc time at -O3 (the host compile 10.1 s, 4.7 s at -O1: the whole nvcc 16.2 ->
// 9.7 s on two cores; ConvNeXt-Tiny 13.7 -> 11.1 s).
std::vector<std::string> compile_flags(const BuildOptions& options, const std::string& split) {
  std::vector<std::string> argv = {options.toolchain.nvcc,
                                   "-O1",
                                   "-std=c++17",
                                   "-Xcompiler",
                                   "-fPIC,-fvisibility=hidden",
                                   "--threads=0",
                                   "--split-compile=" + split,
                                   "-I.",
                                   "-Iinclude"};
  for (std::string& flag : gencode_flags(options.archs)) argv.push_back(std::move(flag));
  return argv;
}

// The link's flags before its inputs. --as-needed: only the cuBLAS libraries the code calls
// become dependencies of model.so.
std::vector<std::string> link_flags() {
  std::vector<std::string> flags = {"--shared", "-cudart", "static"};
  for (const char* flag : {"--version-script=exports.map", "--no-undefined", "--as-needed"}) {
    flags.insert(flags.end(), {"-Xlinker", flag});
  }
  return flags;
}

}  // namespace

std::vector<std::string> nvcc_command(const BuildOptions& options) {
  std::vector<std::string> argv = compile_flags(options, "0");
  for (std::string& flag : link_flags()) argv.push_back(std::move(flag));
  argv.insert(argv.end(), {"-o", kLibraryFile, kSourceFile, "-lcublasLt", "-lcublas"});
  return argv;
}

NvccPlan nvcc_plan(const BuildOptions& options, int num_parts, int jobs, int cpus) {
  NvccPlan plan;
  const int objects = std::min(num_parts + 1, jobs);
  if (num_parts <= 0 || objects <= 1) {
    plan.compiles.push_back(nvcc_command(options));
    return plan;
  }
  // Object 0 holds the rest; with a job for each part it holds no part (FROM > TO).
  const bool own_main = objects == num_parts + 1;
  const int dealt = own_main ? objects - 1 : objects;  // objects that hold parts
  const std::string split = std::to_string(std::max(1, cpus / objects));
  int next = 0;
  for (int k = 0; k < objects; ++k) {
    int count = 0;
    if (!own_main || k > 0) {
      const int index = own_main ? k - 1 : k;
      // The parts that do not divide evenly go to the last objects, away from the rest.
      count = num_parts / dealt + (index >= dealt - num_parts % dealt ? 1 : 0);
    }
    std::vector<std::string> argv = compile_flags(options, split);
    const std::string object = "model-" + std::to_string(k) + ".o";
    argv.insert(argv.end(), {"-DINFERNO_MODEL_PARTS_FROM=" + std::to_string(next),
                             "-DINFERNO_MODEL_PARTS_TO=" + std::to_string(next + count - 1),
                             std::string("-DINFERNO_MODEL_MAIN=") + (k == 0 ? "1" : "0"), "-c",
                             "-o", object, kSourceFile});
    next += count;
    plan.compiles.push_back(std::move(argv));
    plan.objects.push_back(object);
  }
  plan.link = {options.toolchain.nvcc};
  for (std::string& flag : gencode_flags(options.archs)) plan.link.push_back(std::move(flag));
  for (std::string& flag : link_flags()) plan.link.push_back(std::move(flag));
  plan.link.insert(plan.link.end(), {"-o", kLibraryFile});
  plan.link.insert(plan.link.end(), plan.objects.begin(), plan.objects.end());
  plan.link.insert(plan.link.end(), {"-lcublasLt", "-lcublas"});
  return plan;
}

int available_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace inferno::driver
