// The build cache's command-line options (--cache-dir, --no-cache) and the directory they
// choose. Kept apart from options.cpp: one block, one concept.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace inferno::cli {

struct CacheFlags {
  std::string dir;        ///< --cache-dir; empty: the default (driver::default_cache_dir)
  bool disabled = false;  ///< --no-cache
};

void add_cache_options(CLI::App& app, CacheFlags& flags);

/// A usage error's message when a cache option was given to a command that builds no library.
std::string check_cache_options(const CLI::App& app, bool builds_library);

/// The cache directory of a build: empty (no cache) with --no-cache, or with INFERNO_NO_CACHE
/// set to anything but "" or "0" unless --cache-dir names a directory; else --cache-dir, else
/// $INFERNO_CACHE_DIR, $XDG_CACHE_HOME/infernoc, $HOME/.cache/infernoc.
std::string resolve_cache_dir(const CacheFlags& flags);

}  // namespace inferno::cli
