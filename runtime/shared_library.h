// A dlopen'ed shared library, closed when the object dies.
#pragma once

#include <string>

namespace inferno::runtime {

/// Owns a dlopen handle (RTLD_NOW | RTLD_LOCAL: unresolved symbols fail at load, not mid-run, and
/// the model's symbols never leak into the global namespace).
class SharedLibrary {
 public:
  /// Opens `path`; throws IO when the file is missing or unreadable, LOAD_FAILED when dlopen fails.
  explicit SharedLibrary(const std::string& path);
  ~SharedLibrary();
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;

  /// The address of `name`; throws LOAD_FAILED when it is not exported.
  void* symbol(const char* name) const;
  /// The address of `name`, or null when the library does not export it (an optional symbol).
  void* find_symbol(const char* name) const;

 private:
  std::string path_;
  void* handle_ = nullptr;
};

}  // namespace inferno::runtime
