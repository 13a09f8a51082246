#include "support/status.h"

#include <cstdio>
#include <cstdlib>

#include "support/check.h"

namespace inferno {

std::string SourceLocation::to_string() const {
  if (file.empty()) return {};
  return line > 0 ? file + ":" + std::to_string(line) : file;
}

std::string Status::to_string() const {
  std::string out = message_;
  if (!node_.empty() || !loc_.empty()) {
    out += " (";
    if (!node_.empty()) out += "node '" + node_ + "'";
    if (!node_.empty() && !loc_.empty()) out += " ";
    if (!loc_.empty()) out += "at " + loc_.to_string();
    out += ")";
  }
  return out;
}

Status unsupported(std::string message, std::string node, SourceLocation loc) {
  return {ErrorCode::kUnsupported, std::move(message), std::move(node), std::move(loc)};
}
Status invalid_input(std::string message, std::string node, SourceLocation loc) {
  return {ErrorCode::kInvalidInput, std::move(message), std::move(node), std::move(loc)};
}
Status io_error(std::string message) { return {ErrorCode::kIo, std::move(message)}; }
Status toolchain_error(std::string message) { return {ErrorCode::kToolchain, std::move(message)}; }
Status internal_error(std::string message) { return {ErrorCode::kInternal, std::move(message)}; }

namespace detail {
void check_failed(const char* condition, const char* file, int line, const std::string& message) {
  std::fprintf(stderr, "infernoc: internal error: check failed: %s at %s:%d%s%s\n", condition, file,
               line, message.empty() ? "" : ": ", message.c_str());
  std::fflush(stderr);
  std::_Exit(static_cast<int>(ErrorCode::kInternal));
}
}  // namespace detail

}  // namespace inferno
