#include "runtime/shared_library.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/error.h"

namespace inferno::runtime {

SharedLibrary::SharedLibrary(const std::string& path) : path_(path) {
  // dlopen's own message cannot tell a missing file from a broken one; access() can.
  if (access(path.c_str(), R_OK) != 0) {
    fail(INFERNO_STATUS_IO, "cannot read '" + path + "': " + std::strerror(errno));
  }
  // A bare file name would make dlopen search the library path instead of opening this file.
  const std::string open_path = path.find('/') == std::string::npos ? "./" + path : path;
  dlerror();
  handle_ = dlopen(open_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* reason = dlerror();
    fail(INFERNO_STATUS_LOAD_FAILED,
         "cannot load '" + path + "': " + (reason != nullptr ? reason : "dlopen failed"));
  }
}

SharedLibrary::~SharedLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
}

void* SharedLibrary::symbol(const char* name) const {
  dlerror();
  void* address = dlsym(handle_, name);
  if (address == nullptr) {
    const char* reason = dlerror();
    fail(INFERNO_STATUS_LOAD_FAILED, "'" + path_ + "' is not an inferno model: no symbol '" + name +
                                         "' (" + (reason != nullptr ? reason : "null") + ")");
  }
  return address;
}

}  // namespace inferno::runtime
