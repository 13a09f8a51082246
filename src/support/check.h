// INFERNO_CHECK: internal invariants. A failed check is a bug in infernoc, not a user error; it
// prints the condition and location to stderr and exits with code 1 (the CLI's internal-error
// code).
#pragma once

#include <string>

namespace inferno::detail {
[[noreturn]] void check_failed(const char* condition, const char* file, int line,
                               const std::string& message);
}  // namespace inferno::detail

#define INFERNO_CHECK(cond, ...)                                                            \
  do {                                                                                      \
    if (!(cond)) {                                                                          \
      ::inferno::detail::check_failed(#cond, __FILE__, __LINE__, std::string{__VA_ARGS__}); \
    }                                                                                       \
  } while (0)
