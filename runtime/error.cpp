#include "runtime/error.h"

namespace inferno::runtime {
namespace {

thread_local std::string t_last_error;
thread_local bool t_last_error_lost = false;  // set when storing the text itself failed

}  // namespace

void fail(inferno_status status, std::string message) { throw Error(status, std::move(message)); }

void set_last_error(const char* message) noexcept {
  try {
    t_last_error.assign(message);
    t_last_error_lost = false;
  } catch (...) {
    t_last_error_lost = true;
  }
}

const char* last_error() noexcept {
  return t_last_error_lost ? "out of host memory (error text lost)" : t_last_error.c_str();
}

}  // namespace inferno::runtime
