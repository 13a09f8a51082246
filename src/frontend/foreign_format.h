// Model files infernoc does not read but a new user may well bring: an ONNX model, or a
// torch.save checkpoint. Recognized so the error says what the file is and what to export instead.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "support/status.h"

namespace inferno::frontend {

/// What to do instead, appended to every such error.
inline constexpr const char* kExportHint =
    "infernoc reads torch.export archives (.pt2: torch.export.export, then torch.export.save; "
    "torch >= 2.8) and TorchScript files (.pt: torch.jit.trace or torch.jit.script, then "
    ".save)";

/// Whether `head`, a file's first bytes, starts like an ONNX ModelProto: ir_version (protobuf
/// field 1, a small varint) first, as every ONNX writer puts it, then another ModelProto field.
bool looks_like_onnx(std::span<const std::byte> head);

/// For a file that is not a zip archive: an unsupported-format error when it is an ONNX model (by
/// its bytes or a .onnx name), else nothing. Reads at most the file's first bytes.
std::optional<Status> diagnose_non_zip(const std::string& path);

/// For a zip archive that is neither a .pt2 nor a TorchScript file, given its record names: an
/// unsupported-format error when it is a torch.save checkpoint (data.pkl without code/).
std::optional<Status> diagnose_zip(const std::string& path,
                                   const std::vector<std::string>& records);

}  // namespace inferno::frontend
