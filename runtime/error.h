// Errors inside the runtime: thrown as Error and turned into a status plus this thread's last-error
// text at the C boundary (guarded() below), so the code in between reads straight through.
#pragma once

#include <exception>
#include <new>
#include <string>
#include <utility>

#include "inferno/runtime.h"

namespace inferno::runtime {

/// A failed runtime operation: the status the C API returns and its one-line message.
class Error : public std::exception {
 public:
  Error(inferno_status status, std::string message)
      : status_(status), message_(std::move(message)) {}
  inferno_status status() const noexcept { return status_; }
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  inferno_status status_;
  std::string message_;
};

/// Throws Error(status, message).
[[noreturn]] void fail(inferno_status status, std::string message);

/// Sets this thread's last-error text (what inferno_last_error returns). Never throws: when the
/// text cannot be stored it keeps a fixed "out of host memory" message.
void set_last_error(const char* message) noexcept;
/// This thread's last-error text; "" when the last call succeeded.
const char* last_error() noexcept;

/// Runs `body` and converts whatever it throws into a status and last-error text.
template <typename Body>
inferno_status guarded(Body&& body) noexcept {
  try {
    body();
    set_last_error("");
    return INFERNO_STATUS_OK;
  } catch (const Error& e) {
    set_last_error(e.what());
    return e.status();
  } catch (const std::bad_alloc&) {
    set_last_error("out of host memory");
    return INFERNO_STATUS_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    set_last_error(e.what());
    return INFERNO_STATUS_INTERNAL;
  } catch (...) {
    set_last_error("internal error: unknown exception");
    return INFERNO_STATUS_INTERNAL;
  }
}

}  // namespace inferno::runtime
