// Loading a model file into IR: the entry point to both frontends.
#pragma once

#include <string>

#include "frontend/input_spec.h"
#include "ir/graph.h"
#include "support/status.h"

namespace inferno::frontend {

enum class ModelFormat { kPt2, kTorchScript };

/// Decides by content: a .pt2 archive has an `archive_format` entry, a TorchScript archive a
/// `data.pkl` and `code/`. Errors: unreadable (I/O), not a zip or neither layout (invalid input).
Expected<ModelFormat> detect_format(const std::string& path);

/// Loads a torch.export archive (frontend/pt2_frontend.cpp).
Expected<ir::Graph> load_pt2(const std::string& path, const LoadOptions& options);
/// Loads a TorchScript file by running the TorchScript loader, infernoc-torchscript, in a child
/// process (frontend/torchscript_client.cpp): infernoc itself does not link LibTorch. In a build
/// without TorchScript support (INFERNO_TORCHSCRIPT=OFF) every TorchScript file is unsupported.
Expected<ir::Graph> load_torchscript(const std::string& path, const LoadOptions& options);

/// How load_model reads a TorchScript file: load_torchscript, or (in tests, which link LibTorch)
/// frontend::load_torchscript_in_process.
using TorchScriptLoader = Expected<ir::Graph> (*)(const std::string&, const LoadOptions&);

/// detect_format, then the matching loader.
Expected<ir::Graph> load_model(const std::string& path, const LoadOptions& options,
                               TorchScriptLoader torchscript = &load_torchscript);

}  // namespace inferno::frontend
