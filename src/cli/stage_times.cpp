#include "cli/stage_times.h"

#include <spdlog/spdlog.h>

namespace inferno::cli {
namespace {

constexpr std::array<const char*, kStageCount> kStageNames = {
    "toolchain", "frontend", "passes",        "codegen",    "cache lookup",
    "build dir", "nvcc",     "link/copy out", "cache store"};

}  // namespace

void StageTimes::add_build(const driver::BuildReport& report) {
  if (report.cache != driver::CacheOutcome::kOff) add(Stage::kCacheLookup, report.cache_lookup_ms);
  if (report.cache == driver::CacheOutcome::kHit) return;
  add(Stage::kBuildDir, report.build_dir_ms);
  add(Stage::kNvcc, report.nvcc_ms);
  add(Stage::kOutput, report.output_ms);
  if (report.cache != driver::CacheOutcome::kOff) add(Stage::kCacheStore, report.cache_store_ms);
}

void StageTimes::log() const {
  double total = 0;
  for (size_t i = 0; i < kStageCount; ++i) {
    if (!ran_[i]) continue;
    total += ms_[i];
    spdlog::debug("time: {:<14} {:>9.1f} ms", kStageNames[i], ms_[i]);
  }
  spdlog::debug("time: {:<14} {:>9.1f} ms", "total", total);
}

}  // namespace inferno::cli
