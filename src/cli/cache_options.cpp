#include "cli/cache_options.h"

#include <CLI/CLI.hpp>
#include <cstdlib>

#include "driver/build_cache.h"

namespace inferno::cli {

void add_cache_options(CLI::App& app, CacheFlags& flags) {
  app.add_option("--cache-dir", flags.dir,
                 "the build cache: an unchanged model compiled with the same flags, kernels and "
                 "nvcc is copied from here instead of built (default: $INFERNO_CACHE_DIR, else "
                 "$XDG_CACHE_HOME/infernoc, else $HOME/.cache/infernoc; see "
                 "docs/build-cache.md)");
  app.add_flag("--no-cache", flags.disabled,
               "build with nvcc even when the build cache holds the result, and store nothing "
               "(INFERNO_NO_CACHE=1 does the same unless --cache-dir is given)");
}

std::string check_cache_options(const CLI::App& app, bool builds_library) {
  if (app.count("--cache-dir") > 0 && app.count("--no-cache") > 0)
    return "--cache-dir and --no-cache exclude each other";
  for (const char* flag : {"--cache-dir", "--no-cache"}) {
    if (!builds_library && app.count(flag) > 0)
      return std::string(flag) + " is only used with --emit so";
  }
  return {};
}

std::string resolve_cache_dir(const CacheFlags& flags) {
  if (flags.disabled) return {};
  if (!flags.dir.empty()) return flags.dir;
  const char* off = std::getenv("INFERNO_NO_CACHE");
  if (off != nullptr && *off != '\0' && std::string(off) != "0") return {};
  return driver::default_cache_dir();
}

}  // namespace inferno::cli
