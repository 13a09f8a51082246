// Status and Expected<T>: how every stage of the compiler reports user-facing errors.
//
// A user error (bad model, unsupported op, missing toolchain, I/O failure) travels up as a Status
// with an ErrorCode that maps one-to-one to the CLI's exit code. Internal invariants are not
// Statuses: they are INFERNO_CHECKs (support/check.h), which abort with a message.
#pragma once

#include <string>
#include <utility>
#include <variant>

#include "support/source_location.h"

namespace inferno {

/// Error categories; the numeric value is the CLI exit code (see docs/design.md).
enum class ErrorCode : int {
  kOk = 0,
  kInternal = 1,      ///< a bug in infernoc
  kUnsupported = 2,   ///< a valid model uses an op or feature infernoc does not support
  kInvalidInput = 3,  ///< malformed or truncated model, bad --input spec, bad .npy file
  kToolchain = 4,     ///< environment: no nvcc, unsupported arch
  kIo = 5,            ///< cannot read or write a file
};

/// The outcome of an operation: ok, or an error code with a message, and where in the model the
/// problem sits (node name and source location) when that is known.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(ErrorCode code, std::string message, std::string node = {}, SourceLocation loc = {})
      : code_(code), message_(std::move(message)), node_(std::move(node)), loc_(std::move(loc)) {}

  static Status ok() { return {}; }

  bool is_ok() const { return code_ == ErrorCode::kOk; }
  explicit operator bool() const { return is_ok(); }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }
  const std::string& node() const { return node_; }
  const SourceLocation& location() const { return loc_; }

  /// "message (node 'x' at file.py:12)", or just the message when there is no node/location.
  std::string to_string() const;

 private:
  ErrorCode code_ = ErrorCode::kOk;
  std::string message_;
  std::string node_;
  SourceLocation loc_;
};

Status unsupported(std::string message, std::string node = {}, SourceLocation loc = {});
Status invalid_input(std::string message, std::string node = {}, SourceLocation loc = {});
Status io_error(std::string message);
Status toolchain_error(std::string message);
Status internal_error(std::string message);

/// A value or the Status explaining why there is none.
template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : state_(std::move(value)) {}         // NOLINT: implicit by design
  Expected(Status status) : state_(std::move(status)) {}  // NOLINT: implicit by design

  bool has_value() const { return state_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  /// The error; only valid when !has_value().
  const Status& status() const { return std::get<1>(state_); }

 private:
  std::variant<T, Status> state_;
};

}  // namespace inferno

/// Propagates a non-ok Status (or the Status of a failed Expected) to the caller.
#define INFERNO_RETURN_IF_ERROR(expr)                     \
  do {                                                    \
    ::inferno::Status inferno_status_ = (expr);           \
    if (!inferno_status_.is_ok()) return inferno_status_; \
  } while (0)

#define INFERNO_CONCAT_INNER_(a, b) a##b
#define INFERNO_CONCAT_(a, b) INFERNO_CONCAT_INNER_(a, b)

/// `INFERNO_ASSIGN_OR_RETURN(auto x, expected_expr);` binds the value or returns the Status.
#define INFERNO_ASSIGN_OR_RETURN(lhs, expr) \
  INFERNO_ASSIGN_OR_RETURN_IMPL_(INFERNO_CONCAT_(inferno_expected_, __LINE__), lhs, expr)
#define INFERNO_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                   \
  if (!tmp.has_value()) return tmp.status();           \
  lhs = std::move(tmp).value()
