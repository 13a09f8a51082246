// Loading a model in the test process: TorchScript through the LibTorch-linked frontend
// (load_torchscript_in_process) instead of infernoc's loader child, which only the CLI tests and
// the loader's own tests run.
#pragma once

#include <string>

#include "frontend/frontend.h"

namespace inferno::test {

/// True when this build reads TorchScript (INFERNO_TORCHSCRIPT=ON).
bool have_torchscript();
/// False for a TorchScript fixture (a .pt file) in a build without TorchScript support: the tests
/// that run several forms of a model skip that one there.
bool can_load(const std::string& path);

/// frontend::load_model with TorchScript loaded in this process; in a build without TorchScript
/// support, a TorchScript file is the frontend's unsupported error.
Expected<ir::Graph> load_model(const std::string& path, const frontend::LoadOptions& options);

}  // namespace inferno::test
