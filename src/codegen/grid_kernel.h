// One generated grid-stride kernel, as a lowering describes it before it is written out
// (emit_grid_kernel.h writes it; launch_groups.h may write several as one launch).
#pragma once

#include <cstdint>
#include <string>

#include "codegen/source_writer.h"

namespace inferno::codegen {

/// One generated kernel and its launch.
struct GridKernel {
  std::string name;     ///< a C identifier, unique in model.cu
  std::string comment;  ///< lines above the kernel (each becomes a // comment)
  std::string params;   ///< "const float* in0, float* out"
  NamedArgs args;       ///< the launch's arguments, named as params and in their order
  SourceWriter body;    ///< the loop body over flat index i (`continue` ends an element)
  int64_t numel = 0;    ///< elements the loop covers
  std::string label;    ///< the node's label for launch errors (EmitContext::label)
};

}  // namespace inferno::codegen
