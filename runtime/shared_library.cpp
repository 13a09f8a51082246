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
    fail(INFERNO_STATUS_IO, "cannot read '" + path +
                                "': " + (errno == ENOENT ? "no such file" : std::strerror(errno)));
  }
  // A bare file name would make dlopen search the library path instead of opening this file.
  const std::string open_path = path.find('/') == std::string::npos ? "./" + path : path;
  dlerror();
  // RTLD_NODELETE: a model.so links cudart statically, and unmapping it then mapping it again
  // re-initializes that cudart and re-registers its kernels with the driver, which kept ~20 KB
  // of host memory per load/unload cycle on the H200 (test/runtime/gpu_lifecycle_test.cpp). Kept
  // mapped, a file loaded again is the same mapping; a rebuilt file (infernoc replaces it by
  // rename, so a new inode) is mapped anew.
  handle_ = dlopen(open_path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (handle_ == nullptr) {
    const char* reason = dlerror();
    fail(INFERNO_STATUS_LOAD_FAILED,
         "cannot load '" + path + "': " + (reason != nullptr ? reason : "dlopen failed"));
  }
}

SharedLibrary::~SharedLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
}

void* SharedLibrary::find_symbol(const char* name) const { return dlsym(handle_, name); }

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
