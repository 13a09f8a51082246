// The compiler's stages after a frontend, as the fuzz targets run them: the default pipeline,
// then codegen (no nvcc).
#pragma once

#include "ir/graph.h"

namespace inferno::fuzz {

/// Optimizes `graph` and generates its CUDA source; aborts if either ends in an internal error.
void optimize_and_generate(ir::Graph& graph);

}  // namespace inferno::fuzz
