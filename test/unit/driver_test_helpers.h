// Helpers for the driver tests: scratch directories and fake nvcc scripts.
//
// A fake nvcc is a test fixture: a small /bin/sh script written into a scratch directory and
// spawned by the driver like the real one (posix_spawn with an argv vector; the kernel runs the
// #! line), to exercise discovery, version checks and failures without the CUDA toolkit.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>

#include "driver/build.h"

namespace inferno::test {

/// A fresh, empty directory, removed with everything in it at the end of the scope (by
/// driver::remove_tree: std::filesystem::remove_all crashes in binaries linking the torch wheel).
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name)
      : path_(std::filesystem::temp_directory_path() /
              ("infernoc_driver_test_" + name + "_" + std::to_string(::getpid()))) {
    driver::remove_tree(path_.string());
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() { driver::remove_tree(path_.string()); }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

/// Writes an executable /bin/sh script at `path` with `body` after the #! line.
inline std::string write_script(const std::filesystem::path& path, const std::string& body) {
  write_text(path, "#!/bin/sh\n" + body);
  ::chmod(path.c_str(), 0755);
  return path.string();
}

/// A fake nvcc reporting CUDA `release` ("13.0") and building for sm_75..sm_121; any other
/// call runs `build` (default: fail like a compile error).
inline std::string write_fake_nvcc(
    const std::filesystem::path& path, const std::string& release = "13.0",
    const std::string& build = "echo 'model.cu(3): error: fake failure' >&2; exit 2\n") {
  return write_script(path,
                      "case \"$1\" in\n"
                      "  --version) echo 'nvcc: NVIDIA (R) Cuda compiler driver'; echo 'Cuda "
                      "compilation tools, release " +
                          release + ", V" + release +
                          ".1'; exit 0;;\n"
                          "  --list-gpu-code) printf "
                          "'sm_75\\nsm_80\\nsm_86\\nsm_87\\nsm_89\\nsm_90\\nsm_100\\nsm_103\\nsm_"
                          "110\\nsm_120\\nsm_121\\n'; exit 0;;\n"
                          "esac\n" +
                          build);
}

/// Sets (or, with nullopt, unsets) an environment variable for the scope of the object; child
/// processes inherit it.
class ScopedEnvVar {
 public:
  ScopedEnvVar(const char* name, const std::optional<std::string>& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      ::setenv(name, value->c_str(), 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnvVar() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedEnvVar(const ScopedEnvVar&) = delete;
  ScopedEnvVar& operator=(const ScopedEnvVar&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

/// A fake nvcc for the build cache's tests: each build call appends a line to `call_log`, waits
/// (up to 60 s) until the log has `rendezvous` lines, so that that many builds run at once, then
/// writes a model.so made of model.cu and weights.bin (when embedded): each build's library
/// differs with its inputs.
inline std::string write_recording_nvcc(const std::filesystem::path& path,
                                        const std::filesystem::path& call_log,
                                        const std::string& release = "13.0", int rendezvous = 1) {
  const std::string log = "'" + call_log.string() + "'";
  return write_fake_nvcc(path, release,
                         "echo build >> " + log + "\n" + "i=0\n" + "while [ $(wc -l < " + log +
                             ") -lt " + std::to_string(rendezvous) +
                             " ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done\n" +
                             "cat model.cu > model.so || exit 1\n"
                             "if [ -f weights.bin ]; then cat weights.bin >> model.so; fi\n"
                             "chmod 755 model.so\n");
}

/// The number of lines of a file; 0 when it does not exist.
inline int count_lines(const std::filesystem::path& path) {
  std::ifstream in(path);
  int lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  return lines;
}

/// The names in `dir` (not recursive).
inline std::set<std::string> list_dir(const std::filesystem::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    names.insert(entry.path().filename().string());
  return names;
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace inferno::test
