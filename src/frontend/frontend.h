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
/// Loads a TorchScript file through LibTorch (frontend/torchscript_frontend.cpp).
Expected<ir::Graph> load_torchscript(const std::string& path, const LoadOptions& options);

/// detect_format, then the matching loader.
Expected<ir::Graph> load_model(const std::string& path, const LoadOptions& options);

}  // namespace inferno::frontend
