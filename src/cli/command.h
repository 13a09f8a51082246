// What `infernoc` does with parsed options: load, optimize, then emit or run the reference.
#pragma once

#include "cli/options.h"
#include "support/status.h"

namespace inferno::cli {

/// Runs the command. Errors come back as a Status whose code is the exit code.
Status run_command(const CliOptions& options);

}  // namespace inferno::cli
