// The nvcc commands that turn a build directory's model.cu into model.so: one command, or, for a
// model whose run_steps() is in parts (GeneratedModel::num_parts), one compile per object, all
// run at once, then a link. nvcc builds one file on one core but for its split optimizations,
// so a large model on a machine of many cores builds several times faster as several objects.
#pragma once

#include <string>
#include <vector>

#include "driver/build.h"

namespace inferno::driver {

/// The one-object argv, run in the build directory. --threads=0 builds the archs in parallel and
/// --split-compile=0 runs each arch's optimizations on parts of the code concurrently, both on
/// every CPU. Also the build cache key's argv: building in objects does not change the result.
std::vector<std::string> nvcc_command(const BuildOptions& options);

struct NvccPlan {
  std::vector<std::vector<std::string>> compiles;  ///< run at once; with one, it writes model.so
  std::vector<std::string> link;                   ///< the objects into model.so; empty: none
  std::vector<std::string> objects;                ///< what the compiles write (model-K.o)
};

/// How to build a model of `num_parts` parts with at most `jobs` nvcc processes at once: one
/// object per part and one for the rest (the weights, the session, the entry points) when the
/// jobs allow, else the parts dealt out in runs of consecutive ones, the rest beside the first.
/// Each compile says what it holds with -DINFERNO_MODEL_PARTS_FROM/_TO and -DINFERNO_MODEL_MAIN
/// (kernels/model_prelude.cuh); its --split-compile takes its share of the CPUs. No parts or one
/// job: nvcc_command alone.
NvccPlan nvcc_plan(const BuildOptions& options, int num_parts, int jobs, int cpus);

/// The CPUs this process may run on (its affinity mask), at least 1.
int available_cpus();

}  // namespace inferno::driver
