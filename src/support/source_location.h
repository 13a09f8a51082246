// Where in the user's Python model a node came from.
#pragma once

#include <cstdint>
#include <string>

namespace inferno {

/// A position in the model's Python source, as the exporter recorded it (torch.export
/// `stack_trace`, TorchScript SourceRange). Empty when the format carries none.
struct SourceLocation {
  std::string file;  ///< file name as recorded by the exporter
  int64_t line = 0;  ///< 1-based; 0 when unknown

  bool empty() const { return file.empty(); }
  /// "file.py:12", or "" when unknown.
  std::string to_string() const;
  bool operator==(const SourceLocation&) const = default;
};

}  // namespace inferno
