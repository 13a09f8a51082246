#include "frontend/foreign_format.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <fstream>

namespace inferno::frontend {

bool looks_like_onnx(std::span<const std::byte> head) {
  if (head.size() < 3) return false;
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(head[i]); };
  // Tag of field 1 as a varint (0x08), an ir_version of one byte (ONNX is at 11), then the tag of
  // a length-delimited or varint ModelProto field: producer_name (2), producer_version (3),
  // domain (4), model_version (5), doc_string (6), graph (7), opset_import (8), metadata (14).
  constexpr std::array<uint8_t, 8> kNextTags = {0x12, 0x1a, 0x22, 0x28, 0x32, 0x3a, 0x42, 0x72};
  return byte(0) == 0x08 && byte(1) >= 1 && byte(1) <= 0x7f &&
         std::find(kNextTags.begin(), kNextTags.end(), byte(2)) != kNextTags.end();
}

std::optional<Status> diagnose_non_zip(const std::string& path) {
  std::string extension = std::filesystem::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::array<std::byte, 3> head{};
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(head.size()));
  const bool onnx_bytes =
      in.gcount() == static_cast<std::streamsize>(head.size()) && looks_like_onnx(head);
  if (extension != ".onnx" && !onnx_bytes) return std::nullopt;
  return unsupported("'" + path + "' is an ONNX model, which infernoc does not read; " +
                     kExportHint);
}

std::optional<Status> diagnose_zip(const std::string& path,
                                   const std::vector<std::string>& records) {
  const auto has = [&](std::string_view name) {
    return std::find(records.begin(), records.end(), name) != records.end();
  };
  const bool has_code = std::any_of(records.begin(), records.end(),
                                    [](const std::string& n) { return n.starts_with("code/"); });
  if (!has("data.pkl") || has_code) return std::nullopt;
  return unsupported("'" + path +
                     "' is a torch.save checkpoint (pickled weights or module), not a compiled "
                     "program; " +
                     kExportHint);
}

}  // namespace inferno::frontend
