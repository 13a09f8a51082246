// The TorchScript frontend proper, which links LibTorch (library inferno_torchscript). infernoc
// does not call it: it runs the loader executable built on it (frontend::load_torchscript in
// frontend.h); the loader and the tests do.
#pragma once

#include <string>

#include "frontend/input_spec.h"
#include "ir/graph.h"
#include "support/status.h"

namespace inferno::frontend {

/// Loads a TorchScript file through LibTorch in this process and lowers it to IR.
Expected<ir::Graph> load_torchscript_in_process(const std::string& path,
                                                const LoadOptions& options);

}  // namespace inferno::frontend
