// Where a compile's time went, stage by stage, for `infernoc -v` (one line per stage, in ms).
#pragma once

#include <array>
#include <chrono>
#include <utility>

#include "driver/build.h"

namespace inferno::cli {

enum class Stage {
  kToolchain,    ///< finding and asking nvcc (--version, --list-gpu-code), the kernels' location
  kFrontend,     ///< reading the model (every variant's load)
  kPasses,       ///< the optimizer and legalize
  kCodegen,      ///< model.cu, the weights blob (and the source model's hash)
  kCacheLookup,  ///< the build cache's key and lookup (or copy out, on a hit)
  kBuildDir,     ///< writing the build directory
  kNvcc,         ///< nvcc: compiling and linking model.so
  kOutput,       ///< moving model.so (and writing the weights) into place
  kCacheStore,   ///< storing the result in the build cache
};
inline constexpr size_t kStageCount = 9;

class StageTimes {
 public:
  void add(Stage stage, double ms) {
    ms_[static_cast<size_t>(stage)] += ms;
    ran_[static_cast<size_t>(stage)] = true;
  }

  /// Runs `step`, counting its time to `stage`, and returns what it returns.
  template <typename Step>
  auto time(Stage stage, Step&& step) {
    const auto start = std::chrono::steady_clock::now();
    auto result = std::forward<Step>(step)();
    add(stage, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                   .count());
    return result;
  }

  /// The driver's stages of one build.
  void add_build(const driver::BuildReport& report);

  /// Logs one line per stage that ran, at debug level (shown with -v).
  void log() const;

 private:
  std::array<double, kStageCount> ms_{};
  std::array<bool, kStageCount> ran_{};
};

/// Logs the times when it goes out of scope, however the command ends.
class LogStageTimesAtExit {
 public:
  explicit LogStageTimesAtExit(const StageTimes& times) : times_(times) {}
  ~LogStageTimesAtExit() { times_.log(); }
  LogStageTimesAtExit(const LogStageTimesAtExit&) = delete;
  LogStageTimesAtExit& operator=(const LogStageTimesAtExit&) = delete;

 private:
  const StageTimes& times_;
};

}  // namespace inferno::cli
